package beneficiaries

import (
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// BankRequest is what the bank is asked to pay. PaymentOrderID is the
// bank's idempotency key: asked twice, it pays once and answers the same.
type BankRequest struct {
	PaymentOrderID string
	Amount         int64
	Currency       string
	IBAN           string
	BIC            string
	Livemode       bool
}

// BankResult is the bank's final answer (a remittance's).
type BankResult = remittance.Result

// Failure reasons of a payment order (failure_reason).
const (
	ReasonAccountClosed       = "account_closed"       // the beneficiary's bank account is closed
	ReasonBeneficiaryMismatch = "beneficiary_mismatch" // the account's holder is not the beneficiary's IIN or BIN
	ReasonBankTimeout         = "bank_timeout"         // the bank never answered and has no record of the order
	ReasonBankUnavailable     = "bank_unavailable"     // no live bank is wired
)

// FailureReasons lists every reason (the OpenAPI enum).
var FailureReasons = []string{ReasonAccountClosed, ReasonBeneficiaryMismatch, ReasonBankTimeout, ReasonBankUnavailable}

// ErrNoAnswer is a call whose outcome is unknown (a timeout): the order may
// or may not have been paid, so it stays created until the bank answers or,
// asked for it (Lookup), says what became of it. It is the remittance
// flow's (remittance.ErrNoAnswer), which the consumer tells.
var ErrNoAnswer = remittance.ErrNoAnswer

// ErrInProcess is the bank's "accepted, still paying": ask again later
// (remittance.ErrInProcess).
var ErrInProcess = remittance.ErrInProcess

// Bank pays payment orders to Kazakh bank accounts: a system outside the
// service (the interbank transfer systems behind a partner bank). Only the
// sandbox is wired in this repository.
type Bank interface {
	// Pay pays the request once per PaymentOrderID; a repeat answers the
	// first answer. ErrInProcess while the bank is still paying it,
	// ErrNoAnswer when the outcome is unknown.
	Pay(ctx context.Context, r BankRequest) (BankResult, error)
	// Lookup is the bank's record of an order: found is false when it never
	// decided it.
	Lookup(ctx context.Context, paymentOrderID string) (res BankResult, found bool, err error)
}

// Sandbox outcomes, by the beneficiary's IBAN (SandboxIBANs).
const (
	OutcomePaid     = "paid"
	OutcomeClosed   = ReasonAccountClosed
	OutcomeMismatch = ReasonBeneficiaryMismatch
	OutcomeSlow     = "slow"      // accepted, then paid SlowFor after the first call
	OutcomeNoAnswer = "no_answer" // never answers
)

// SandboxBankCode is the bank code of the sandbox's documented IBANs.
const SandboxBankCode = "999"

// SandboxIBANs are the sandbox bank's test accounts and their outcome; any
// other valid Kazakh IBAN is paid at once.
var SandboxIBANs = map[string]string{
	kzid.IBAN(SandboxBankCode, "0000000000001"): OutcomePaid,
	kzid.IBAN(SandboxBankCode, "0000000000002"): OutcomeClosed,
	kzid.IBAN(SandboxBankCode, "0000000000003"): OutcomeMismatch,
	kzid.IBAN(SandboxBankCode, "0000000000004"): OutcomeSlow,
	kzid.IBAN(SandboxBankCode, "0000000000005"): OutcomeNoAnswer,
}

// SandboxOutcome is what the sandbox bank does with an order to iban.
func SandboxOutcome(iban string) string {
	if o, ok := SandboxIBANs[iban]; ok {
		return o
	}
	return OutcomePaid
}

// SlowFor is how long the sandbox bank takes to pay an order to the slow
// IBAN, from its first call.
const SlowFor = time.Minute

// SandboxBank is the sandbox bank: it answers by the IBAN, and keeps its
// own record of each order it answered (as a real bank keeps its own
// database), in the store under sbxbank#<order id>, so an order asked twice
// (a consumer that crashed after the answer) is paid once. Calls counts Pay
// calls, for tests.
type SandboxBank struct {
	st    store.Store
	clock func() time.Time
	Calls atomic.Int64
}

// NewSandboxBank builds the sandbox bank over st.
func NewSandboxBank(st store.Store, clock func() time.Time) *SandboxBank {
	if clock == nil {
		clock = time.Now
	}
	return &SandboxBank{st: st, clock: clock}
}

// bankRecord is the sandbox bank's record of an order.
type bankRecord struct {
	Decided    bool       `json:"decided"`
	Result     BankResult `json:"result"`
	AcceptedAt time.Time  `json:"accepted_at"`
}

// Pay answers by the IBAN's outcome: paid, a refusal, in process (the slow
// IBAN, until SlowFor after the first call) or no answer at all. Live
// orders are refused: there is no live bank.
func (b *SandboxBank) Pay(ctx context.Context, r BankRequest) (BankResult, error) {
	b.Calls.Add(1)
	now := b.clock().UTC()
	it, err := b.st.Get(ctx, bankKey(r.PaymentOrderID))
	var rec bankRecord
	switch {
	case err == nil:
		if json.Unmarshal(it.Data, &rec) != nil {
			return BankResult{}, ErrNoAnswer
		}
		if rec.Decided {
			return rec.Result, nil
		}
	case !errors.Is(err, store.ErrNotFound):
		return BankResult{}, ErrNoAnswer
	}
	outcome := SandboxOutcome(r.IBAN)
	res := BankResult{At: now}
	switch {
	case r.Livemode:
		res.Reason = ReasonBankUnavailable
	case outcome == OutcomeNoAnswer:
		return BankResult{}, ErrNoAnswer
	case outcome == OutcomeSlow && it.Version == 0:
		// First call: accepted, paying.
		return BankResult{}, b.put(ctx, r.PaymentOrderID, bankRecord{AcceptedAt: now}, store.IfAbsent, ErrInProcess)
	case outcome == OutcomeSlow && now.Before(rec.AcceptedAt.Add(SlowFor)):
		return BankResult{}, ErrInProcess
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
	return BankResult{}, ErrNoAnswer
}

// put writes the bank's record of id; ok is what a successful write
// answers. A write that failed (the record changed, the store down) is no
// answer.
func (b *SandboxBank) put(ctx context.Context, id string, rec bankRecord, cond store.Cond, ok error) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return apierr.Wrap("beneficiaries.SandboxBank.put", apierr.Internal, err)
	}
	err = b.st.Write(ctx, store.Put(store.Item{Key: bankKey(id), Data: data}, cond))
	if _, lost := store.IsConditionFailed(err); lost && !rec.Decided {
		return ok // another call accepted it first
	}
	if err != nil {
		return ErrNoAnswer
	}
	return ok
}

// Lookup reads the sandbox bank's record of a decided order.
func (b *SandboxBank) Lookup(ctx context.Context, paymentOrderID string) (BankResult, bool, error) {
	it, err := b.st.Get(ctx, bankKey(paymentOrderID))
	if errors.Is(err, store.ErrNotFound) {
		return BankResult{}, false, nil
	}
	if err != nil {
		return BankResult{}, false, apierr.Wrap("beneficiaries.SandboxBank.Lookup", apierr.Unavailable, err)
	}
	var rec bankRecord
	if err := json.Unmarshal(it.Data, &rec); err != nil {
		return BankResult{}, false, apierr.Wrap("beneficiaries.SandboxBank.Lookup", apierr.Internal, err)
	}
	return rec.Result, rec.Decided, nil
}
