package customers

import (
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
)

// Resource kinds, for version changes (metadata is absent before
// 2024-01-15 on both, as on every resource). A recurring payment answers a
// transaction (transactions.Kind): requires_action reads 3d before
// 2024-01-15.
const (
	KindCustomer  = "customer"
	KindCardToken = "card_token"
	KindDeleted   = "card_token_deleted"
)

// Customer is the Pay API representation of a customer (the vault's view:
// its events carry the same).
type Customer = vault.CustomerView

func customerView(c *vault.Customer) Customer { return c.View() }

// CardToken is the Pay API representation of a card token: the card as
// checkout's stored payment method (the same id), never its number (the
// vault's view: its events carry the same).
type CardToken = vault.TokenView

func tokenView(t *vault.CardToken) CardToken { return t.View() }

// Deleted answers a deleted card token.
type Deleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// RecurringType is the model of a charge of a saved card, as card schemes
// name them (Adyen's recurringProcessingModel).
type RecurringType string

const (
	// Subscription: a series at a fixed interval, started by the merchant
	// (Adyen's Subscription). Off-session by default.
	Subscription RecurringType = "subscription"
	// Unscheduled: started by the merchant at no fixed time (a top-up when
	// a balance runs low; Adyen's UnscheduledCardOnFile). Off-session by
	// default.
	Unscheduled RecurringType = "unscheduled"
	// CardOnFile: the shopper pays with a card saved earlier, being there to
	// do it (Adyen's CardOnFile). Always on-session.
	CardOnFile RecurringType = "card_on_file"
)

// RecurringTypes lists the types.
var RecurringTypes = []RecurringType{Subscription, Unscheduled, CardOnFile}

// offSessionByDefault is whether a type's charges run without the shopper
// when off_session is not sent.
func (t RecurringType) offSessionByDefault() bool { return t != CardOnFile }

// RecurringPayment answers POST /v1/payments/recurring: the transaction,
// and while it waits for the shopper (requires_action: an on-session
// charge of a card enrolled in 3-D Secure or redirected) what the shopper
// must do.
type RecurringPayment struct {
	transactions.Transaction
	NextAction *NextAction `json:"next_action,omitempty"`
}

// NextAction is checkout's Adyen action in the Pay API's names: hand it to
// Adyen's 3DS2 component as {type, subtype, token, paymentData: payment_data,
// authorisationToken: payment_data, paymentMethodType}, then send what the
// component returns to POST /v2/payments/details (details.threeDSResult);
// for a redirect, send the shopper to url and submit the redirectResult it
// returns with. In the sandbox POST /test-helpers/payments/{id}/challenge
// passes a challenge.
type NextAction struct {
	Type              string `json:"type"`              // threeDS2 or redirect (Adyen's action types)
	Subtype           string `json:"subtype,omitempty"` // threeDS2: fingerprint or challenge
	Token             string `json:"token,omitempty"`   // threeDS2: the 3DS2 component's token
	PaymentData       string `json:"payment_data,omitempty"`
	PaymentMethodType string `json:"payment_method_type"`
	URL               string `json:"url,omitempty"`    // redirect
	Method            string `json:"method,omitempty"` // redirect: GET
}

func nextAction(a *checkout.Action) *NextAction {
	if a == nil {
		return nil
	}
	return &NextAction{Type: a.Type, Subtype: a.Subtype, Token: a.Token, PaymentData: a.PaymentData,
		PaymentMethodType: a.PaymentMethodType, URL: a.URL, Method: a.Method}
}
