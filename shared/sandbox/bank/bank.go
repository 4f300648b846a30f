// Package bank is the sandbox bank, the adapter of the bank's port
// (domain/banking) that test keys' payment orders reach: it answers by the
// beneficiary's IBAN (IBANs, docs/beneficiaries.md's sandbox accounts) and keeps its own
// record of each order it answered, so an order asked twice is paid once.
package bank

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

var _ banking.Bank = (*Sandbox)(nil)

func key(orderID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: banking.RecordPrefix + orderID, SK: "result"}
}

// Sandbox outcomes, by the beneficiary's IBAN (IBANs).
const (
	OutcomePaid     = "paid"
	OutcomeClosed   = banking.ReasonAccountClosed
	OutcomeMismatch = banking.ReasonBeneficiaryMismatch
	OutcomeSlow     = "slow"      // accepted, then paid SlowFor after the first call
	OutcomeNoAnswer = "no_answer" // never answers
)

// Code is the bank code of the sandbox's documented IBANs.
const Code = "999"

// IBANs are the sandbox bank's test accounts and their outcome; any
// other valid Kazakh IBAN is paid at once.
var IBANs = map[string]string{
	kzid.IBAN(Code, "0000000000001"): OutcomePaid,
	kzid.IBAN(Code, "0000000000002"): OutcomeClosed,
	kzid.IBAN(Code, "0000000000003"): OutcomeMismatch,
	kzid.IBAN(Code, "0000000000004"): OutcomeSlow,
	kzid.IBAN(Code, "0000000000005"): OutcomeNoAnswer,
}

// Outcome is what the sandbox bank does with an order to iban.
func Outcome(iban string) string {
	if o, ok := IBANs[iban]; ok {
		return o
	}
	return OutcomePaid
}

// SlowFor is how long the sandbox bank takes to pay an order to the slow
// IBAN, from its first call.
const SlowFor = time.Minute

// Sandbox is the sandbox bank: it answers by the IBAN, and keeps its
// own record of each order it answered (as a real bank keeps its own
// database), in the store under sbxbank#<order id>, so an order asked twice
// (a consumer that crashed after the answer) is paid once. Calls counts Pay
// calls, for tests.
type Sandbox struct {
	st    store.Store
	clock func() time.Time
	Calls atomic.Int64
}

// New builds the sandbox bank over st; nil clock is time.Now.
func New(st store.Store, clock func() time.Time) *Sandbox {
	if clock == nil {
		clock = time.Now
	}
	return &Sandbox{st: st, clock: clock}
}

// bankRecord is the sandbox bank's record of an order.
type bankRecord struct {
	Decided    bool           `json:"decided"`
	Result     banking.Result `json:"result"`
	AcceptedAt time.Time      `json:"accepted_at"`
}

// Pay answers by the IBAN's outcome: paid, a refusal, in process (the slow
// IBAN, until SlowFor after the first call) or no answer at all. Live
// orders are refused: there is no live bank.
func (b *Sandbox) Pay(ctx context.Context, r banking.Request) (banking.Result, error) {
	b.Calls.Add(1)
	now := b.clock().UTC()
	it, err := b.st.Get(ctx, key(r.PaymentOrderID))
	var rec bankRecord
	switch {
	case err == nil:
		if json.Unmarshal(it.Data, &rec) != nil {
			return banking.Result{}, banking.ErrNoAnswer
		}
		if rec.Decided {
			return rec.Result, nil
		}
	case !errors.Is(err, store.ErrNotFound):
		return banking.Result{}, banking.ErrNoAnswer
	}
	outcome := Outcome(r.IBAN)
	res := banking.Result{At: now}
	switch {
	case r.Livemode:
		res.Reason = banking.ReasonBankUnavailable
	case outcome == OutcomeNoAnswer:
		return banking.Result{}, banking.ErrNoAnswer
	case outcome == OutcomeSlow && it.Version == 0:
		// First call: accepted, paying.
		return banking.Result{}, b.put(ctx, r.PaymentOrderID, bankRecord{AcceptedAt: now}, store.IfAbsent, banking.ErrInProcess)
	case outcome == OutcomeSlow && now.Before(rec.AcceptedAt.Add(SlowFor)):
		return banking.Result{}, banking.ErrInProcess
	case outcome == OutcomeSlow, outcome == OutcomePaid:
		res.Paid = true
	default:
		res.Reason = outcome
	}
	cond := store.IfAbsent
	if it.Version != 0 {
		cond = store.IfVersion(it.Version)
	}
	err = b.put(ctx, r.PaymentOrderID, bankRecord{Decided: true, Result: res, AcceptedAt: rec.AcceptedAt}, cond, nil)
	if err == nil {
		return res, nil
	}
	// A concurrent call decided first: its answer stands.
	if first, found, lerr := b.Lookup(ctx, r.PaymentOrderID); lerr == nil && found {
		return first, nil
	}
	return banking.Result{}, banking.ErrNoAnswer
}

// put writes the bank's record of id; ok is what a successful write
// answers. A write that failed (the record changed, the store down) is no
// answer.
func (b *Sandbox) put(ctx context.Context, id string, rec bankRecord, cond store.Cond, ok error) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return apierr.Wrap("bank.put", apierr.Internal, err)
	}
	err = b.st.Write(ctx, store.Put(store.Item{Key: key(id), Data: data}, cond))
	if _, lost := store.IsConditionFailed(err); lost && !rec.Decided {
		return ok // another call accepted it first
	}
	if err != nil {
		return banking.ErrNoAnswer
	}
	return ok
}

// Lookup reads the sandbox bank's record of a decided order.
func (b *Sandbox) Lookup(ctx context.Context, paymentOrderID string) (banking.Result, bool, error) {
	it, err := b.st.Get(ctx, key(paymentOrderID))
	if errors.Is(err, store.ErrNotFound) {
		return banking.Result{}, false, nil
	}
	if err != nil {
		return banking.Result{}, false, apierr.Wrap("bank.Lookup", apierr.Unavailable, err)
	}
	var rec bankRecord
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return banking.Result{}, false, apierr.Wrap("bank.Lookup", apierr.Internal, err)
	}
	return rec.Result, rec.Decided, nil
}
