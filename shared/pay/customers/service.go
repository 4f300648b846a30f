package customers

import (
	"context"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store store.Store
	// Checkout moves a recurring payment by the processor's answer as
	// checkout moves its own (and seals the action of one that waits for
	// the shopper, which checkout's /v2/payments/details completes).
	Checkout *checkout.Service
	// Ledger is how captures post to the merchant's books (settlement
	// delay, fee), as on every other capture path.
	Ledger ledger.Policy
	// Processor is the card processor its customers' transactions' captures,
	// cancels and refunds reach (required; the wiring chooses it).
	Processor cards.Processor
	Clock     func() time.Time // nil: time.Now
	Log       *slog.Logger     // nil: discard
}

// Service serves customers, card tokens and recurring payments.
type Service struct {
	st       store.Store
	vault    *vault.Vault
	pays     *payments.Repo
	txs      *transactions.Service
	checkout *checkout.Service
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
	return &Service{st: c.Store, vault: vault.New(c.Store), pays: payments.NewRepo(c.Store).WithPolicy(c.Ledger),
		txs: transactions.New(transactions.Config{Store: c.Store, Clock: c.Clock, Log: c.Log, Ledger: c.Ledger, Processor: c.Processor}), checkout: c.Checkout,
		clock: c.Clock, log: c.Log}
}

// CreateInput creates a customer.
type CreateInput struct {
	AccountID   string
	Livemode    bool
	ExternalRef string // optional; unique per account: checkout's shopperReference
	Email       string
	Name        string
	Description string
	Metadata    map[string]string
	Idem        *idempotency.Call // required: IdemInline
}

// Limits of the customer fields (the OpenAPI fragment repeats them).
const (
	MinExternalRef = 3   // checkout's shopperReference minimum
	MaxExternalRef = 256 // and maximum
	MaxName        = 256
	MaxDescription = 500
)

// Create creates a customer in one transaction with its Idempotency-Key
// record: the external_ref's claim, the record, its e-mail index entry, and
// the migration of the reference's legacy stored cards into card tokens.
// Errors: Invalid (a field, named), Conflict external_ref_in_use (another
// customer has the reference: the message names it), IdempotencyMismatch,
// Unavailable; a *idempotency.Replayed for a replay.
func (s *Service) Create(ctx context.Context, in CreateInput) (*Customer, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	if err := firstErr(checkExternalRef("external_ref", in.ExternalRef, true), checkOptionalEmail("email", in.Email),
		checkLen("name", in.Name, MaxName), checkLen("description", in.Description, MaxDescription), metadata.Check(in.Metadata)); err != nil {
		return nil, err
	}
	w, err := s.vault.Create(ctx, vault.NewCustomer{AccountID: in.AccountID, Livemode: in.Livemode, ExternalRef: in.ExternalRef,
		Email: in.Email, Name: in.Name, Description: in.Description, Metadata: in.Metadata}, s.clock())
	if err != nil {
		return nil, err
	}
	view := customerView(w.Customer)
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindCustomer, Value: view}, w.Ops...)
	switch cf, failed := store.IsConditionFailed(err); {
	case err == nil:
		return &view, nil
	case idempotency.FromKey(err):
		return nil, err
	case failed && w.Claimed(cf.Index):
		owner, _ := s.vault.CustomerID(ctx, in.AccountID, in.ExternalRef)
		return nil, apierr.New(apierr.CodeExternalRefInUse, "external_ref %s belongs to customer %s; read it with GET /v1/customers/%s", quote(in.ExternalRef), owner, owner)
	}
	return nil, apierr.Wrap("customers.Create", apierr.Unavailable, err)
}

// Get reads one of the account's customers. Errors: NotFound (missing, or
// another account's), Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Customer, error) {
	c, err := s.vault.Customer(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := customerView(c)
	return &v, nil
}

// Filter narrows the customer list; zero values do not filter.
type Filter struct {
	Email       string
	ExternalRef string
	From, To    time.Time // created range, inclusive
}

func (f Filter) match(c *vault.Customer) bool {
	return (f.Email == "" || equalFold(c.Email, f.Email)) && (f.ExternalRef == "" || c.ExternalRef == f.ExternalRef) &&
		(f.From.IsZero() || !c.CreatedAt.Before(f.From)) && (f.To.IsZero() || !c.CreatedAt.After(f.To))
}

// List returns the account's customers newest first. Each filter is served
// from its own partition, never a scan: external_ref reads the reference's
// claim (at most one customer); email queries the e-mail index (then a
// GetItem per customer); otherwise the account's customers partition, the
// created range as a key range. Errors: Invalid (cursor), Unavailable,
// Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Customer, string, error) {
	if f.ExternalRef != "" {
		out := []Customer{}
		if p.Cursor != "" {
			return out, "", nil // past the one customer a reference has
		}
		id, err := s.vault.CustomerID(ctx, accountID, f.ExternalRef)
		if apierr.Is(err, apierr.NotFound) {
			return out, "", nil
		}
		if err != nil {
			return nil, "", err
		}
		c, err := s.vault.Customer(ctx, accountID, id)
		if err != nil && !apierr.Is(err, apierr.NotFound) {
			return nil, "", err
		}
		if err == nil && f.match(c) {
			out = append(out, customerView(c))
		}
		return out, "", nil
	}
	if f.Email != "" {
		q := store.Query{Table: store.TablePayments, PK: vault.EmailPK(accountID, f.Email), Desc: true, Cursor: p.Cursor, Limit: p.Limit + 1}
		return listing.Collect(ctx, s.st, q, p.Limit, emailBudget, func(it store.Item) (Customer, bool, error) {
			c, err := s.vault.Customer(ctx, accountID, it.SK)
			if apierr.Is(err, apierr.NotFound) {
				return Customer{}, false, nil
			}
			if err != nil {
				return Customer{}, false, err
			}
			return customerView(c), f.match(c), nil
		})
	}
	q := store.Query{Table: store.TablePayments, PK: vault.CustomersPK(accountID), Desc: true, Cursor: p.Cursor, Limit: p.Limit + 1}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Customer, bool, error) {
		c, err := vault.DecodeCustomer(it)
		if err != nil {
			return Customer{}, false, err
		}
		return customerView(c), f.match(c), nil
	})
}

// emailBudget bounds the index entries an e-mail filter reads per call
// (each costs a GetItem).
const emailBudget = 200

// Tokens lists a customer's card tokens in id order. Errors: NotFound (the
// customer), Invalid (cursor), Unavailable, Internal.
func (s *Service) Tokens(ctx context.Context, accountID, customerID string, p listing.Params) ([]CardToken, string, error) {
	if _, err := s.vault.Customer(ctx, accountID, customerID); err != nil {
		return nil, "", err
	}
	q := store.Query{Table: store.TablePayments, PK: vault.CustomerTokensPK(accountID, customerID), Cursor: p.Cursor, Limit: p.Limit + 1}
	return listing.Collect(ctx, s.st, q, p.Limit, p.Limit+1, func(it store.Item) (CardToken, bool, error) {
		t, err := vault.DecodeToken(it)
		if err != nil {
			return CardToken{}, false, err
		}
		return tokenView(t), true, nil
	})
}

// DeleteToken deletes a customer's card token: it no longer pays, neither
// in recurring payments nor as checkout's storedPaymentMethodId. Payments
// made with it keep its id. Errors: NotFound (the token, or a token of
// another customer or account, or one deleted already), Unavailable.
func (s *Service) DeleteToken(ctx context.Context, accountID, customerID, tokenID string) (*Deleted, error) {
	t, err := s.vault.Token(ctx, accountID, tokenID)
	if err == nil && t.CustomerID != customerID {
		err = apierr.NotFoundf("no such card token: %s", tokenID)
	}
	if err != nil {
		return nil, err
	}
	err = s.st.Write(ctx, vault.DeleteOps(t)...)
	if _, ok := store.IsConditionFailed(err); ok {
		return nil, apierr.NotFoundf("no such card token: %s", tokenID) // deleted meanwhile
	}
	if err != nil {
		return nil, apierr.Wrap("customers.DeleteToken", apierr.Unavailable, err)
	}
	return &Deleted{ID: tokenID, Deleted: true}, nil
}

// Transactions lists a customer's transactions (its payments and their
// refunds), newest first. Errors: NotFound (the customer), as
// transactions.Service.List.
func (s *Service) Transactions(ctx context.Context, accountID, customerID string, p listing.Params) ([]transactions.Transaction, string, error) {
	if _, err := s.vault.Customer(ctx, accountID, customerID); err != nil {
		return nil, "", err
	}
	return s.txs.ByCustomer(ctx, accountID, customerID, transactions.Filter{}, p)
}

// firstErr is the first of errs that is not nil.
func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
