package customers

import (
	"time"

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

// Customer is the Pay API representation of a customer.
type Customer struct {
	ID          string            `json:"id"`
	ExternalRef string            `json:"external_ref,omitempty"` // checkout's shopperReference
	Email       string            `json:"email,omitempty"`
	Name        string            `json:"name,omitempty"`
	Description string            `json:"description,omitempty"`
	Livemode    bool              `json:"livemode"`
	CreatedAt   time.Time         `json:"created_at"`
	Metadata    map[string]string `json:"metadata"`
}

func customerView(c *vault.Customer) Customer {
	md := c.Metadata
	if md == nil {
		md = map[string]string{}
	}
	return Customer{ID: c.ID, ExternalRef: c.ExternalRef, Email: c.Email, Name: c.Name, Description: c.Description,
		Livemode: c.Livemode, CreatedAt: c.CreatedAt, Metadata: md}
}

// CardToken is the Pay API representation of a card token: the card as
// checkout's stored payment method (the same id), never its number.
type CardToken struct {
	ID                 string            `json:"id"`
	CustomerID         string            `json:"customer_id"`
	Brand              string            `json:"brand"`
	Last4              string            `json:"last4"`
	ExpiryMonth        string            `json:"expiry_month"`
	ExpiryYear         string            `json:"expiry_year"`
	HolderName         string            `json:"holder_name,omitempty"`
	FirstTransactionID string            `json:"first_transaction_id,omitempty"`
	Livemode           bool              `json:"livemode"`
	CreatedAt          time.Time         `json:"created_at"`
	UpdatedAt          time.Time         `json:"updated_at"`
	Metadata           map[string]string `json:"metadata"`
}

func tokenView(t *vault.CardToken) CardToken {
	return CardToken{ID: t.ID, CustomerID: t.CustomerID, Brand: t.Brand, Last4: t.Last4, ExpiryMonth: t.ExpiryMonth,
		ExpiryYear: t.ExpiryYear, HolderName: t.HolderName, FirstTransactionID: t.FirstTransactionID, Livemode: t.Livemode,
		CreatedAt: t.CreatedAt, UpdatedAt: t.UpdatedAt, Metadata: map[string]string{}}
}

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
