package checkout

import (
	"unicode/utf8"

	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
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
	vault  *vault.Vault // card tokens: checkout's stored payment methods
	cards  cards.Processor
	keys   *auth.Keys // the client keys' origins, for CORS preflights (cors.go)
	// cardKeys opens card fields encrypted in the browser (encrypted.go);
	// nil in the functions that take no card (they refuse encrypted fields).
	cardKeys *cse.Keyring
}

// New builds the service over st, sealing tokens with signer and
// authorising cards with proc.
func New(st store.Store, signer *sessiondata.Signer, proc cards.Processor) *Service {
	return &Service{st: st, pays: payments.NewRepo(st), signer: signer, vault: vault.New(st).WithReferences(proc.Reference),
		cards: proc, keys: auth.NewKeys(st, accounts.NewRepo(st, nil), nil)}
}

// WithCardKeys makes the service open encrypted card fields with keys (the
// keyring direct payments use) and offer its current key to the Drop-in in
// the session's setup. It returns svc.
func (svc *Service) WithCardKeys(keys *cse.Keyring) *Service {
	svc.cardKeys = keys
	return svc
}

// Cards is the card processor the service authorises with, for the areas
// that charge cards beside checkout (direct payments, recurring charges).
func (svc *Service) Cards() cards.Processor { return svc.cards }

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
