package idempotency

import (
	"context"
	"errors"
	"sync"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Outcome is a definitive result in typed form: what a service would answer.
// It is rendered to bytes only when a key needs a record. The service says
// what happened (Created: a new resource, not a change of one); the HTTP
// layer that bound the route turns that into a status.
type Outcome struct {
	Created bool
	Kind    string // resource kind, for version changes
	Value   any
}

// Renderer renders an outcome exactly as the caller will receive it (for
// HTTP: in the caller's API version), so a replay returns the same bytes.
type Renderer func(Outcome) (Result, error)

// Call is one keyed call of a creating or money-moving operation, as a
// service sees it: who, which key, which request, and how the caller renders
// a result. A nil Call, or one without a key, commits the business ops alone
// (an optional key not sent; a queue consumer or the admin CLI). Services
// receive it in their typed input and hand it to Commit; they never read the
// key themselves.
type Call struct {
	req    Request
	render Renderer
	idem   *Store

	mu       sync.Mutex
	recorded *Result
}

// Begin starts a keyed call: the key's record is read before any work, so a
// retry of a call that succeeded replays (a *Replayed error) even if the
// state it depended on changed since; a key in flight is a Conflict, a key
// used for another request an IdempotencyMismatch.
func (s *Store) Begin(ctx context.Context, r Request, render Renderer) (*Call, error) {
	c := &Call{req: r, render: render, idem: s}
	if r.Key == "" {
		return c, nil
	}
	prev, err := s.Lookup(ctx, r)
	if err != nil {
		return nil, err
	}
	if prev != nil {
		return nil, &Replayed{Result: *prev}
	}
	return c, nil
}

// Keyed reports whether the call carries a key (and so writes a record).
func (c *Call) Keyed() bool { return c != nil && c.req.Key != "" }

// Key is the call's Idempotency-Key ("" when none).
func (c *Call) Key() string {
	if c == nil {
		return ""
	}
	return c.req.Key
}

// Recorded is the result Commit stored for this call, if it did.
func (c *Call) Recorded() (Result, bool) {
	if c == nil {
		return Result{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.recorded == nil {
		return Result{}, false
	}
	return *c.recorded, true
}

// Settled reads the key's record again, for a retry loop about to answer an
// error about the state it found. When a concurrent duplicate of this very
// call (same key, same request) won the race and moved that state, the
// duplicate must replay the winner's answer, not fail against the state the
// winner left: Settled then returns the *Replayed (or the key's other
// verdict). It returns nil when the call is unkeyed, the key is still free,
// or the record cannot be read (the caller's own error stands).
func (c *Call) Settled(ctx context.Context) error {
	if !c.Keyed() {
		return nil
	}
	prev, err := c.idem.Lookup(ctx, c.req)
	switch {
	case prev != nil:
		return &Replayed{Result: *prev}
	case err != nil && FromKey(err):
		return err
	}
	return nil
}

// Replayed is the answer when the key already holds this request's result:
// not a failure, the stored bytes to send again. Commit and Begin return it
// as an error so no service can mistake it for its own fresh result; the
// HTTP platform turns it into the replayed response.
type Replayed struct{ Result Result }

func (e *Replayed) Error() string { return "idempotency: the key's stored result replays" }

// AsReplayed reports whether err is a replay, and returns it.
func AsReplayed(err error) (*Replayed, bool) {
	if err == nil {
		return nil, false // the common case, without errors.As's allocation
	}
	var r *Replayed
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// Commit is the one helper every write that creates something or moves money
// goes through. It writes ops, and with a keyed call the record of out in the
// same transaction (first, with put-if-absent), on a context the caller's
// cancellation cannot end: once the write is decided it completes, so a
// retry replays and never runs twice.
//
// It returns nil when everything was written; a *Replayed when the key
// already holds this request's result (a concurrent duplicate won); a
// Conflict (in flight) or IdempotencyMismatch (another request's key) error;
// a *store.ConditionFailedError whose Index counts in ops, for the caller to
// map; or the store's other error, for the caller to wrap.
func Commit(ctx context.Context, st store.Store, c *Call, out Outcome, ops ...store.Op) error {
	ctx, cancel := detach(ctx)
	defer cancel()
	if !c.Keyed() {
		if len(ops) == 0 {
			return nil
		}
		return st.Write(ctx, ops...)
	}
	res, err := c.render(out)
	if err != nil {
		return apierr.Wrap("idempotency.Commit", apierr.Internal, err)
	}
	all := make([]store.Op, 0, len(ops)+1)
	all = append(all, c.idem.RecordOp(c.req, res, store.IfAbsent))
	all = append(all, ops...)
	err = st.Write(ctx, all...)
	if err == nil {
		c.mu.Lock()
		c.recorded = &res
		c.mu.Unlock()
		return nil
	}
	cf, ok := store.IsConditionFailed(err)
	if !ok {
		return err
	}
	if cf.Index == 0 {
		prev, err := c.idem.Resolve(c.req, cf)
		if err != nil {
			return err
		}
		return &Replayed{Result: *prev}
	}
	return &store.ConditionFailedError{Index: cf.Index - 1, Current: cf.Current}
}

// FromKey reports whether err is the key's verdict (a replay, a duplicate in
// flight, a key reused for another request) rather than a failure of the
// business write, so a retry loop stops instead of trying again.
func FromKey(err error) bool {
	if _, ok := AsReplayed(err); ok {
		return true
	}
	var e *apierr.Error
	return errors.As(err, &e) && e.Param == Header
}

// Reserve is a value fixed for the call's key: fresh() the first time the
// key asks for name, the same value on every retry after (kept as long as a
// result, Retention). Work that names an outside effect by a value (the
// reference a card processor hears for a payment) names it alike on every
// retry, so the outside system, which keeps its own idempotency, sees one
// request. Without a key it is fresh().
func (c *Call) Reserve(ctx context.Context, name string, fresh func() string) (string, error) {
	if !c.Keyed() {
		return fresh(), nil
	}
	k := c.idem.key(c.req)
	k.SK += "#reserve#" + name
	v := fresh()
	err := c.idem.st.Write(ctx, store.Put(store.Item{Key: k, Data: []byte(v), ExpiresAt: c.idem.clock().Add(Retention)}, store.IfAbsent))
	if _, lost := store.IsConditionFailed(err); lost {
		it, gerr := c.idem.st.Get(ctx, k)
		if gerr != nil {
			return "", apierr.Wrap("idempotency.Reserve", apierr.Unavailable, gerr)
		}
		return string(it.Data), nil
	}
	if err != nil {
		return "", apierr.Wrap("idempotency.Reserve", apierr.Unavailable, err)
	}
	return v, nil
}
