package checkout

import (
	"context"
	"unicode/utf8"

	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout/sessiondata"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// Service holds what every checkout route needs.
type Service struct {
	st     store.Store
	pays   *payments.Repo
	signer *sessiondata.Signer
	vault  *vault.Vault     // card tokens: checkout's stored payment methods
	cards  cards.Processor  // the sandbox's: its 3-D Secure screens
	router connectors.Cards // who authorises each payment (processorFor)
	keys   *auth.Keys       // the client keys' origins, for CORS preflights (cors.go)
	// cardKeys opens card fields encrypted in the browser (encrypted.go);
	// nil in the functions that take no card (they refuse encrypted fields).
	cardKeys *cse.Keyring
}

// New builds the service over st, sealing tokens with signer and
// authorising cards with proc.
func New(st store.Store, signer *sessiondata.Signer, proc cards.Processor) *Service {
	return &Service{st: st, pays: payments.NewRepo(st), signer: signer, vault: vault.New(st).WithReferences(proc.Reference),
		cards: proc, router: connectors.Cards{Default: proc}, keys: auth.NewKeys(st, accounts.NewRepo(st, nil), nil)}
}

// WithConnectors makes the payments of an account with a card connector
// configured for their mode go through it (connectors.Cards). It returns
// svc.
func (svc *Service) WithConnectors(dir connectors.Directory) *Service {
	svc.router.Directory = dir
	return svc
}

// WithCardKeys makes the service open encrypted card fields with keys (the
// keyring direct payments use) and offer its current key to the Drop-in in
// the session's setup. It returns svc.
func (svc *Service) WithCardKeys(keys *cse.Keyring) *Service {
	svc.cardKeys = keys
	return svc
}

// CardsFor is the card processor of a new payment of account in mode
// livemode, and the id of its connector ("" the sandbox), which the payment
// keeps (payments.Flow.Connector): for the areas that charge cards beside
// checkout (direct payments, recurring charges). A live key without a
// connector is the one live_mode_unavailable.
func (svc *Service) CardsFor(ctx context.Context, account string, livemode bool) (cards.Processor, string, error) {
	return svc.router.For(ctx, account, livemode)
}

// PaymentID is the id of a new card payment of account. Where a connector
// serves it, a keyed call reserves it under its key (idempotency
// Call.Reserve): the id is the processor's reference for the payment, so
// every retry of the key (after an answer that was lost) sends the
// processor the same request, which its own idempotency then answers once.
func (svc *Service) PaymentID(ctx context.Context, account string, livemode bool, idem *idempotency.Call) (string, error) {
	if !idem.Keyed() {
		return ids.New(), nil
	}
	if _, conn, err := svc.router.For(ctx, account, livemode); err != nil || conn == "" {
		return ids.New(), nil // the sandbox, or a refusal the payment meets later
	}
	return idem.Reserve(ctx, "payment", ids.New)
}

// CardsOf is the card processor that authorised p.
func (svc *Service) CardsOf(ctx context.Context, p *payments.Payment) (cards.Processor, error) {
	return svc.router.Of(ctx, p.AccountID, p.Flow.Connector)
}

// Charge is what the processor hears of payment p, for operation op (an
// authorisation, a step), keyed by our own operation's key (the merchant's
// Idempotency-Key in idemKey, else the payment's id).
func Charge(p *payments.Payment, idemKey, op, shopperRef string, now time.Time) cards.Charge {
	key := idemKey
	if key == "" {
		key = p.ID
	}
	return cards.Charge{Account: p.AccountID, Livemode: p.Livemode, Key: cards.OperationKey(p.AccountID, key, op),
		Reference: p.ID, Amount: p.Amount, Currency: p.Currency, ReturnURL: p.Flow.ReturnURL,
		ShopperReference: shopperRef, ManualCapture: p.CaptureMode == payments.CaptureManual, Now: now}
}

// Caller is who calls a checkout operation and how, typed and without HTTP:
// the handlers build it from the request, and a queue consumer, a scheduled
// job or the admin CLI can build it alike.
type Caller struct {
	AccountID       string
	MerchantAccount string // the key's merchant account
	TestMode        bool   // a test key: sandbox data and processor
	Now             time.Time
	// Idem is the keyed call (httpapi.Request.Idem) whose record joins the
	// operation's transaction; nil without an Idempotency-Key.
	Idem *idempotency.Call
	Log  *slog.Logger // nil: discard
	// Link is the payment link the caller pays (its hosted page), read for
	// this request: a payment link's session takes payments only with it
	// (links.go).
	Link LinkHold
}

// invalid is a 400 of code naming param.
func invalid(param string, code apierr.Code, format string, args ...any) *apierr.Error {
	return apierr.New(code, format, args...).WithParam(param)
}

// chars is a string's length in characters, as the document's maxLength and
// minLength count it (JSON Schema), not in bytes.
func chars(s string) int { return utf8.RuneCountInString(s) }
