package vault

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Writes are the store ops of a vault change, for the caller to commit in
// its own transaction (with a payment, an idempotency record).
type Writes struct {
	CustomerID string     // the customer created or found
	Customer   *Customer  // set when the writes create it
	Token      *CardToken // the token saved or migrated, if any
	Ops        []store.Op
	// Claim is the index in Ops of the external_ref's claim (-1: the writes
	// create no customer with a reference). A transaction that fails there
	// lost the race to create the reference's customer: read it and retry.
	Claim int
}

// Claimed reports whether a failed transaction's op index i, counted from
// the first of w.Ops, is the claim.
func (w *Writes) Claimed(i int) bool { return w != nil && w.Claim >= 0 && i == w.Claim }

// opSet collects ops in order, one per key: a later op on a key replaces
// the earlier one (a store transaction takes one op per key).
type opSet struct {
	ops []store.Op
	at  map[store.Key]int
}

func (s *opSet) add(op store.Op) {
	if s.at == nil {
		s.at = map[store.Key]int{}
	}
	if i, ok := s.at[op.Item.Key]; ok {
		s.ops[i] = op
		return
	}
	s.at[op.Item.Key] = len(s.ops)
	s.ops = append(s.ops, op)
}

func put(k store.Key, v any, cond store.Cond) (store.Op, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return store.Op{}, apierr.Wrap("vault.put", apierr.Internal, err)
	}
	return store.Put(store.Item{Key: k, Data: b}, cond), nil
}

// tokenOps are the unconditional puts of a token and its customer's copy:
// saving one card twice, even at once, writes the same two items.
func tokenOps(s *opSet, t *CardToken) error {
	rec, err := put(TokenKey(t.AccountID, t.ID), t, store.Always)
	if err != nil {
		return err
	}
	s.add(rec)
	cp := rec
	cp.Item.Key = store.Key{Table: store.TablePayments, PK: CustomerTokensPK(t.AccountID, t.CustomerID), SK: t.ID}
	s.add(cp)
	return nil
}

// NewCustomer is what a customer is created with.
type NewCustomer struct {
	AccountID   string
	Livemode    bool
	ExternalRef string // unique per account; "" for none
	Email       string
	Name        string
	Description string
	Metadata    map[string]string
}

// Create is the writes that create a customer: the external_ref's claim
// first (put-if-absent), the record (put-if-absent), its e-mail index entry,
// and the migration of the reference's legacy stored cards (up to
// MaxLegacyMigrated become tokens with their ids and are deleted), read
// here. Errors: Unavailable, Internal.
func (v *Vault) Create(ctx context.Context, nc NewCustomer, now time.Time) (*Writes, error) {
	set, w, err := v.create(ctx, nc, now)
	if err != nil {
		return nil, err
	}
	w.Ops = set.ops
	return w, nil
}

func (v *Vault) create(ctx context.Context, nc NewCustomer, now time.Time) (*opSet, *Writes, error) {
	now = now.UTC()
	md := nc.Metadata
	if md == nil {
		md = map[string]string{}
	}
	c := &Customer{ID: ids.New(), AccountID: nc.AccountID, Livemode: nc.Livemode, ExternalRef: nc.ExternalRef,
		Email: nc.Email, Name: nc.Name, Description: nc.Description, Metadata: md, CreatedAt: now}
	w := &Writes{CustomerID: c.ID, Customer: c, Claim: -1}
	set := &opSet{}
	if c.ExternalRef != "" {
		claim, err := put(RefKey(c.AccountID, c.ExternalRef), refClaim{CustomerID: c.ID}, store.IfAbsent)
		if err != nil {
			return nil, nil, err
		}
		w.Claim = len(set.ops)
		set.add(claim)
	}
	rec, err := put(CustomerKey(c.AccountID, c.ID), c, store.IfAbsent)
	if err != nil {
		return nil, nil, err
	}
	set.add(rec)
	if c.Email != "" {
		set.add(store.Put(store.Item{Key: store.Key{Table: store.TablePayments, PK: EmailPK(c.AccountID, c.Email), SK: c.ID}, Data: []byte("{}")}, store.Always))
	}
	if c.ExternalRef == "" {
		return set, w, nil
	}
	legacy, err := v.legacyCards(ctx, c.AccountID, c.ExternalRef, MaxLegacyMigrated)
	if err != nil {
		return nil, nil, err
	}
	for _, l := range legacy {
		t := l.token(c.AccountID, c.ID, c.ExternalRef, now, v.reference)
		t.Livemode = c.Livemode
		if err := tokenOps(set, t); err != nil {
			return nil, nil, err
		}
		set.add(store.Delete(legacyKey(c.AccountID, c.ExternalRef, l.ID), store.Always))
	}
	return set, w, nil
}

// customerFor finds the customer of ref, or starts the writes that create
// it (with email, from the payment's shopperEmail).
func (v *Vault) customerFor(ctx context.Context, accountID, ref, email string, live bool, now time.Time) (*opSet, *Writes, error) {
	id, err := v.CustomerID(ctx, accountID, ref)
	switch {
	case apierr.Is(err, apierr.NotFound):
		return v.create(ctx, NewCustomer{AccountID: accountID, Livemode: live, ExternalRef: ref, Email: email}, now)
	case err != nil:
		return nil, nil, err
	}
	return &opSet{}, &Writes{CustomerID: id, Claim: -1}, nil
}

// SaveCard is a card to save for a shopper, with the payment saving it.
type SaveCard struct {
	AccountID  string
	Livemode   bool
	ShopperRef string // the customer's external_ref
	Email      string // the customer's e-mail when this save creates it ("" for none)
	TokenID    string // the card's id: the same for the same card of the same shopper
	Card       cards.SavedCard
	PaymentID  string
}

// Save is the writes that save a card: the token and its customer's copy
// (unconditional puts), after the writes that create the shopper's customer
// when it has none (Create). A card saved again keeps its token's id,
// created_at and first transaction, and becomes the default (UpdatedAt).
// Reads: the reference's claim, the token, and (creating) the legacy cards.
// Errors: Unavailable, Internal.
func (v *Vault) Save(ctx context.Context, s SaveCard, now time.Time) (*Writes, error) {
	now = now.UTC()
	set, w, err := v.customerFor(ctx, s.AccountID, s.ShopperRef, s.Email, s.Livemode, now)
	if err != nil {
		return nil, err
	}
	c := s.Card
	t := &CardToken{ID: s.TokenID, AccountID: s.AccountID, CustomerID: w.CustomerID, ShopperReference: s.ShopperRef,
		Livemode: s.Livemode, Brand: c.Brand, Last4: c.Last4, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear,
		HolderName: c.HolderName, Profile: c.Profile, FirstTransactionID: s.PaymentID, CreatedAt: now, UpdatedAt: now}
	old, err := v.Token(ctx, s.AccountID, s.TokenID)
	switch {
	case err == nil && old.CustomerID == w.CustomerID:
		t.CreatedAt, t.FirstTransactionID = old.CreatedAt, old.FirstTransactionID
	case err != nil && !apierr.Is(err, apierr.NotFound):
		return nil, err
	}
	if err := tokenOps(set, t); err != nil {
		return nil, err
	}
	w.Token, w.Ops = t, set.ops
	return w, nil
}

// Migrate is the writes that turn legacy card t (LegacyToken) into a card
// token of its shopper's customer, created when the shopper has none (then
// the shopper's other legacy cards migrate too), and delete the legacy
// record: for the payment that pays with it. Errors: Unavailable, Internal.
func (v *Vault) Migrate(ctx context.Context, t *CardToken, live bool, now time.Time) (*Writes, error) {
	now = now.UTC()
	set, w, err := v.customerFor(ctx, t.AccountID, t.ShopperReference, "", live, now)
	if err != nil {
		return nil, err
	}
	m := *t
	m.CustomerID, m.Livemode, m.CreatedAt, m.UpdatedAt = w.CustomerID, live, now, now
	if err := tokenOps(set, &m); err != nil {
		return nil, err
	}
	set.add(store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.Always))
	w.Token, w.Ops = &m, set.ops
	return w, nil
}

// DeleteOps remove token t: its record (which must still be there, so of
// two deletes one succeeds and the other finds nothing), its customer's
// copy, and any legacy stored card of the same id, so no earlier form of the
// card pays again.
func DeleteOps(t *CardToken) []store.Op {
	return []store.Op{
		store.Delete(TokenKey(t.AccountID, t.ID), store.IfExists),
		store.Delete(store.Key{Table: store.TablePayments, PK: CustomerTokensPK(t.AccountID, t.CustomerID), SK: t.ID}, store.Always),
		store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.Always),
	}
}

// DeleteLegacyOps deletes a legacy stored card (LegacyToken's: a shopper
// with no customer yet), conditioned on its being there.
func DeleteLegacyOps(t *CardToken) []store.Op {
	return []store.Op{store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.IfExists)}
}
