package processornotices

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
)

// Keys finds a connector by its id: the account it serves and the HMAC key
// its processor signs notifications with. An unknown id is an apierr
// NotFound. The connector configuration implements it; the wiring passes it.
type Keys interface {
	NotificationKey(ctx context.Context, connectorID string) (account string, hmacKey string, err error)
}

// Config is what the service needs.
type Config struct {
	Store store.Store
	Keys  Keys
	Clock func() time.Time
	Log   *slog.Logger
	// Count counts an alarmed notice by metric name (nil: metrics.Count,
	// the EMF line CloudWatch alarms on).
	Count func(metric string)
	// Chargebacks opens the dispute of a chargeback (the disputes area);
	// nil: a chargeback is recorded and alarmed only.
	Chargebacks Chargebacks
}

// Chargebacks opens a payment's dispute from its processor's chargeback,
// once however often it is asked (disputes.Service.OpenFromProcessor).
type Chargebacks interface {
	OpenFromProcessor(ctx context.Context, cb disputes.ProcessorChargeback) (*disputes.Dispute, error)
}

// Service records processor notices and applies them to the payments.
type Service struct {
	st    store.Store
	repo  *payments.Repo
	keys  Keys
	clock func() time.Time
	log   *slog.Logger
	count func(metric string)
	cbs   Chargebacks
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Count == nil {
		c.Count = metrics.Count
	}
	return &Service{st: c.Store, repo: payments.NewRepo(c.Store), keys: c.Keys, clock: c.Clock, log: c.Log, count: c.Count,
		cbs: c.Chargebacks}
}

// Outcome is what a notice did.
type Outcome string

const (
	Confirmed  Outcome = "confirmed"  // the processor confirmed a modification the payment already has
	Recorded   Outcome = "recorded"   // recorded and marked on the payment (AUTHORISATION, other codes)
	Failed     Outcome = "failed"     // a failed modification or success=false: alarmed, an operator settles
	Chargeback Outcome = "chargeback" // the issuer disputes the payment: its dispute opened (alarmed where it could not be)
	Unmatched  Outcome = "unmatched"  // no payment of the connector matches: alarmed
	Duplicate  Outcome = "duplicate"  // recorded before: nothing changed
)

// Result is what Receive did with each item, in order.
type Result struct {
	Outcomes []Outcome
}

// Limits of a notification, in characters (Adyen's references are 16
// characters, a merchant reference at most 80): a notice's key (event code,
// pspReference) and the payment's (merchantReference) stay within the
// store's key sizes however many bytes a character takes.
const (
	maxItems     = 100
	maxConnector = 256
	maxCode      = 64
	maxRef       = 128
	maxText      = 1024
	maxDataKey   = 128
	maxDataValue = 4096
)

// Receive verifies and records the items of req, a notification of the
// connector connectorID. Errors: NotFound (unknown_connector), Invalid
// (invalid_notification), Unauthenticated (invalid_hmac_signature: nothing
// recorded), Unavailable (the store; items before the failing one are
// recorded, and Adyen's resend finds them as duplicates), Conflict (a
// payment kept changing: resource_busy, resent likewise).
func (s *Service) Receive(ctx context.Context, connectorID string, req adyen.NotificationRequest) (Result, error) {
	if connectorID == "" || utf8.RuneCountInString(connectorID) > maxConnector || !text(connectorID) {
		return Result{}, apierr.New(CodeUnknownConnector, "no such connector")
	}
	if err := check(req); err != nil {
		return Result{}, err
	}
	account, key, err := s.keys.NotificationKey(ctx, connectorID)
	if apierr.Is(err, apierr.NotFound) {
		return Result{}, apierr.New(CodeUnknownConnector, "no such connector: %s", connectorID)
	}
	if err != nil {
		return Result{}, apierr.Wrap("processornotices.key", apierr.Unavailable, err)
	}
	for i := range req.NotificationItems {
		it := &req.NotificationItems[i].NotificationRequestItem
		if !it.Valid(key) {
			return Result{}, apierr.New(CodeInvalidHMAC, "notificationItems[%d]: the HMAC signature is missing or wrong for this connector's key", i)
		}
	}
	live := req.Live == "true"
	var res Result
	for i := range req.NotificationItems {
		o, err := s.apply(ctx, connectorID, account, live, req.NotificationItems[i].NotificationRequestItem)
		if err != nil {
			return res, err
		}
		res.Outcomes = append(res.Outcomes, o)
	}
	return res, nil
}

// check is the shape every item must have before anything is looked up:
// first every string's length (so an over-long field is named whatever else
// is missing), then what must be there.
func check(req adyen.NotificationRequest) error {
	if err := lengths(req); err != nil {
		return err
	}
	if req.Live != "true" && req.Live != "false" {
		return invalid("live", `live must be "true" or "false"`)
	}
	if len(req.NotificationItems) == 0 || len(req.NotificationItems) > maxItems {
		return invalid("notificationItems", "notificationItems must hold 1 to %d items", maxItems)
	}
	for i, w := range req.NotificationItems {
		it, at := w.NotificationRequestItem, itemParam(i)
		switch {
		case it.EventCode == "":
			return invalid(at+"eventCode", "notificationItems[%d]: eventCode is missing", i)
		case it.PSPReference == "":
			return invalid(at+"pspReference", "notificationItems[%d]: pspReference is missing", i)
		case it.Success != "true" && it.Success != "false":
			return invalid(at+"success", `notificationItems[%d]: success must be "true" or "false"`, i)
		}
	}
	return nil
}

func itemParam(i int) string { return fmt.Sprintf("notificationItems[%d].NotificationRequestItem.", i) }

func invalid(param, format string, args ...any) error {
	return apierr.New(CodeInvalidNotification, format, args...).WithParam(param)
}

// lengths checks every string of req against its documented maximum, in
// characters, and that it is text (valid UTF-8, no NUL).
func lengths(req adyen.NotificationRequest) error {
	field := func(param, v string, max int) error {
		if n := utf8.RuneCountInString(v); n > max {
			return invalid(param, "%s must be at most %d characters", param, max)
		}
		if !text(v) {
			return invalid(param, "%s must be text (UTF-8, no NUL)", param)
		}
		return nil
	}
	if err := field("live", req.Live, 5); err != nil {
		return err
	}
	for i, w := range req.NotificationItems {
		it, at := w.NotificationRequestItem, itemParam(i)
		for _, f := range []struct {
			name, v string
			max     int
		}{
			{"eventCode", it.EventCode, maxCode}, {"eventDate", it.EventDate, maxCode},
			{"merchantAccountCode", it.MerchantAccountCode, maxRef}, {"merchantReference", it.MerchantReference, maxRef},
			{"originalReference", it.OriginalReference, maxRef}, {"pspReference", it.PSPReference, maxRef},
			{"paymentMethod", it.PaymentMethod, maxCode}, {"reason", it.Reason, maxText}, {"success", it.Success, 5},
			{"amount.currency", it.Amount.Currency, 3},
		} {
			if err := field(at+f.name, f.v, f.max); err != nil {
				return err
			}
		}
		for j, op := range it.Operations {
			if err := field(fmt.Sprintf("%soperations[%d]", at, j), op, maxCode); err != nil {
				return err
			}
		}
		for k, v := range it.AdditionalData {
			if err := field(at+"additionalData", k, maxDataKey); err != nil {
				return err
			}
			if err := field(at+"additionalData."+k, v, maxDataValue); err != nil {
				return err
			}
		}
	}
	return nil
}

// text: valid UTF-8 without NUL, the store's rule for keys.
func text(s string) bool {
	for _, r := range s {
		if r == 0 {
			return false
		}
	}
	return utf8.ValidString(s)
}

// record is a stored notice.
type record struct {
	Connector         string    `json:"connector"`
	AccountID         string    `json:"account_id"`
	Live              bool      `json:"live"`
	EventCode         string    `json:"event_code"`
	Success           bool      `json:"success"`
	PSPReference      string    `json:"psp_reference"`
	OriginalReference string    `json:"original_reference,omitempty"`
	MerchantReference string    `json:"merchant_reference,omitempty"`
	Amount            int64     `json:"amount"`
	Currency          string    `json:"currency,omitempty"`
	Reason            string    `json:"reason,omitempty"`
	EventDate         string    `json:"event_date,omitempty"`
	PaymentID         string    `json:"payment_id,omitempty"` // "" when unmatched
	DisputeID         string    `json:"dispute_id,omitempty"` // a chargeback's dispute, when opened
	NoDispute         string    `json:"no_dispute,omitempty"` // why a chargeback opened none
	Outcome           Outcome   `json:"outcome"`
	ReceivedAt        time.Time `json:"received_at"`
}

// noticePK is the partition of a connector's notices.
func noticePK(connectorID string) string { return "pnotice#" + connectorID }

// noticeKey is Adyen's identity of a notification within the connector.
func noticeKey(connectorID string, it adyen.NotificationRequestItem) store.Key {
	return store.Key{Table: store.TablePayments, PK: noticePK(connectorID), SK: it.EventCode + "#" + it.PSPReference + "#" + it.Success}
}

// modification reports whether code is the outcome of a modification
// (named by originalReference), rather than of the payment itself.
func modification(code string) bool {
	switch code {
	case adyen.EventAuthorisation, adyen.EventChargeback, adyen.EventChargebackReversed:
		return false
	}
	return true
}

// processorRef is the payment's processor reference that it names.
func processorRef(it adyen.NotificationRequestItem) string {
	if modification(it.EventCode) && it.OriginalReference != "" {
		return it.OriginalReference
	}
	return it.PSPReference
}

// outcome is what a matched notice does.
func outcome(it adyen.NotificationRequestItem) Outcome {
	switch {
	case it.EventCode == adyen.EventCaptureFailed || it.EventCode == adyen.EventRefundFailed || it.Success != "true":
		return Failed
	case it.EventCode == adyen.EventChargeback:
		return Chargeback
	case it.EventCode == adyen.EventCapture || it.EventCode == adyen.EventRefund || it.EventCode == adyen.EventCancellation:
		return Confirmed
	}
	return Recorded
}

// apply records one verified item with its effect, once.
func (s *Service) apply(ctx context.Context, connectorID, account string, live bool, it adyen.NotificationRequestItem) (Outcome, error) {
	key := noticeKey(connectorID, it)
	race := store.Race{Op: "processornotices.apply", What: "payment " + it.MerchantReference}
	var rec record
	err := race.Run(ctx, func(int) error {
		if _, err := s.st.Get(ctx, key); err == nil {
			rec = record{Outcome: Duplicate}
			return nil
		} else if !errors.Is(err, store.ErrNotFound) {
			return apierr.Wrap("processornotices.get", apierr.Unavailable, err)
		}
		rec = record{Connector: connectorID, AccountID: account, Live: live, EventCode: it.EventCode, Success: it.Success == "true",
			PSPReference: it.PSPReference, OriginalReference: it.OriginalReference, MerchantReference: it.MerchantReference,
			Amount: it.Amount.Value, Currency: it.Amount.Currency, Reason: it.Reason, EventDate: it.EventDate,
			Outcome: Unmatched, ReceivedAt: s.clock().UTC()}
		p, err := s.match(ctx, connectorID, account, it)
		if err != nil {
			return err
		}
		if p != nil && outcome(it) == Chargeback && s.cbs != nil {
			// The dispute first: a notice recorded is never applied again,
			// and the dispute is one per payment however often it is
			// opened, so a crash in between opens it on Adyen's resend.
			d, err := s.cbs.OpenFromProcessor(ctx, disputes.ProcessorChargeback{AccountID: account, TransactionID: p.ID, Amount: it.Amount.Value})
			switch {
			case apierr.Is(err, apierr.Unavailable):
				return err
			case err != nil:
				rec.NoDispute = apierr.As(err).Message
			default:
				rec.DisputeID = d.ID
				if p, err = s.match(ctx, connectorID, account, it); err != nil || p == nil {
					return err // re-read: the dispute marked the payment
				}
			}
		}
		var payOps []store.Op
		if p != nil {
			rec.PaymentID, rec.Outcome = p.ID, outcome(it)
			p.Flow.ProcessorNotices = append(p.Flow.ProcessorNotices, it.EventCode+":"+it.PSPReference+":"+it.Success)
			if payOps, err = s.repo.SaveOps(p); err != nil {
				return err
			}
		}
		data, err := json.Marshal(rec)
		if err != nil {
			return apierr.Wrap("processornotices.encode", apierr.Internal, err)
		}
		ops := append([]store.Op{store.Put(store.Item{Key: key, Data: data}, store.IfAbsent)}, payOps...)
		err = s.st.Write(ctx, ops...)
		if cf, ok := store.IsConditionFailed(err); ok && cf.Index == 0 {
			return store.Lost() // a concurrent delivery of the same notice: read again, find it
		}
		if err == nil && p != nil {
			p.Saved()
		}
		return race.Settle(err, 1)
	})
	if err != nil {
		return "", err
	}
	s.report(connectorID, account, it, rec)
	return rec.Outcome, nil
}

// match is the payment it is about, or nil when none of the connector's
// account matches.
func (s *Service) match(ctx context.Context, connectorID, account string, it adyen.NotificationRequestItem) (*payments.Payment, error) {
	if it.MerchantReference == "" {
		return nil, nil
	}
	p, err := s.repo.Get(ctx, account, it.MerchantReference)
	if apierr.Is(err, apierr.NotFound) || apierr.Is(err, apierr.Invalid) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if p.Flow.Connector != connectorID || p.Flow.ProcessorRef == "" || p.Flow.ProcessorRef != processorRef(it) {
		return nil, nil
	}
	return p, nil
}

// report logs (and counts) what a recorded notice did, once: after its
// commit, never for a duplicate. The alarm lines are at Error level and
// name what an operator does.
func (s *Service) report(connectorID, account string, it adyen.NotificationRequestItem, rec record) {
	attrs := []any{"connector", connectorID, "account", account, "event_code", it.EventCode, "success", it.Success,
		"psp_reference", it.PSPReference, "original_reference", it.OriginalReference,
		"merchant_reference", it.MerchantReference, "amount", it.Amount.Value, "currency", it.Amount.Currency, "outcome", string(rec.Outcome)}
	switch rec.Outcome {
	case Duplicate:
		s.log.Info("processor notice already recorded", attrs...)
	case Unmatched:
		s.count(metrics.ProcessorNoticesUnmatched)
		s.log.Error("processor notice unmatched: no payment of the connector's account has this reference; recorded, "+
			"an operator finds the payment at the processor", attrs...)
	case Failed:
		s.count(metrics.ProcessorNoticesAlarmed)
		s.log.Error("processor notice needs an operator: the processor failed or refused an operation that the payment "+
			"already shows as done; no balance was changed, settle the difference by hand", append(attrs, "payment", rec.PaymentID, "reason", it.Reason)...)
	case Chargeback:
		if rec.DisputeID != "" {
			s.log.Info("processor notice: the issuer's chargeback opened the payment's dispute", append(attrs, "payment", rec.PaymentID, "dispute", rec.DisputeID)...)
			return
		}
		s.count(metrics.ProcessorNoticesAlarmed)
		s.log.Error("processor notice needs an operator: the issuer opened a chargeback at the processor and no dispute "+
			"could be opened here; handle it at the processor", append(attrs, "payment", rec.PaymentID, "reason", it.Reason, "why", rec.NoDispute)...)
	default:
		s.log.Info("processor notice recorded", append(attrs, "payment", rec.PaymentID)...)
	}
}
