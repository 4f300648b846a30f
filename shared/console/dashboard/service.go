package dashboard

import (
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// Config is what the dashboard is built from: the platform's store and
// services, and the areas' services it shows (the same ones their API
// functions serve; never the HTTP API over the network).
type Config struct {
	Store    store.Store
	Accounts *accounts.Repo
	Keys     *auth.Keys
	Idem     *idempotency.Store
	Clock    func() time.Time // nil: time.Now
	Log      *slog.Logger     // nil: discard

	Payments *transactions.Service
	Links    *links.Service
	Webhooks *webhooks.Service
	Balance  *balance.Service
	Orders   *orders.Service
	Gate     *prepaid.Ledger
	Wallet   *wallet.Service

	// Beneficiaries, Invoices and Disputes are the money groups' services
	// (payouts are Balance's).
	Beneficiaries *beneficiaries.Service
	Invoices      *invoices.Service
	Disputes      *disputes.Service

	// LinksBaseURL is the base of new links' urls (links.PublicURLEnv);
	// "" takes the address each request came to.
	LinksBaseURL string

	// Argon is the password hash cost (zero: DefaultArgon); tests lower it.
	Argon ArgonParams

	// Secrets seals the users' TOTP secrets (app.Deps.Secrets; nil: the
	// process's in-memory key, for tests and tools).
	Secrets secretbox.Box
}

// Service is the dashboard: its users, sessions and audit log, and the
// pages over the areas' services.
type Service struct {
	st       store.Store
	accounts *accounts.Repo
	keys     *auth.Keys
	idem     *idempotency.Store
	clock    func() time.Time
	log      *slog.Logger
	argon    ArgonParams
	box      secretbox.Box

	payments *transactions.Service
	links    *links.Service
	webhooks *webhooks.Service
	balance  *balance.Service
	orders   *orders.Service
	gate     *prepaid.Ledger
	wallet   *wallet.Service

	beneficiaries *beneficiaries.Service
	invoices      *invoices.Service
	disputes      *disputes.Service

	linksBase string

	// auditID draws audit entry ids (ids.New; a test fixes it to make the
	// entry's write fail).
	auditID func() string
}

// New builds the dashboard.
func New(c Config) *Service {
	s := &Service{st: c.Store, accounts: c.Accounts, keys: c.Keys, idem: c.Idem, clock: c.Clock, log: c.Log, argon: c.Argon,
		payments: c.Payments, links: c.Links, webhooks: c.Webhooks, balance: c.Balance, orders: c.Orders, gate: c.Gate, wallet: c.Wallet, linksBase: c.LinksBaseURL}
	s.beneficiaries, s.invoices, s.disputes = c.Beneficiaries, c.Invoices, c.Disputes
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.box = c.Secrets; s.box == nil {
		s.box = secretbox.New(filekeys.Memory(), s.clock)
	}
	s.auditID = ids.New
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.argon == (ArgonParams{}) {
		s.argon = DefaultArgon
	}
	if s.accounts == nil {
		s.accounts = accounts.NewRepo(c.Store, s.clock)
	}
	if s.keys == nil {
		s.keys = auth.NewKeys(c.Store, s.accounts, s.clock)
	}
	if s.idem == nil {
		s.idem = idempotency.New(c.Store, s.clock)
	}
	return s
}

// WithArgon sets the password hash cost of new hashes (tests lower it).
func (s *Service) WithArgon(p ArgonParams) *Service {
	s.argon = p
	return s
}
