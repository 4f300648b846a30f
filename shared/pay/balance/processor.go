package balance

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// PayRequest is what the payout processor is asked to pay. PayoutID is the
// processor's idempotency key: asked twice, it pays once and answers the same.
type PayRequest struct {
	PayoutID string
	Amount   int64
	Currency string
	Livemode bool
	Outcome  string // the sandbox outcome of the card (SandboxOutcome)
}

// PayResult is the processor's final answer (a remittance's).
type PayResult = remittance.Result

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the payout
// may or may not have been paid, so it stays pending until the processor
// answers or, asked for it (Lookup), says what became of it. It is the
// remittance flow's (remittance.ErrNoAnswer), which the consumer tells.
var ErrNoAnswer = remittance.ErrNoAnswer

// Processor pays payouts to cards: a system outside the service (a card
// network's push-to-card service behind an acquirer). Only the sandbox is
// wired in this repository.
type Processor interface {
	// Pay pays the request once per PayoutID; a repeat answers the first
	// answer. ErrNoAnswer when the outcome is unknown.
	Pay(ctx context.Context, r PayRequest) (PayResult, error)
	// Lookup is the processor's record of a payout: found is false when it
	// never paid nor refused it.
	Lookup(ctx context.Context, payoutID string) (res PayResult, found bool, err error)
}

// Sandbox is the sandbox payout processor: it answers by the card's
// outcome, and keeps its own record of each payout it answered (as the real
// processor keeps its own database), in the store under sbxpo#<payout id>,
// so a payout asked twice (a consumer that crashed after the answer) is
// paid once. Calls counts Pay calls, for tests.
type Sandbox struct {
	st    store.Store
	clock func() time.Time
	Calls atomic.Int64
}

// NewSandbox builds the sandbox processor over st.
func NewSandbox(st store.Store, clock func() time.Time) *Sandbox {
	if clock == nil {
		clock = time.Now
	}
	return &Sandbox{st: st, clock: clock}
}

func sandboxKey(payoutID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: "sbxpo#" + payoutID, SK: "result"}
}

// Pay answers by the card's outcome: paid, a refusal, or no answer at all
// (the timeout card). Live payouts are refused: there is no live processor.
func (s *Sandbox) Pay(ctx context.Context, r PayRequest) (PayResult, error) {
	s.Calls.Add(1)
	if res, found, err := s.Lookup(ctx, r.PayoutID); err != nil || found {
		return res, err
	}
	res := PayResult{Paid: r.Outcome == OutcomePaid, At: s.clock().UTC()}
	switch {
	case r.Livemode:
		res.Paid, res.Reason = false, ReasonUnavailable
	case r.Outcome == OutcomeTimeout:
		return PayResult{}, ErrNoAnswer
	case !res.Paid:
		res.Reason = r.Outcome
	}
	data, err := json.Marshal(res)
	if err != nil {
		return PayResult{}, apierr.Wrap("balance.Sandbox.Pay", apierr.Internal, err)
	}
	err = s.st.Write(ctx, store.Put(store.Item{Key: sandboxKey(r.PayoutID), Data: data}, store.IfAbsent))
	if cf, ok := store.IsConditionFailed(err); ok && cf.Current != nil {
		// A concurrent call answered first: its answer stands.
		var first PayResult
		if json.Unmarshal(cf.Current.Data, &first) == nil {
			return first, nil
		}
	}
	if err != nil {
		return PayResult{}, ErrNoAnswer
	}
	return res, nil
}

// Lookup reads the sandbox's record of a payout.
func (s *Sandbox) Lookup(ctx context.Context, payoutID string) (PayResult, bool, error) {
	it, err := s.st.Get(ctx, sandboxKey(payoutID))
	if errors.Is(err, store.ErrNotFound) {
		return PayResult{}, false, nil
	}
	if err != nil {
		return PayResult{}, false, apierr.Wrap("balance.Sandbox.Lookup", apierr.Unavailable, err)
	}
	var res PayResult
	if err := json.Unmarshal(it.Data, &res); err != nil {
		return PayResult{}, false, apierr.Wrap("balance.Sandbox.Lookup", apierr.Internal, err)
	}
	return res, true, nil
}
