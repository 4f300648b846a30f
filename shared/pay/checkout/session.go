package checkout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Status is a session's status (SessionResultResponse.status).
type Status string

// Session statuses. Expired is derived on read and stored by the expirer
// (expire.go).
const (
	StatusActive         Status = "active"
	StatusPaymentPending Status = "paymentPending"
	StatusCompleted      Status = "completed"
	StatusRefused        Status = "refused"
	StatusCanceled       Status = "canceled"
	StatusExpired        Status = "expired"
)

// transitions is the state machine: an open session (active, or with a
// payment waiting for the shopper) takes payments until one completes it,
// too many are refused, the shopper cancels, or it expires; the others are
// final. Session.move is the one place a status changes.
var transitions = map[Status][]Status{
	StatusActive:         {StatusPaymentPending, StatusCompleted, StatusRefused, StatusCanceled, StatusExpired},
	StatusPaymentPending: {StatusActive, StatusCompleted, StatusRefused, StatusCanceled, StatusExpired},
}

// CanTransition reports whether from -> to is allowed.
func CanTransition(from, to Status) bool { return slices.Contains(transitions[from], to) }

// move sets the session's status: staying put, or a transition the state
// machine allows (anything else is a bug: Internal).
func (s *Session) move(to Status) error {
	if s.Status != to && !CanTransition(s.Status, to) {
		return apierr.Wrap("checkout.Session.move", apierr.Internal, fmt.Errorf("session %s: %s -> %s", s.ID, s.Status, to))
	}
	s.Status = to
	return nil
}

// MaxRefusals is how many refused or failed attempts end a session as refused.
const MaxRefusals = 3

// ResultRetention keeps a session readable this long after it expires.
const ResultRetention = 30 * 24 * time.Hour

// Session is the stored checkout session.
type Session struct {
	ID               string            `json:"id"`
	AccountID        string            `json:"account_id"`
	MerchantAccount  string            `json:"merchant_account"`
	Livemode         bool              `json:"livemode"`
	Amount           Amount            `json:"amount"`
	CountryCode      string            `json:"country_code,omitempty"`
	Reference        string            `json:"reference"`
	ReturnURL        string            `json:"return_url"`
	ShopperReference string            `json:"shopper_reference,omitempty"`
	ShopperEmail     string            `json:"shopper_email,omitempty"`
	ShopperLocale    string            `json:"shopper_locale"`
	Channel          string            `json:"channel,omitempty"`
	TransactionType  string            `json:"transaction_type"`
	LineItems        []LineItem        `json:"line_items,omitempty"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	// CaptureMode applies to every payment of the session (capture.go).
	CaptureMode payments.CaptureMode `json:"capture_mode,omitempty"`
	// Recurring is what the session was created with of Adyen's recurring
	// fields (adyen_recurring.go).
	Recurring        SessionRecurring `json:"recurring,omitzero"`
	CreatedAt        time.Time        `json:"created_at"`
	ExpiresAt        time.Time        `json:"expires_at"`
	Status           Status           `json:"status"`
	Refusals         int              `json:"refusals"`
	PendingPaymentID string           `json:"pending_payment_id,omitempty"`
	Payments         []ResultPayment  `json:"payments,omitempty"`
	version          int64
	events           []pendingEvent // written by the next updateOps

	// PaymentLinkID and CustomerID are set on a session a payment link's
	// page opened (links.go): its payments carry both, and it takes
	// payments only with the link's hold.
	PaymentLinkID string `json:"payment_link_id,omitempty"`
	CustomerID    string `json:"customer_id,omitempty"`
}

func sessionKey(id string) store.Key {
	return store.Key{Table: store.TableSessions, PK: "cs#" + id, SK: "session"}
}

// liveKey is the marker that exists exactly while the session is unexpired.
func liveKey(id string) store.Key {
	return store.Key{Table: store.TableSessions, PK: "cs#" + id, SK: "live"}
}

// StatusAt is the status as seen at now: an unfinished session past its
// expiry is expired.
func (s *Session) StatusAt(now time.Time) Status {
	if (s.Status == StatusActive || s.Status == StatusPaymentPending) && !now.Before(s.ExpiresAt) {
		return StatusExpired
	}
	return s.Status
}

// createOps writes a new session, its live marker and its expiry index
// entry (expire.go).
func (s *Session) createOps() ([]store.Op, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, apierr.Wrap("checkout.createOps", apierr.Internal, err)
	}
	return []store.Op{
		store.Put(store.Item{Key: sessionKey(s.ID), Data: data, ExpiresAt: s.ExpiresAt.Add(ResultRetention)}, store.IfAbsent),
		store.Put(store.Item{Key: liveKey(s.ID), Data: []byte("{}"), ExpiresAt: s.ExpiresAt}, store.IfAbsent),
		expiryOp(s),
	}, nil
}

// updateOps write the session back at the version read, then the events its
// change owes (after every conditional op, so callers can tell conditions by
// index). With requireLive the transaction also checks the live marker: the
// write fails once the session expired, however late.
func (s *Session) updateOps(requireLive bool) ([]store.Op, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, apierr.Wrap("checkout.updateOps", apierr.Internal, err)
	}
	ops := []store.Op{store.Put(store.Item{Key: sessionKey(s.ID), Data: data, ExpiresAt: s.ExpiresAt.Add(ResultRetention)}, store.IfVersion(s.version))}
	if requireLive {
		ops = append(ops, store.Check(liveKey(s.ID), store.IfExists))
	}
	evs, err := s.eventOps()
	if err != nil {
		return nil, err
	}
	return append(ops, evs...), nil
}

// loadSession reads a session of accountID; another account's is NotFound.
func (svc *Service) loadSession(ctx context.Context, accountID, id string) (*Session, error) {
	if id == "" || len(id) > 64 {
		return nil, apierr.NotFoundf("no such session: %s", id)
	}
	it, err := svc.st.Get(ctx, sessionKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such session: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("checkout.loadSession", apierr.Unavailable, err)
	}
	var s Session
	if err := json.Unmarshal(it.Data, &s); err != nil {
		return nil, apierr.Wrap("checkout.loadSession", apierr.Internal, err)
	}
	if s.AccountID != accountID {
		return nil, apierr.NotFoundf("no such session: %s", id)
	}
	s.version = it.Version
	return &s, nil
}

// dropPayment removes payment id's entry from the session's payments.
func (s *Session) dropPayment(id string) {
	s.Payments = slices.DeleteFunc(s.Payments, func(e ResultPayment) bool { return e.PSPReference == id })
}

// payable refuses payments on sessions that cannot take one at now.
func (s *Session) payable(now time.Time) error {
	switch st := s.StatusAt(now); st {
	case StatusActive, StatusPaymentPending:
		return nil
	case StatusExpired:
		return apierr.New(CodeSessionExpired, "session %s expired at %s", s.ID, s.ExpiresAt.Format(time.RFC3339))
	default:
		return apierr.New(endedCodes[st], "session %s is %s and takes no more payments", s.ID, st)
	}
}

func (s *Session) response(sessionData string) SessionResponse {
	return SessionResponse{
		ID: s.ID, SessionData: sessionData, Amount: s.Amount, CountryCode: s.CountryCode,
		ExpiresAt: s.ExpiresAt.UTC().Format(time.RFC3339), MerchantAccount: s.MerchantAccount,
		Reference: s.Reference, ReturnURL: s.ReturnURL, ShopperLocale: s.ShopperLocale,
		ShopperReference: s.ShopperReference, ShopperEmail: s.ShopperEmail, Channel: s.Channel,
		LineItems: s.LineItems, Mode: "embedded", Metadata: s.Metadata,
		StorePaymentMethodMode: s.Recurring.StoreMode, RecurringProcessingModel: s.Recurring.Model,
		ShopperInteraction: s.Recurring.Interaction,
	}
}

// sessionClaims is what sessionData binds.
type sessionClaims struct {
	ID        string `json:"id"`
	Account   string `json:"acct"`
	Value     int64  `json:"value"`
	Currency  string `json:"cur"`
	ExpiresAt int64  `json:"exp"`
}

const purposeSession = "cs1"

func (svc *Service) sessionData(s *Session) (string, error) {
	return svc.signer.Seal(purposeSession, sessionClaims{s.ID, s.AccountID, s.Amount.Value, s.Amount.Currency, s.ExpiresAt.Unix()})
}

// checkSessionData verifies that token was issued for exactly this session.
func (svc *Service) checkSessionData(s *Session, token string) error {
	if token == "" {
		return apierr.Missing("sessionData")
	}
	var c sessionClaims
	if err := svc.signer.Open(purposeSession, token, &c); err != nil {
		return invalid("sessionData", CodeSessionDataInvalid, "sessionData is not valid: pass the sessionData returned with this session, unchanged")
	}
	want := sessionClaims{s.ID, s.AccountID, s.Amount.Value, s.Amount.Currency, s.ExpiresAt.Unix()}
	if c != want {
		return invalid("sessionData", CodeSessionDataMismatch, "sessionData belongs to another session")
	}
	return nil
}
