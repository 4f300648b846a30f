package vault

import (
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
)

// The events of customers and card tokens, each written (eventlog.Append)
// in the transaction of the change it reports, its data the resource as
// the API shows it after the change (a deleted token: as it was).
const (
	// EventCustomerCreated: a customer was created, by POST /v1/customers
	// or by a checkout payment saving a card for a new shopper.
	EventCustomerCreated = "customer.created"
	// EventCustomerUpdated: POST /v1/customers/{id} changed a customer, or
	// deleting its default card token cleared default_card_token_id.
	EventCustomerUpdated = "customer.updated"
	// EventTokenCreated: a card token was created: a checkout payment saved
	// a new card (storePaymentMethod), or a legacy stored card became a
	// token of its shopper's customer.
	EventTokenCreated = "card_token.created"
	// EventTokenDeleted: a card token was deleted (DELETE
	// /v1/customers/{id}/card-tokens/{token_id}, or Adyen's DELETE
	// /v2/storedPaymentMethods/{id}).
	EventTokenDeleted = "card_token.deleted"
)

// EventTypes are every type the vault's writes emit (the event catalogue
// lists them).
var EventTypes = []string{EventCustomerCreated, EventCustomerUpdated, EventTokenCreated, EventTokenDeleted}

func customerEvent(typ string, c *Customer, now time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: typ, Account: c.AccountID, Livemode: c.Livemode, At: now, Data: c.View()})
}

func tokenEvent(typ string, t *CardToken, now time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: typ, Account: t.AccountID, Livemode: t.Livemode, At: now, Data: t.View()})
}
