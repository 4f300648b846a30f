package customers

import (
	"context"
	"fmt"
	"net/url"
	"slices"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
)

// RecurringInput is a charge of a card token, typed and checked by
// Recurring.
type RecurringInput struct {
	AccountID      string
	TestMode       bool
	CardTokenID    string // or
	CustomerID     string // and its default token (or the token's customer, when both are sent)
	Amount         int64  // minor units
	Currency       string
	OrderReference string
	RecurringType  RecurringType
	OffSession     *bool                // nil: the type's default
	Capture        payments.CaptureMode // "": automatic
	Description    string
	ReturnURL      string // on-session charges of a redirected card return here
	Metadata       map[string]string
	RequestID      string
	Idem           *idempotency.Call // required: IdemInline
}

// MaxReturnURL is the longest return_url (checkout's returnUrl maximum).
const MaxReturnURL = 1024

func (in *RecurringInput) check() error {
	switch {
	case in.CardTokenID == "" && in.CustomerID == "":
		return apierr.New(apierr.CodeParameterMissing, "card_token_id is required (or customer_id, to charge the customer's default card token)").WithParam("card_token_id")
	case in.Amount < 1 || in.Amount > money.MaxMinor:
		return apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d (minor units of amount.currency)", money.MaxMinor)
	case in.OrderReference == "":
		return apierr.Missing("order_reference")
	case in.RecurringType == "":
		return apierr.Missing("recurring_type")
	case !slices.Contains(RecurringTypes, in.RecurringType):
		return apierr.Invalidf("recurring_type", "recurring_type must be one of %v", RecurringTypes)
	case in.Capture != "" && !in.Capture.Valid():
		return apierr.Invalidf("capture", "capture must be automatic or manual")
	case in.RecurringType == CardOnFile && in.OffSession != nil && *in.OffSession:
		return apierr.New(CodeOffSessionNotAllowed, "a card_on_file payment is made by the shopper, who is there (on-session); an off-session charge is a subscription or unscheduled one").WithParam("off_session")
	}
	if in.CardTokenID != "" {
		if err := checkTokenID("card_token_id", in.CardTokenID); err != nil {
			return err
		}
	}
	if in.CustomerID != "" {
		if _, err := ids.ParseField("customer_id", in.CustomerID); err != nil {
			return err
		}
	}
	if _, err := money.ParseCurrencyField("amount.currency", in.Currency); err != nil {
		return err
	}
	if n := chars(in.OrderReference); n > transactions.MaxOrderReference {
		return apierr.Invalidf("order_reference", "order_reference must have 1 to %d characters", transactions.MaxOrderReference)
	}
	if in.ReturnURL != "" {
		u, err := url.Parse(in.ReturnURL)
		if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") || chars(in.ReturnURL) > MaxReturnURL {
			return apierr.Invalidf("return_url", "return_url must be an absolute URL of at most %d characters", MaxReturnURL)
		}
	}
	return firstErr(checkLen("description", in.Description, MaxDescription), metadata.Check(in.Metadata))
}

// offSession is whether the charge runs without the shopper.
func (in *RecurringInput) offSession() bool {
	if in.OffSession != nil {
		return *in.OffSession
	}
	return in.RecurringType.offSessionByDefault()
}

// token is the card token charged: card_token_id (which must be
// customer_id's when both are sent), else customer_id's default: its
// default_card_token_id when the merchant chose one (charged even if its
// card expired since: refused as expired, never moved to another card),
// else the computed one (vault.DefaultOf).
func (s *Service) token(ctx context.Context, in *RecurringInput) (*vault.CardToken, error) {
	if in.CardTokenID == "" {
		c, err := s.vault.Customer(ctx, in.AccountID, in.CustomerID)
		if err != nil {
			return nil, err
		}
		t, err := s.vault.DefaultOf(ctx, c, s.clock())
		if apierr.Is(err, apierr.NotFound) {
			return nil, apierr.New(CodeNoCardToken, "customer %s has no card token that can be charged (none saved, or every card expired)", in.CustomerID)
		}
		return t, err
	}
	t, err := s.vault.Token(ctx, in.AccountID, in.CardTokenID)
	if err == nil && in.CustomerID != "" && t.CustomerID != in.CustomerID {
		err = apierr.NotFoundf("customer %s has no card token %s", in.CustomerID, in.CardTokenID)
	}
	return t, err
}

// Recurring charges a card token (POST /v1/payments/recurring): a
// merchant-initiated payment of a saved card, or one the shopper makes with
// it (card_on_file). The sandbox processor replays the token's test card
// (cards.AuthoriseStored): an off-session charge never waits for the
// shopper, so it is authorised (and captured, in automatic mode, in the
// same write) or refused; an on-session one may need 3-D Secure or a
// redirect, answered as requires_action with next_action, which checkout's
// POST /v2/payments/details completes. The payment, its history, events and
// index entries and the Idempotency-Key's record are one transaction, so a
// retry (or 20 concurrent copies) with the key is one payment. A refused
// charge is a definitive answer (201, status rejected), replayed as such.
// Reads: the token (or the customer and its tokens). Errors: Invalid
// (fields, named; an expired card is card_error expired_card naming
// card_token_id; no_card_token), NotFound (the token or customer, another
// account's or customer's included), Forbidden (live keys: no live
// processor), IdempotencyMismatch, Unavailable; a *idempotency.Replayed for
// a replay.
func (s *Service) Recurring(ctx context.Context, in RecurringInput) (*RecurringPayment, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	t, err := s.token(ctx, &in)
	if err != nil {
		return nil, err
	}
	proc, conn, err := s.checkout.CardsFor(ctx, in.AccountID, !in.TestMode)
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	mode := in.Capture
	if mode == "" {
		mode = payments.CaptureAutomatic
	}
	// The payment's id is the processor's reference for it: chosen first.
	id, err := s.checkout.PaymentID(ctx, in.AccountID, !in.TestMode, in.Idem)
	if err != nil {
		return nil, err
	}
	ch := checkout.Charge(&payments.Payment{ID: id, AccountID: in.AccountID, Livemode: !in.TestMode, Amount: in.Amount,
		Currency: in.Currency, CaptureMode: mode, Flow: payments.Flow{ReturnURL: in.ReturnURL}}, in.Idem.Key(), "authorise", t.ShopperReference, now)
	out, err := proc.AuthoriseStored(ctx, ch, t.Card(), in.offSession())
	if err != nil {
		e := *apierr.As(err)
		e.Param = "card_token_id"
		if in.CardTokenID == "" { // the customer's chosen default (a computed one never expired)
			e.Param = "customer_id"
			e.Message = fmt.Sprintf("customer %s's default card token %s: %s; choose another (POST /v1/customers/%s, default_card_token_id) or send card_token_id",
				in.CustomerID, t.ID, e.Message, in.CustomerID)
		}
		return nil, &e
	}
	if out.Result == cards.RedirectShopper && in.ReturnURL == "" {
		return nil, apierr.New(apierr.CodeParameterMissing, "this card needs the shopper to be redirected to its issuer: send return_url (where the shopper comes back), or charge it off_session").WithParam("return_url")
	}
	p := payments.New(payments.Payment{ID: id, AccountID: in.AccountID, Livemode: !in.TestMode, Amount: in.Amount,
		Currency: in.Currency, PaymentMethod: out.Brand, Last4: out.Last4, MerchantReference: in.OrderReference,
		Description: in.Description, CustomerID: t.CustomerID, CardTokenID: t.ID, RecurringType: string(in.RecurringType),
		CaptureMode: mode, Metadata: in.Metadata, Flow: payments.Flow{ReturnURL: in.ReturnURL, Connector: conn}}, now)
	action, err := s.checkout.ApplyOutcome(p, out, in.RequestID, now)
	if err != nil {
		return nil, err
	}
	ops, err := s.pays.SaveOps(p)
	if err != nil {
		return nil, err
	}
	view := RecurringPayment{Transaction: transactions.View(p), NextAction: nextAction(action)}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: transactions.Kind, Value: view}, ops...)
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		if _, ok := store.IsConditionFailed(err); ok {
			return nil, apierr.New(payments.CodeChanged, "the payment could not be recorded; retry with the same Idempotency-Key")
		}
		return nil, apierr.Wrap("customers.Recurring", apierr.Unavailable, err)
	}
	switch {
	case p.Status.Succeeded():
		metrics.PaymentResult("Authorised")
	case p.Status == payments.Rejected:
		metrics.PaymentResult("Refused")
	}
	return &view, nil
}
