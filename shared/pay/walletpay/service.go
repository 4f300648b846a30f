package walletpay

import (
	"context"
	"crypto/ecdh"
	"crypto/x509"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Live is the live mode's wallet configuration: the platform's Apple Pay
// merchant identity (for sessions) and payment processing keys, its Google
// Pay recipient keys and merchant id. It comes from the secret store.
type Live struct {
	AppleIdentity       *applepay.Identity
	AppleGateway        *applepay.Gateway
	AppleKeys           []applepay.ProcessingKey
	GoogleRecipientKeys []*ecdh.PrivateKey
	GoogleMerchantID    string
}

// LiveSource reads the live configuration; nil means there is none (live
// keys get a 403 from every wallet route).
type LiveSource func(context.Context) (*Live, error)

// Config builds a Service.
type Config struct {
	Store store.Store
	// Tokens keeps decoded cards as payment tokens, sealed to the direct
	// payment keys (a sealer: this function decrypts nothing it stores).
	Tokens *wallettokens.Tokens
	Live   LiveSource
	// Test stands in for the wallets behind test keys (required: the
	// wiring chooses it).
	Test TestWallets
	// GoogleRoots are Google's production root signing keys (fetched);
	// nil: googlepay.RootKeys from Google's URL.
	GoogleRoots func(context.Context) ([]googlepay.RootKey, error)
	Clock       func() time.Time
	Log         *slog.Logger
}

// Service serves Apple Pay and Google Pay sessions and decodes.
type Service struct {
	st          store.Store
	tokens      *wallettokens.Tokens
	live        LiveSource
	test        TestWallets
	googleRoots func(context.Context) ([]googlepay.RootKey, error)
	clock       func() time.Time
	log         *slog.Logger

	rootsOnce  sync.Once
	appleRoots *x509.CertPool
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Test == nil {
		panic("walletpay: Config.Test is required")
	}
	if c.GoogleRoots == nil {
		c.GoogleRoots = (&googlepay.RootKeys{}).Get
	}
	return &Service{st: c.Store, tokens: c.Tokens, live: c.Live, test: c.Test, googleRoots: c.GoogleRoots, clock: c.Clock, log: c.Log}
}

func (s *Service) init() {
	s.rootsOnce.Do(func() {
		var err error
		if s.appleRoots, err = applepay.Roots(applepay.RootG3); err != nil {
			panic(err) // embedded
		}
	})
}

// liveConfig is the live configuration, or the 403 of a platform without
// one.
func (s *Service) liveConfig(ctx context.Context) (*Live, error) {
	if s.live == nil {
		return nil, connectors.Unavailable()
	}
	l, err := s.live(ctx)
	if errors.Is(err, ErrLiveNotConfigured) {
		return nil, connectors.Unavailable()
	}
	if err != nil {
		return nil, apierr.Wrap("walletpay.live", apierr.Unavailable, err)
	}
	return l, nil
}

// Caller is who calls, without HTTP.
type Caller struct {
	AccountID string
	TestMode  bool
}
