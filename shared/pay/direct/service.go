package direct

import (
	"context"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store store.Store
	// Checkout moves a payment by the sandbox processor's answer as checkout
	// moves its own, and seals the action of one that waits for 3-D Secure
	// (which checkout's POST /v2/payments/details completes).
	Checkout *checkout.Service
	Keys     *cse.Keyring
	Ledger   ledger.Policy    // how captures post (settlement delay, fee)
	Clock    func() time.Time // nil: time.Now
	Log      *slog.Logger     // nil: discard
}

// Service serves the direct payment keys and direct payments.
type Service struct {
	st       store.Store
	pays     *payments.Repo
	checkout *checkout.Service
	keys     *cse.Keyring
	tokens   *wallettokens.Tokens
	clock    func() time.Time
	log      *slog.Logger
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{st: c.Store, pays: payments.NewRepo(c.Store).WithPolicy(c.Ledger), checkout: c.Checkout, keys: c.Keys,
		tokens: wallettokens.NewTokens(c.Store, c.Keys), clock: c.Clock, log: c.Log}
}

// PublicKey is one key of GET /v1/payments/direct/keys: what a merchant
// encrypts card fields with.
type PublicKey struct {
	KID      string         `json:"kid"`
	Alg      string         `json:"alg"`
	Enc      string         `json:"enc"`
	Version  string         `json:"version"`
	JWK      map[string]any `json:"jwk"`
	AdyenKey string         `json:"adyen_key"` // "Exponent|Modulus", Adyen's form
	// ExpiresAt is when a key replaced by a rotation stops decrypting;
	// null for the current key (the first one listed).
	ExpiresAt *time.Time `json:"expires_at"`
	CreatedAt time.Time  `json:"created_at"`
}

// KindKey is the resource kind of a public key (no dated changes).
const KindKey = "direct_payment_key"

// Keys lists the active public keys, the current one (to encrypt with)
// first. Every account sees the platform's keys: the private halves are the
// platform's, in KMS. Errors: Unavailable.
func (s *Service) Keys(ctx context.Context) ([]PublicKey, error) {
	keys, err := s.keys.Active(ctx)
	if err != nil {
		return nil, apierr.Wrap("direct.Keys", apierr.Unavailable, err)
	}
	out := make([]PublicKey, 0, len(keys))
	for _, k := range keys {
		jwk, err := k.JWKMap()
		if err != nil {
			return nil, apierr.Wrap("direct.Keys", apierr.Internal, err)
		}
		out = append(out, PublicKey{KID: k.KID, Alg: cse.Alg, Enc: cse.Enc, Version: cse.Version, JWK: jwk,
			AdyenKey: k.AdyenKey(), ExpiresAt: k.ExpiresAt, CreatedAt: k.CreatedAt})
	}
	return out, nil
}
