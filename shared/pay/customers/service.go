package customers

import (
	"context"
	"log/slog"
	"maps"
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

// UpdateInput changes a customer: a nil field (metadata absent) stays as it
// is.
type UpdateInput struct {
	AccountID   string
	ID          string
	Email       *string // "" removes it
	Name        *string // "" removes it
	Description *string // "" removes it
	// Metadata merges into the customer's (metadata.Merge, Stripe's rule):
	// each key sets its value, a key set to "" is removed, others stay.
	Metadata map[string]string
	// DefaultCardTokenID names one of the customer's card tokens as the one
	// a charge of the customer uses; "" clears the choice (the computed
	// default again: vault.Default).
	DefaultCardTokenID *string
	Idem               *idempotency.Call // optional: IdemInlineOptional
}

// defaultParam is the field naming a customer's default card token.
const defaultParam = "default_card_token_id"

func (in *UpdateInput) check() error {
	errs := []error{metadata.Check(in.Metadata)}
	if in.Email != nil {
		errs = append(errs, checkOptionalEmail("email", *in.Email))
	}
	if in.Name != nil {
		errs = append(errs, checkLen("name", *in.Name, MaxName))
	}
	if in.Description != nil {
		errs = append(errs, checkLen("description", *in.Description, MaxDescription))
	}
	if in.DefaultCardTokenID != nil && *in.DefaultCardTokenID != "" {
		errs = append(errs, checkTokenID(defaultParam, *in.DefaultCardTokenID))
	}
	return firstErr(errs...)
}

// apply is c with in's change: a copy, c untouched. Errors: Invalid
// metadata (more than metadata.MaxKeys keys after the merge).
func (in *UpdateInput) apply(c *vault.Customer) (*vault.Customer, error) {
	next := *c
	if in.Email != nil {
		next.Email = *in.Email
	}
	if in.Name != nil {
		next.Name = *in.Name
	}
	if in.Description != nil {
		next.Description = *in.Description
	}
	if in.Metadata != nil {
		md, err := metadata.Merge(c.Metadata, in.Metadata)
		if err != nil {
			return nil, err
		}
		next.Metadata = md
	}
	if in.DefaultCardTokenID != nil {
		next.DefaultCardTokenID = *in.DefaultCardTokenID
	}
	return &next, nil
}

// changed reports whether next differs from c in anything an update sets.
func changed(c, next *vault.Customer) bool {
	return c.Email != next.Email || c.Name != next.Name || c.Description != next.Description ||
		c.DefaultCardTokenID != next.DefaultCardTokenID || !maps.Equal(c.Metadata, next.Metadata)
}

// checkDefault checks that id may become customer c's default card token:
// one of c's tokens (another customer's or account's, a deleted one or an
// unknown id is card_token_unknown, one answer for all), whose card has not
// expired (expired_card). Both name default_card_token_id.
func (s *Service) checkDefault(ctx context.Context, c *vault.Customer, id string) error {
	t, err := s.vault.Token(ctx, c.AccountID, id)
	switch {
	case apierr.Is(err, apierr.NotFound) || err == nil && t.CustomerID != c.ID:
		return apierr.New(CodeCardTokenUnknown, "customer %s has no card token %s; GET /v1/customers/%s/card-tokens lists its tokens", c.ID, id, c.ID)
	case err != nil:
		return err
	case t.Expired(s.clock()):
		return apierr.New(cards.CodeExpiredCard, "card token %s's card expired (%s/%s): it cannot be the default", id, t.ExpiryMonth, t.ExpiryYear).WithParam(defaultParam)
	}
	return nil
}

// Update changes a customer (POST /v1/customers/{id}): its e-mail, name,
// description, metadata (merged: a key set to "" is removed) and default
// card token. The change is decided against the customer as read and
// written conditioned on that version with customer.updated, in one
// transaction with the Idempotency-Key's record when one is sent
// (vault.UpdateOps); a concurrent change makes it read again and apply its
// change to the winner's (store.Race), so of any number of concurrent
// updates none is lost. An update that changes nothing writes nothing (no
// event) and answers the customer as it is. The answer is the customer as
// GET shows it. Reads: the customer, and a newly chosen default token.
// Errors: Invalid (a field, named; card_token_unknown and expired_card
// naming default_card_token_id; metadata with more than 50 keys after the
// merge), NotFound (the customer: missing, or another account's), Conflict
// resource_busy (it kept changing: retry with the same Idempotency-Key),
// IdempotencyMismatch, Unavailable, Internal; a *idempotency.Replayed for a
// replay.
func (s *Service) Update(ctx context.Context, in UpdateInput) (*Customer, error) {
	if err := in.check(); err != nil {
		return nil, err
	}
	race := store.Race{Op: "customers.Update", What: "customer " + in.ID}
	var view Customer
	err := race.Run(ctx, func(int) error {
		c, err := s.vault.Customer(ctx, in.AccountID, in.ID)
		if err != nil {
			return err
		}
		next, err := in.apply(c)
		if err == nil && next.DefaultCardTokenID != "" && next.DefaultCardTokenID != c.DefaultCardTokenID {
			err = s.checkDefault(ctx, c, next.DefaultCardTokenID)
		}
		if err != nil {
			// A duplicate of a call that just won (same key) replays the
			// winner's answer rather than failing against its state.
			if settled := in.Idem.Settled(ctx); settled != nil {
				return settled
			}
			return err
		}
		var ops []store.Op
		if changed(c, next) {
			if ops, err = vault.UpdateOps(c, next, s.clock()); err != nil {
				return err
			}
		}
		view = customerView(next)
		err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: KindCustomer, Value: view}, ops...)
		if idempotency.FromKey(err) {
			return err
		}
		return race.Settle(err, vault.UpdateCustomerOp, vault.UpdateTokenOp)
	})
	if err != nil {
		return nil, err
	}
	return &view, nil
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
// made with it keep its id. One transaction (vault.DeleteOps): the token
// (which must still be there), the customer at the version read (rewritten
// without default_card_token_id when it named the token, with
// customer.updated; else only checked, so a concurrent update cannot make
// the token the default once it is gone), and card_token.deleted. A lost
// race on the customer reads again (store.Race). Reads: the token and the
// customer. Errors: NotFound (the token, or a token of another customer or
// account, or one deleted already), Conflict resource_busy, Unavailable,
// Internal.
func (s *Service) DeleteToken(ctx context.Context, accountID, customerID, tokenID string) (*Deleted, error) {
	race := store.Race{Op: "customers.DeleteToken", What: "customer " + customerID}
	err := race.Run(ctx, func(int) error {
		t, err := s.vault.Token(ctx, accountID, tokenID)
		if err == nil && t.CustomerID != customerID {
			err = apierr.NotFoundf("no such card token: %s", tokenID)
		}
		if err != nil {
			return err
		}
		c, err := s.vault.Customer(ctx, accountID, customerID)
		if err != nil {
			return err
		}
		ops, err := vault.DeleteOps(t, c, s.clock())
		if err != nil {
			return err
		}
		err = s.st.Write(ctx, ops...)
		if cf, ok := store.IsConditionFailed(err); ok && cf.Index == vault.DeleteTokenOp {
			return apierr.NotFoundf("no such card token: %s", tokenID) // deleted meanwhile
		}
		return race.Settle(err, vault.DeleteCustomerOp)
	})
	if err != nil {
		return nil, err
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
