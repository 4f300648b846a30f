// Package payoutprocessor is the sandbox payout processor, the adapter of
// the payout processor's port (domain/cardpayouts) that test keys' payouts
// reach: it answers by the documented sandbox payout card, and keeps its own
// record of each payout it answered (as a real processor keeps its own
// database), so a payout asked twice is paid once.
//
// Sandbox payout cards: a test key's payout to one of these ends as the
// table says; any other valid card fails with not_a_sandbox_card. The
// outcome is decided when the card is saved (Enrol) and kept with it; the
// number is not kept at all.
//
//	number               brand  payout
//	4000 0566 5566 5556  visa   paid
//	5200 8282 8282 8210  mc     paid
//	4000 0000 0000 9995  visa   failed: insufficient_funds
//	4000 0000 0000 0069  visa   failed: expired_card
//	4000 0000 0000 0127  visa   failed: card_declined
//	4000 0000 0000 0119  visa   no answer (the processor times out); after
//	                            balance.MaxPayAttempts calls the processor
//	                            is asked for the payout, has none, and it
//	                            fails with processor_timeout
package payoutprocessor

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Outcomes a sandbox card stands for, besides cardpayouts' failure reasons.
const (
	OutcomePaid    = "paid"
	OutcomeTimeout = "timeout"
	// ReasonNotSandboxCard fails a test key's payout to a card that is not a
	// documented sandbox payout card.
	ReasonNotSandboxCard = "not_a_sandbox_card"
)

var cards = map[string]string{
	"4000056655665556": OutcomePaid,
	"5200828282828210": OutcomePaid,
	"4000000000009995": cardpayouts.ReasonInsufficientFunds,
	"4000000000000069": cardpayouts.ReasonExpiredCard,
	"4000000000000127": cardpayouts.ReasonDeclined,
	"4000000000000119": OutcomeTimeout,
}

// Outcome is what the sandbox does with a payout to number (digits only).
func Outcome(number string) string {
	if o, ok := cards[number]; ok {
		return o
	}
	return ReasonNotSandboxCard
}

// Sandbox is the sandbox payout processor over a store. Calls counts Pay
// calls, for tests.
type Sandbox struct {
	st    store.Store
	clock func() time.Time
	Calls atomic.Int64
}

var _ cardpayouts.Processor = (*Sandbox)(nil)

// New builds the sandbox processor over st; nil clock is time.Now.
func New(st store.Store, clock func() time.Time) *Sandbox {
	if clock == nil {
		clock = time.Now
	}
	return &Sandbox{st: st, clock: clock}
}

func key(payoutID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: cardpayouts.RecordPrefix + payoutID, SK: "result"}
}

// Enrol keeps the card's outcome as its reference.
func (s *Sandbox) Enrol(number string) cardpayouts.Reference { return Outcome(number) }

// Pay answers by the card's outcome: paid, a refusal, or no answer at all
// (the timeout card). Live payouts are refused: the sandbox pays test
// payouts only.
func (s *Sandbox) Pay(ctx context.Context, r cardpayouts.Request) (cardpayouts.Result, error) {
	s.Calls.Add(1)
	if res, found, err := s.Lookup(ctx, r.PayoutID); err != nil || found {
		return res, err
	}
	res := cardpayouts.Result{Paid: r.Card == OutcomePaid, At: s.clock().UTC()}
	switch {
	case r.Livemode:
		res.Paid, res.Reason = false, cardpayouts.ReasonUnavailable
	case r.Card == OutcomeTimeout:
		return cardpayouts.Result{}, cardpayouts.ErrNoAnswer
	case !res.Paid:
		res.Reason = r.Card
	}
	data, err := json.Marshal(res)
	if err != nil {
		return cardpayouts.Result{}, apierr.Wrap("payoutprocessor.Pay", apierr.Internal, err)
	}
	err = s.st.Write(ctx, store.Put(store.Item{Key: key(r.PayoutID), Data: data}, store.IfAbsent))
	if cf, ok := store.IsConditionFailed(err); ok && cf.Current != nil {
		// A concurrent call answered first: its answer stands.
		var first cardpayouts.Result
		if json.Unmarshal(cf.Current.Data, &first) == nil {
			return first, nil
		}
	}
	if err != nil {
		return cardpayouts.Result{}, cardpayouts.ErrNoAnswer
	}
	return res, nil
}

// Lookup reads the sandbox's record of a payout.
func (s *Sandbox) Lookup(ctx context.Context, payoutID string) (cardpayouts.Result, bool, error) {
	it, err := s.st.Get(ctx, key(payoutID))
	if errors.Is(err, store.ErrNotFound) {
		return cardpayouts.Result{}, false, nil
	}
	if err != nil {
		return cardpayouts.Result{}, false, apierr.Wrap("payoutprocessor.Lookup", apierr.Unavailable, err)
	}
	var res cardpayouts.Result
	if err := json.Unmarshal(it.Data, &res); err != nil {
		return cardpayouts.Result{}, false, apierr.Wrap("payoutprocessor.Lookup", apierr.Internal, err)
	}
	return res, true, nil
}
