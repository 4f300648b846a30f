package direct

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
)

// Limits of the request (the OpenAPI fragment repeats them).
const (
	MaxEncryptedCard = 15000 // checkout's encrypted card fields' maximum
	MaxReturnURL     = 1024
)

// BrowserInfo is the shopper's browser, as 3-D Secure 2 asks for it (Adyen's
// browserInfo, in snake_case).
type BrowserInfo struct {
	AcceptHeader      string `json:"accept_header" maxlen:"2048"`
	UserAgent         string `json:"user_agent" maxlen:"2048"`
	Language          string `json:"language" maxlen:"35"`
	ColorDepth        int    `json:"color_depth"`
	ScreenHeight      int    `json:"screen_height"`
	ScreenWidth       int    `json:"screen_width"`
	TimeZoneOffset    int    `json:"time_zone_offset"`
	JavaEnabled       bool   `json:"java_enabled"`
	JavaScriptEnabled *bool  `json:"javascript_enabled"`
}

// colorDepths are EMV 3-D Secure's allowed screen colour depths.
var colorDepths = []int{1, 4, 8, 15, 16, 24, 30, 32, 48}

// Limits of browser_info's numbers (EMV 3-D Secure's field sizes).
const (
	MaxScreen         = 999999
	MaxTimeZoneOffset = 840 // minutes, UTC-14..UTC+12 as JavaScript counts them
)

func (b *BrowserInfo) check() error {
	if b == nil {
		return nil
	}
	switch {
	case b.ColorDepth != 0 && !slices.Contains(colorDepths, b.ColorDepth):
		return apierr.Invalidf("browser_info.color_depth", "browser_info.color_depth must be one of %v (bits per pixel)", colorDepths)
	case b.ScreenHeight < 0 || b.ScreenHeight > MaxScreen:
		return apierr.Invalidf("browser_info.screen_height", "browser_info.screen_height must be 0 to %d pixels", MaxScreen)
	case b.ScreenWidth < 0 || b.ScreenWidth > MaxScreen:
		return apierr.Invalidf("browser_info.screen_width", "browser_info.screen_width must be 0 to %d pixels", MaxScreen)
	case b.TimeZoneOffset < -MaxTimeZoneOffset || b.TimeZoneOffset > MaxTimeZoneOffset:
		return apierr.Invalidf("browser_info.time_zone_offset", "browser_info.time_zone_offset must be -%d to %d minutes", MaxTimeZoneOffset, MaxTimeZoneOffset)
	}
	return nil
}

// PaymentRequest is the body of POST /v1/payments/direct: the card, either
// encrypted by the merchant (encrypted_card) or decoded from a wallet
// (payment_token_id), and the payment.
type PaymentRequest struct {
	EncryptedCard  string            `json:"encrypted_card" maxlen:"15000"`
	PaymentTokenID string            `json:"payment_token_id" maxlen:"64"`
	Amount         *AmountRequest    `json:"amount"`
	OrderReference string            `json:"order_reference" maxlen:"128"`
	ReturnURL      string            `json:"return_url" maxlen:"1024"`
	BrowserInfo    *BrowserInfo      `json:"browser_info"`
	Capture        string            `json:"capture" maxlen:"16"`
	Metadata       map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// AmountRequest is an amount as sent: both fields required.
type AmountRequest struct {
	Value    *int64  `json:"value"`
	Currency *string `json:"currency" maxlen:"3"`
}

// PayInput is a direct payment, typed and not yet checked.
type PayInput struct {
	AccountID string
	TestMode  bool
	Request   PaymentRequest
	RequestID string
	Idem      *idempotency.Call // required: the route is IdemInline
}

// Payment answers POST /v1/payments/direct: the transaction, and while it
// waits for the shopper (requires_action: 3-D Secure) what the merchant must
// do with them.
type Payment struct {
	transactions.Transaction
	NextAction *NextAction `json:"next_action,omitempty"`
}

// NextAction is the 3-D Secure redirect of a payment that waits for the
// shopper: send the shopper's browser to url (method GET); the issuer sends
// them back to return_url with a redirectResult parameter, which the
// merchant submits to POST /v2/payments/details
// ({"details": {"redirectResult": ...}}) to finish the payment.
type NextAction struct {
	Type              string `json:"type"`   // redirect
	Method            string `json:"method"` // GET
	URL               string `json:"url"`
	PaymentMethodType string `json:"payment_method_type"` // scheme
}

func nextAction(a *checkout.Action) *NextAction {
	if a == nil {
		return nil
	}
	return &NextAction{Type: a.Type, Method: a.Method, URL: a.URL, PaymentMethodType: a.PaymentMethodType}
}

func chars(s string) int { return utf8.RuneCountInString(s) }

// checked is a request that passed every field rule.
type checked struct {
	amount   int64
	currency string
	mode     payments.CaptureMode
}

func (in *PaymentRequest) check() (checked, error) {
	var c checked
	switch {
	case in.EncryptedCard == "" && in.PaymentTokenID == "":
		return c, apierr.New(apierr.CodeParameterMissing, "encrypted_card is required (or payment_token_id, for a decoded Apple Pay or Google Pay token)").WithParam("encrypted_card")
	case in.EncryptedCard != "" && in.PaymentTokenID != "":
		return c, apierr.Invalidf("payment_token_id", "send encrypted_card or payment_token_id, not both")
	case in.Amount == nil:
		return c, apierr.Missing("amount")
	case in.Amount.Value == nil:
		return c, apierr.Missing("amount.value")
	case in.Amount.Currency == nil:
		return c, apierr.Missing("amount.currency")
	case *in.Amount.Value < 1 || *in.Amount.Value > money.MaxMinor:
		return c, apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d (minor units of amount.currency)", money.MaxMinor)
	case in.OrderReference == "":
		return c, apierr.Missing("order_reference")
	case chars(in.OrderReference) > transactions.MaxOrderReference:
		return c, apierr.Invalidf("order_reference", "order_reference must have 1 to %d characters", transactions.MaxOrderReference)
	case in.ReturnURL == "":
		return c, apierr.Missing("return_url")
	case in.Capture != "" && !payments.CaptureMode(in.Capture).Valid():
		return c, apierr.Invalidf("capture", "capture must be automatic or manual")
	}
	if in.PaymentTokenID != "" && !wallettokens.ValidID(in.PaymentTokenID) {
		return c, apierr.Invalidf("payment_token_id", "payment_token_id must be %s and 32 hex digits, as the decode routes answer it", wallettokens.TokenIDPrefix)
	}
	if _, err := money.ParseCurrencyField("amount.currency", *in.Amount.Currency); err != nil {
		return c, err
	}
	u, err := url.Parse(in.ReturnURL)
	if err != nil || u.Scheme == "" || (u.Host == "" && u.Opaque == "" && u.Path == "") || chars(in.ReturnURL) > MaxReturnURL {
		return c, apierr.Invalidf("return_url", "return_url must be an absolute URL of at most %d characters", MaxReturnURL)
	}
	if err := in.BrowserInfo.check(); err != nil {
		return c, err
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return c, err
	}
	c.amount, c.currency, c.mode = *in.Amount.Value, *in.Amount.Currency, payments.CaptureMode(in.Capture)
	if c.mode == "" {
		c.mode = payments.CaptureAutomatic
	}
	return c, nil
}

// undecryptable is the one answer to every JWE that cannot be opened: it
// says what to do, never why the decryption failed.
func undecryptable(param string) error {
	return apierr.New(CodeEncryptedCardInvalid, "encrypted_card could not be decrypted: encrypt the card fields with an active key from GET /v1/payments/direct/keys (alg RSA-OAEP-256, enc A256CBC-HS512, version 1, its kid or none), at most 24 hours before the payment").WithParam(param)
}

// source is the card a payment charges, decrypted.
type source struct {
	card   cards.Card
	token  *wallettokens.PaymentToken // a wallet's: used by this payment
	crypto bool                       // the card carries a wallet's cryptogram
}

// open decrypts the payment's card: the merchant's JWE, or the sealed card
// of a wallet token (which must be unused, unexpired and, when the wallet
// named one, for the payment's amount). The one KMS call of a payment is
// made here.
func (s *Service) open(ctx context.Context, accountID string, in *PaymentRequest, c checked) (*source, error) {
	jwe, param := in.EncryptedCard, "encrypted_card"
	var tok *wallettokens.PaymentToken
	if in.PaymentTokenID != "" {
		var err error
		if tok, err = s.tokens.Get(ctx, accountID, in.PaymentTokenID); err != nil {
			return nil, err
		}
		if err := tok.Payable(s.clock(), c.amount, c.currency, "payment_token_id"); err != nil {
			if errors.Is(err, wallettokens.ErrAmountMismatch) {
				return nil, apierr.New(checkout.CodeAmountMismatch, "amount must be the amount the shopper approved in the wallet").WithParam("amount")
			}
			return nil, err
		}
		jwe, param = tok.Sealed, "payment_token_id"
	}
	card, err := s.keys.Open(ctx, jwe)
	switch {
	case errors.Is(err, cse.ErrUndecryptable) && tok != nil:
		// The token was sealed to a key that expired since: it is stale.
		return nil, wallettokens.Expired(param)
	case errors.Is(err, cse.ErrUndecryptable):
		return nil, undecryptable(param)
	case err != nil:
		return nil, apierr.Wrap("direct.open", apierr.Unavailable, err)
	}
	src := &source{card: cards.Card{Number: card.Number, ExpiryMonth: card.ExpiryMonth, ExpiryYear: card.ExpiryYear,
		CVC: card.CVC, HolderName: card.HolderName}, token: tok}
	if tok != nil {
		src.crypto = card.Cryptogram != ""
	}
	// A merchant's payload may not claim a wallet's cryptogram: only the
	// platform's own sealed tokens carry one.
	return src, nil
}

// authorise runs the card through the account's card processor.
func (s *Service) authorise(ctx context.Context, proc cards.Processor, ch cards.Charge, src *source) (cards.Outcome, error) {
	var out cards.Outcome
	var err error
	if src.token != nil {
		out, err = proc.AuthoriseNetworkToken(ctx, ch, src.card, src.crypto)
	} else {
		out, err = proc.AuthoriseCard(ctx, ch, src.card)
	}
	if err != nil {
		// A card error names the field inside the card: encrypted_card.number.
		e := *apierr.As(err)
		if src.token != nil {
			e.Param = "payment_token_id"
		} else if e.Param != "" {
			e.Param = "encrypted_card." + e.Param
		}
		return out, &e
	}
	return out, nil
}

// Pay takes a direct payment (POST /v1/payments/direct): it decrypts the
// card (one KMS Decrypt, deployed), runs it through the sandbox processor
// and records the payment as checkout records its own
// (checkout.Service.ApplyOutcome): authorised (and in automatic capture mode
// captured, in the same write), refused, or waiting for 3-D Secure, which a
// direct payment does through a redirect the merchant hands the shopper
// (next_action). The payment, its history, events, index and ledger
// entries, a wallet token's use and the Idempotency-Key's record are one
// transaction: a retry with the key (or 20 copies at once) is one payment,
// and one wallet token pays once, whatever the keys. A refused payment is a
// definitive answer (201, status rejected). Errors: Invalid (fields, named;
// encrypted_card_invalid with no detail for any JWE that cannot be opened;
// card_error codes naming encrypted_card.<field>; payment_token_expired,
// amount_mismatch), NotFound (payment_token_id unknown, or another
// account's), Conflict (payment_token_used, naming the transaction),
// Forbidden (live keys: no live processor), IdempotencyMismatch,
// Unavailable; a *idempotency.Replayed for a replay.
func (s *Service) Pay(ctx context.Context, in PayInput) (*Payment, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	c, err := in.Request.check()
	if err != nil {
		return nil, err
	}
	src, err := s.open(ctx, in.AccountID, &in.Request, c)
	if err != nil {
		return nil, s.settled(ctx, in, err)
	}
	proc, conn, err := s.checkout.CardsFor(ctx, in.AccountID, !in.TestMode)
	if err != nil {
		return nil, err
	}
	// The payment's id is the processor's reference for it: chosen first.
	id, err := s.checkout.PaymentID(ctx, in.AccountID, !in.TestMode, in.Idem)
	if err != nil {
		return nil, err
	}
	ch := checkout.Charge(&payments.Payment{ID: id, AccountID: in.AccountID, Livemode: !in.TestMode, Amount: c.amount,
		Currency: c.currency, CaptureMode: c.mode, Flow: payments.Flow{ReturnURL: in.Request.ReturnURL}}, in.Idem.Key(), "authorise", "", s.clock().UTC())
	out, err := s.authorise(ctx, proc, ch, src)
	if err != nil {
		return nil, err
	}
	secure3D := false
	if out.Action == nil && (out.Result == cards.IdentifyShopper || out.Result == cards.ChallengeShopper) {
		// A host-to-host payment has no 3DS2 component on the page: the
		// shopper is authenticated by the issuer's page, through a redirect
		// (Adyen's redirect flavour of 3-D Secure 2).
		out.Result, secure3D = cards.RedirectShopper, true
	}
	now := s.clock().UTC()
	method := out.Brand
	if src.token != nil {
		method = string(src.token.Type)
	}
	p := payments.New(payments.Payment{ID: id, AccountID: in.AccountID, Livemode: !in.TestMode, Amount: c.amount,
		Currency: c.currency, PaymentMethod: method, Last4: out.Last4, MerchantReference: in.Request.OrderReference,
		CaptureMode: c.mode, Metadata: in.Request.Metadata,
		Flow: payments.Flow{ReturnURL: in.Request.ReturnURL, Source: "direct", Connector: conn}}, now)
	action, err := s.checkout.ApplyOutcome(p, out, in.RequestID, now)
	if err != nil {
		return nil, err
	}
	p.Secure3D = p.Secure3D || secure3D
	ops, err := s.pays.SaveOps(p)
	if err != nil {
		return nil, err
	}
	tokenOp := -1
	if src.token != nil {
		op, err := src.token.UseOp(p.ID)
		if err != nil {
			return nil, err
		}
		tokenOp = len(ops)
		ops = append(ops, op)
	}
	view := Payment{Transaction: transactions.View(p), NextAction: nextAction(action)}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: transactions.Kind, Value: view}, ops...)
	if err != nil {
		return nil, s.commitFailed(ctx, in, err, tokenOp)
	}
	switch {
	case p.Status.Succeeded():
		metrics.PaymentResult("Authorised")
	case p.Status == payments.Rejected:
		metrics.PaymentResult("Refused")
	}
	return &view, nil
}

// settled is err, unless a concurrent copy of this keyed call won and its
// answer is to be replayed (a token its twin just used).
func (s *Service) settled(ctx context.Context, in PayInput, err error) error {
	if apierr.Is(err, apierr.Conflict) {
		if r := in.Idem.Settled(ctx); r != nil {
			return r
		}
	}
	return err
}

// commitFailed words a failed commit: a twin's replay, a wallet token
// another payment used first, or the store's failure.
func (s *Service) commitFailed(ctx context.Context, in PayInput, err error, tokenOp int) error {
	if idempotency.FromKey(err) {
		return err
	}
	if cf, ok := store.IsConditionFailed(err); ok {
		if r := in.Idem.Settled(ctx); r != nil {
			return r
		}
		if tokenOp >= 0 && cf.Index == tokenOp {
			if t, gerr := s.tokens.Get(ctx, in.AccountID, in.Request.PaymentTokenID); gerr == nil && t.TransactionID != "" {
				return t.Used()
			}
		}
		return apierr.New(payments.CodeChanged, "the payment could not be recorded; retry with the same Idempotency-Key")
	}
	return apierr.Wrap("direct.Pay", apierr.Unavailable, err)
}
