package payments

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// pendingEvent is an event a change queued, written by SaveOps with the
// payment's public view at the time of the save as its data.
type pendingEvent struct {
	typ string
	at  time.Time
}

// Key addresses a payment.
func Key(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: "pay#" + accountID, SK: id}
}

// Repo reads payments and builds their writes.
type Repo struct {
	st     store.Store
	policy ledger.Policy
}

// NewRepo builds a repo over st; its captures settle at once and bear no
// fee (the sandbox's ledger.Policy) unless WithPolicy says otherwise.
func NewRepo(st store.Store) *Repo { return &Repo{st: st} }

// WithPolicy is the repo posting captures by pol (settlement delay, fee).
func (r *Repo) WithPolicy(pol ledger.Policy) *Repo {
	c := *r
	c.policy = pol
	return &c
}

// Get reads one of the account's payments; another account's is NotFound.
func (r *Repo) Get(ctx context.Context, accountID, id string) (*Payment, error) {
	it, err := r.st.Get(ctx, Key(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payment: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("payments.Get", apierr.Unavailable, err)
	}
	return Decode(it)
}

// Decode turns a stored item into a payment that remembers its version.
func Decode(it store.Item) (*Payment, error) {
	var p Payment
	if err := json.Unmarshal(it.Data, &p); err != nil {
		return nil, apierr.Wrap("payments.Decode", apierr.Internal, err)
	}
	p.version, p.readStatus = it.Version, p.Status
	p.markRead()
	return &p, nil
}

// SaveOps are the writes that store p and its queued events: a put-if-absent
// for a new record, else a put conditioned on the version it was read at, so
// a concurrent change makes the whole transaction fail. Callers add their own
// ops and write them together. The first op is always the payment's. The
// money moved since the read is posted to the merchant's books by the last
// ops (ledger.go): a balance they would take below zero fails the write,
// which ledger.Insufficient words.
func (r *Repo) SaveOps(p *Payment) ([]store.Op, error) {
	cond := store.IfAbsent
	if p.version > 0 {
		cond = store.IfVersion(p.version)
	}
	lops, split, err := p.ledgerOps(r.policy)
	if err != nil {
		return nil, err
	}
	rec := *p
	rec.Split, p.nextSplit = split, split
	data, err := json.Marshal(&rec)
	if err != nil {
		return nil, apierr.Wrap("payments.SaveOps", apierr.Internal, err)
	}
	ops := []store.Op{store.Put(store.Item{Key: Key(p.AccountID, p.ID), Data: data}, cond)}
	ops = append(ops, p.indexOps()...)
	for _, x := range p.extra {
		xops, err := r.SaveOps(x)
		if err != nil {
			return nil, err
		}
		ops = append(ops, xops...)
	}
	pub := p.Public()
	for _, ev := range p.pending {
		op, err := eventlog.Append(eventlog.Event{Type: ev.typ, Account: p.AccountID, Livemode: p.Livemode, At: ev.at, Data: pub})
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return append(ops, lops...), nil
}

// Saved marks p as written at the next version, after the caller's Write of
// SaveOps succeeded, so it can be changed again.
func (p *Payment) Saved() {
	p.version++
	p.pending, p.extra, p.readStatus = nil, nil, p.Status
	p.Split = p.nextSplit
	p.markRead()
}

// Save writes p and its events alone.
func (r *Repo) Save(ctx context.Context, p *Payment) error {
	ops, err := r.SaveOps(p)
	if err != nil {
		return err
	}
	if err := r.st.Write(ctx, ops...); err != nil {
		if e := ledger.Insufficient(err, ops, "amount"); e != nil {
			return e
		}
		if _, ok := store.IsConditionFailed(err); ok {
			return apierr.New(CodeChanged, "payment %s changed concurrently; retry", p.ID)
		}
		return apierr.Wrap("payments.Save", apierr.Unavailable, err)
	}
	p.Saved()
	return nil
}
