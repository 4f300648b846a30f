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
// its own transaction (with a payment, an idempotency record), events
// included: customer.created with a customer they create, card_token.created
// with each token they create.
type Writes struct {
	CustomerID string     // the customer created or found
	Customer   *Customer  // set when the writes create it
	Token      *CardToken // the token saved or migrated, if any
	Ops        []store.Op
	// Claim is the index in Ops of the external_ref's claim (-1: the writes
	// create no customer with a reference). A transaction that fails there
	// lost the race to create the reference's customer: read it and retry.
	Claim int

	// tokenPut: the writes put Token's record, conditioned on what was read:
	// IfExists when it was there (tokenSeen; a card saved again), IfAbsent
	// when it was not (a new token, with its card_token.created). Lost tells
	// a transaction that failed on it.
	tokenPut, tokenSeen bool
}

// Claimed reports whether a failed transaction's op index i, counted from
// the first of w.Ops, is the claim.
func (w *Writes) Claimed(i int) bool { return w != nil && w.Claim >= 0 && i == w.Claim }

// Lost reports whether a transaction of w that failed on a condition lost a
// race to a concurrent write of the vault, so the caller should build the
// writes again (the next Save or Migrate sees the winner's) and retry:
// another customer holds the reference's claim, or w's token appeared
// (another payment saved the card first) or went (it was deleted) since w
// read it. It reads the claim and the token again; false when neither
// moved or a read fails (the caller's error stands).
func (v *Vault) Lost(ctx context.Context, w *Writes) bool {
	if w == nil {
		return false
	}
	if w.Claim >= 0 && w.Customer != nil {
		if id, err := v.CustomerID(ctx, w.Customer.AccountID, w.Customer.ExternalRef); err == nil && id != w.CustomerID {
			return true
		}
	}
	if w.tokenPut && w.Token != nil {
		_, err := v.Token(ctx, w.Token.AccountID, w.Token.ID)
		switch {
		case err == nil:
			return !w.tokenSeen
		case apierr.Is(err, apierr.NotFound):
			return w.tokenSeen
		}
	}
	return false
}

// opSet collects ops in order, one per key: a later op on a key replaces
// the earlier one (a store transaction takes one op per key). created
// holds the tokens whose card_token.created the set writes, so a token
// migrated and saved by one write has one.
type opSet struct {
	ops     []store.Op
	at      map[store.Key]int
	created map[string]bool
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

// tokenOps are the puts of a token, under cond, and of its customer's copy
// (unconditional: it goes with the record); with isNew, the token's
// card_token.created too, once per token in the set. Saving one card twice,
// even at once, writes the same two items: the first save of a new token is
// put-if-absent, so exactly one of concurrent first saves writes it (and
// its event), and the others find it and save it again (IfExists).
func tokenOps(s *opSet, t *CardToken, cond store.Cond, isNew bool, now time.Time) error {
	rec, err := put(TokenKey(t.AccountID, t.ID), t, cond)
	if err != nil {
		return err
	}
	s.add(rec)
	cp := rec
	cp.Item.Key = store.Key{Table: store.TablePayments, PK: CustomerTokensPK(t.AccountID, t.CustomerID), SK: t.ID}
	cp.Cond = store.Always
	s.add(cp)
	if !isNew || s.created[t.ID] {
		return nil
	}
	ev, err := tokenEvent(EventTokenCreated, t, now)
	if err != nil {
		return err
	}
	if s.created == nil {
		s.created = map[string]bool{}
	}
	s.created[t.ID] = true
	s.ops = append(s.ops, ev) // a new event id: never replaces an op
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
// customer.created, and the migration of the reference's legacy stored
// cards (up to MaxLegacyMigrated become tokens with their ids, each with its
// card_token.created, and are deleted), read here. Errors: Unavailable,
// Internal.
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
		set.add(emailPut(c))
	}
	ev, err := customerEvent(EventCustomerCreated, c, now)
	if err != nil {
		return nil, nil, err
	}
	set.add(ev)
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
		// A new customer has no token yet (every token is written with
		// its customer, and customers are never deleted): the claim decides.
		if err := tokenOps(set, t, store.Always, true, now); err != nil {
			return nil, nil, err
		}
		set.add(store.Delete(legacyKey(c.AccountID, c.ExternalRef, l.ID), store.Always))
	}
	return set, w, nil
}

func emailKey(c *Customer) store.Key {
	return store.Key{Table: store.TablePayments, PK: EmailPK(c.AccountID, c.Email), SK: c.ID}
}

func emailPut(c *Customer) store.Op {
	return store.Put(store.Item{Key: emailKey(c), Data: []byte("{}")}, store.Always)
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

// Save is the writes that save a card: the token and its customer's copy,
// after the writes that create the shopper's customer when it has none
// (Create). A new token is put-if-absent with its card_token.created; a card
// saved again (put-if-exists, no event) keeps its token's id, created_at and
// first transaction, and becomes the computed default (UpdatedAt). A
// transaction failing on the token lost a race (Lost). Reads: the
// reference's claim, the token, and (creating) the legacy cards. Errors:
// Unavailable, Internal.
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
	w.tokenPut, w.tokenSeen = true, err == nil
	cond := store.IfAbsent
	if w.tokenSeen {
		cond = store.IfExists
	}
	if err := tokenOps(set, t, cond, !w.tokenSeen, now); err != nil {
		return nil, err
	}
	w.Token, w.Ops = t, set.ops
	return w, nil
}

// Migrate is the writes that turn legacy card t (LegacyToken) into a card
// token of its shopper's customer (put-if-absent, with its
// card_token.created), created when the shopper has none (then the
// shopper's other legacy cards migrate too), and delete the legacy record:
// for the payment that pays with it. A token of t's id already there (a
// concurrent payment migrated it first) is the one the payment uses, as it
// is. Errors: Unavailable, Internal.
func (v *Vault) Migrate(ctx context.Context, t *CardToken, live bool, now time.Time) (*Writes, error) {
	now = now.UTC()
	set, w, err := v.customerFor(ctx, t.AccountID, t.ShopperReference, "", live, now)
	if err != nil {
		return nil, err
	}
	set.add(store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.Always))
	if w.Customer == nil { // the customer was there: so may the token be
		cur, err := v.Token(ctx, t.AccountID, t.ID)
		switch {
		case err == nil:
			w.Token, w.Ops = cur, set.ops
			return w, nil
		case !apierr.Is(err, apierr.NotFound):
			return nil, err
		}
	}
	m := *t
	m.CustomerID, m.Livemode, m.CreatedAt, m.UpdatedAt = w.CustomerID, live, now, now
	w.tokenPut = true
	if err := tokenOps(set, &m, store.IfAbsent, true, now); err != nil {
		return nil, err
	}
	w.Token, w.Ops = &m, set.ops
	return w, nil
}

// The ops of DeleteOps and UpdateOps a caller tells apart when their
// transaction fails on a condition (every other op is unconditional, or the
// put of a new event id).
const (
	// DeleteTokenOp is the token's delete: it was deleted meanwhile.
	DeleteTokenOp = 0
	// DeleteCustomerOp is the customer's rewrite or check: it changed
	// since it was read (read again and retry).
	DeleteCustomerOp = 1
	// UpdateCustomerOp is the customer's rewrite: it changed since it was
	// read (read again and retry).
	UpdateCustomerOp = 0
	// UpdateTokenOp is the check that a newly chosen default card token is
	// still there: it was deleted meanwhile (read again and retry).
	UpdateTokenOp = 1
)

// DeleteOps remove token t of customer c (read by Customer), with
// card_token.deleted (the token as it was): t's record, which must still be
// there (DeleteTokenOp: of two deletes one succeeds and the other finds
// nothing); c's record at the version read (DeleteCustomerOp), rewritten
// without its default_card_token_id when that was t (with customer.updated),
// else only checked, so an update making t the default cannot commit once t
// is gone; t's customer's copy; and any legacy stored card of the same id, so
// no earlier form of the card pays again. Errors: Internal.
func DeleteOps(t *CardToken, c *Customer, now time.Time) ([]store.Op, error) {
	now = now.UTC()
	ops := []store.Op{store.Delete(TokenKey(t.AccountID, t.ID), store.IfExists)}
	var events []store.Op
	if c.DefaultCardTokenID == t.ID {
		next := *c
		next.DefaultCardTokenID = ""
		rec, err := put(CustomerKey(c.AccountID, c.ID), &next, store.IfVersion(c.version))
		if err != nil {
			return nil, err
		}
		ev, err := customerEvent(EventCustomerUpdated, &next, now)
		if err != nil {
			return nil, err
		}
		ops, events = append(ops, rec), append(events, ev)
	} else {
		ops = append(ops, store.Check(CustomerKey(c.AccountID, c.ID), store.IfVersion(c.version)))
	}
	ev, err := tokenEvent(EventTokenDeleted, t, now)
	if err != nil {
		return nil, err
	}
	ops = append(ops,
		store.Delete(store.Key{Table: store.TablePayments, PK: CustomerTokensPK(t.AccountID, t.CustomerID), SK: t.ID}, store.Always),
		store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.Always),
		ev)
	return append(ops, events...), nil
}

// UpdateOps are the writes that change customer c (read by Customer) into
// next (c with the change applied: e-mail, name, description, metadata,
// default card token), with customer.updated (next as the API shows it):
// c's record at the version read (UpdateCustomerOp), so of two concurrent
// changes one commits and the other reads again and applies its change to
// the winner's; when next names a default card token c did not, a check that
// the token is still there (UpdateTokenOp; the caller has read it and found
// it c's); and the e-mail index moved when the address changed. Errors:
// Internal.
func UpdateOps(c, next *Customer, now time.Time) ([]store.Op, error) {
	rec, err := put(CustomerKey(c.AccountID, c.ID), next, store.IfVersion(c.version))
	if err != nil {
		return nil, err
	}
	ops := []store.Op{rec}
	if next.DefaultCardTokenID != "" && next.DefaultCardTokenID != c.DefaultCardTokenID {
		ops = append(ops, store.Check(TokenKey(c.AccountID, next.DefaultCardTokenID), store.IfExists))
	}
	if emailKey(c) != emailKey(next) { // the index is by lower-case address
		if c.Email != "" {
			ops = append(ops, store.Delete(emailKey(c), store.Always))
		}
		if next.Email != "" {
			ops = append(ops, emailPut(next))
		}
	}
	ev, err := customerEvent(EventCustomerUpdated, next, now.UTC())
	if err != nil {
		return nil, err
	}
	return append(ops, ev), nil
}

// DeleteLegacyOps deletes a legacy stored card (LegacyToken's: a shopper
// with no customer yet), conditioned on its being there.
func DeleteLegacyOps(t *CardToken) []store.Op {
	return []store.Op{store.Delete(legacyKey(t.AccountID, t.ShopperReference, t.ID), store.IfExists)}
}
