package checkout

import (
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
)

// Event types a session writes, each in the transaction that gives the
// session its final status: completed (a payment was authorised on it) by the
// payment's write, expired by the expirer's (expire.go). A session's version
// condition lets only one of those writes happen, so a session gets at most
// one of the two, once.
const (
	EventSessionCompleted = "checkout.session.completed"
	EventSessionExpired   = "checkout.session.expired"
)

// SessionView is a session as events show it: the fields POST /v2/sessions
// answered (never sessionData: it opens the session to a client) with the
// status and payments GET /v2/sessions/{id} reads at the change.
type SessionView struct {
	ID               string            `json:"id"`
	Status           Status            `json:"status"`
	Amount           Amount            `json:"amount"`
	CountryCode      string            `json:"countryCode,omitempty"`
	ExpiresAt        string            `json:"expiresAt"`
	MerchantAccount  string            `json:"merchantAccount"`
	Reference        string            `json:"reference"`
	ReturnURL        string            `json:"returnUrl"`
	ShopperLocale    string            `json:"shopperLocale"`
	ShopperReference string            `json:"shopperReference,omitempty"`
	ShopperEmail     string            `json:"shopperEmail,omitempty"`
	Channel          string            `json:"channel,omitempty"`
	LineItems        []LineItem        `json:"lineItems,omitempty"`
	Mode             string            `json:"mode"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	Payments         []ResultPayment   `json:"payments"`
}

// View is s as seen at now.
func (s *Session) View(now time.Time) SessionView {
	r, res := s.response(""), s.result(now)
	return SessionView{
		ID: r.ID, Status: res.Status, Amount: r.Amount, CountryCode: r.CountryCode, ExpiresAt: r.ExpiresAt,
		MerchantAccount: r.MerchantAccount, Reference: r.Reference, ReturnURL: r.ReturnURL,
		ShopperLocale: r.ShopperLocale, ShopperReference: r.ShopperReference, ShopperEmail: r.ShopperEmail,
		Channel: r.Channel, LineItems: r.LineItems, Mode: r.Mode, Metadata: r.Metadata, Payments: res.Payments,
	}
}

// pendingEvent is an event a change of the session owes, written with it.
type pendingEvent struct {
	typ string
	at  time.Time
}

// eventOps are the puts of the session's pending events. Their ids are new,
// so they never fail on their own: they commit exactly when the session's
// write does.
func (s *Session) eventOps() ([]store.Op, error) {
	var ops []store.Op
	for _, p := range s.events {
		op, err := eventlog.Append(eventlog.Event{Type: p.typ, Account: s.AccountID, Livemode: s.Livemode, At: p.at, Data: s.View(p.at)})
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}
