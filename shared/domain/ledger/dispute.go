package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Disputes (shared/pay/disputes) move a merchant's money three ways: opening
// one holds its amount and fee (DisputeHold), winning it releases them
// (DisputeRelease), losing it (accepting it included) sends the amount back
// to the card network and charges the fee (DisputeLoss).
//
// A dispute is not the merchant's to refuse: the card network takes the
// money from the acquirer whatever the merchant's balance, and the acquirer
// from the merchant. So the hold must never fail on the non-negative rule
// that makes a refund or a payout a 400 insufficient_balance. It takes from
// available what available has, as read just before (the read is the
// caller's: ReadFunds), and puts the rest on Owed, the one merchant account
// allowed below zero: a debt, never above zero, shown by GET /v1/balance.
// A debt is repaid from available before anything else: a won dispute's
// release repays it first, and Recover (the disputes sweeper, every minute)
// moves whatever available holds to it. Why an account rather than letting
// available go negative: available is the balance refunds and payouts are
// held to by the store's condition, and that condition is what makes 50
// concurrent payouts never overdraw (balance's
// TestConcurrentPayoutsExceedingTheBalance); one account that may be
// negative keeps every other rule as it is, and the debt stays visible as
// what it is.
//
// Races: available is held by its non-negative condition (a payout that took
// it between the read and the write fails the hold's write, which the
// caller retries with a fresh read, and finally with nothing taken from
// available: all of it owed, which no condition can refuse). Owed is only
// ever raised (repaid) under a guard on the version it was read at, so two
// repayments can never take it above zero: a release or a recovery that
// lost the race reads again (a release's last attempt repays nothing and
// credits available whole; the debt is then the sweeper's).

// OwedShards is how many partitions the debtors index spreads over: the
// count every sharded index has (dueindex.Shards), by the same hash
// (dueindex.Shard). Not a due-time index: an entry is a debt, not a time.
const OwedShards = dueindex.Shards

func owedPK(shard int) string { return "mowed#" + strconv.Itoa(shard) }

// debtor is a debtors index entry's body: what the recovery entry needs
// that the balances do not say.
type debtor struct {
	Livemode bool `json:"livemode"`
}

// owedKey is an account's entry in the debtors index for one currency:
// mowed#<shard> / <account>#<currency>, put by every hold that owes, removed
// by the repayment that brings owed back to zero.
func owedKey(accountID, currency string) store.Key {
	return store.Key{Table: store.TableLedger, PK: owedPK(dueindex.Shard(accountID)), SK: accountID + "#" + currency}
}

// Funds is what a dispute's money is decided against: the available and
// owed balances of one currency as read, with owed's stored version.
type Funds struct {
	Available   int64
	Owed        int64 // zero or negative
	OwedVersion int64 // 0: never posted
}

// ReadFunds reads the available and owed balances of one currency (one
// strongly consistent Query of the currency's balances). Errors:
// Unavailable.
func ReadFunds(ctx context.Context, st store.Store, accountID, currency string) (Funds, error) {
	var f Funds
	page, err := st.Query(ctx, store.Query{Table: store.TableLedger, PK: balancePK(accountID), Prefix: currency + "#", Limit: 100})
	if err != nil {
		return f, apierr.Wrap("ledger.ReadFunds", apierr.Unavailable, err)
	}
	for _, it := range page.Items {
		switch Account(strings.TrimPrefix(it.SK, currency+"#")) {
		case Available:
			f.Available = it.N
		case Owed:
			f.Owed, f.OwedVersion = it.N, it.Version
		}
	}
	return f, nil
}

// DisputeMove is one dispute's money: the amount the cardholder claims back
// and the dispute fee, in the disputed payment's currency.
type DisputeMove struct {
	AccountID string
	Currency  string
	Livemode  bool
	DisputeID string
	Amount    int64
	Fee       int64
}

func (m DisputeMove) total() int64 { return m.Amount + m.Fee }

func (m DisputeMove) entry(t EntryType, now time.Time, postings ...Posting) Entry {
	now = now.UTC()
	var ps []Posting
	for _, p := range postings {
		if p.Amount != 0 {
			ps = append(ps, p)
		}
	}
	return Entry{ID: ids.NewAt(now), AccountID: m.AccountID, Type: t, Currency: m.Currency, Livemode: m.Livemode,
		Source: Source{Type: SourceDispute, ID: m.DisputeID}, CreatedAt: now, Postings: ps}
}

// DisputeHold adds the hold of a dispute's amount and fee: available ->
// disputed for what f.Available covers, owed -> disputed for the rest (the
// debtors index then names the account). The zero Funds takes nothing from
// available: the hold no condition can refuse. It returns what it took
// from available.
func (b *Batch) DisputeHold(m DisputeMove, f Funds, now time.Time) (covered int64) {
	total := m.total()
	covered = min(max(f.Available, 0), total)
	owed := total - covered
	b.Add(m.entry(EntryDisputeHold, now, Posting{Available, -covered}, Posting{Owed, -owed}, Posting{Disputed, total}))
	if owed > 0 {
		// A struct of one bool always encodes; checked all the same, and
		// answered by Ops.
		data, err := json.Marshal(debtor{Livemode: m.Livemode})
		if err != nil {
			b.fail("ledger.DisputeHold", err)
		}
		b.extra = append(b.extra, store.Put(store.Item{Key: owedKey(m.AccountID, m.Currency), Data: data}, store.Always))
	}
	return covered
}

// DisputeRelease adds a won dispute's release of its amount and fee:
// disputed -> owed for what is owed (f.Owed, guarded at f.OwedVersion, and
// the debtors index entry removed when it is all repaid), the rest ->
// available. The zero Funds repays nothing: all of it to available. It
// returns what it repaid.
func (b *Batch) DisputeRelease(m DisputeMove, f Funds, now time.Time) (repaid int64) {
	total := m.total()
	repaid = min(max(-f.Owed, 0), total)
	b.Add(m.entry(EntryDisputeRelease, now, Posting{Disputed, -total}, Posting{Owed, repaid}, Posting{Available, total - repaid}))
	if repaid > 0 {
		b.guard(m.AccountID, m.Currency, Owed, store.IfVersion(f.OwedVersion))
		if repaid == -f.Owed {
			b.extra = append(b.extra, store.Delete(owedKey(m.AccountID, m.Currency), store.Always))
		}
	}
	return repaid
}

// DisputeLoss adds a lost dispute's loss: disputed -> processor (the amount,
// back to the cardholder through the card network) and -> fees (the fee).
func (b *Batch) DisputeLoss(m DisputeMove, now time.Time) {
	b.Add(m.entry(EntryDisputeLoss, now, Posting{Disputed, -m.total()}, Posting{Processor, m.Amount}, Posting{Fees, m.Fee}))
}

// DebtFree guards a batch that takes money out of the merchant's hands (a
// payout, a distribution) on the account owing nothing in the currency: a
// debt is repaid from available before anything else, so while one is open
// nothing leaves. f is the funds as read (ReadFunds). An open debt is
// InsufficientFunds naming it (param: the request's amount); otherwise the
// batch carries a check that owed is still as read, so a dispute hold
// committed in between fails the write (IsDebtChange: the caller reads
// again) instead of letting the money leave past the new debt.
func (b *Batch) DebtFree(accountID, currency string, f Funds, param string) error {
	if f.Owed < 0 {
		return &apierr.Error{Kind: apierr.InsufficientFunds, Param: param,
			Message: fmt.Sprintf("the account owes %s %s from disputes, which its available balance repays first: nothing leaves it until the debt is repaid",
				format(-f.Owed, currency), currency)}
	}
	cond := store.IfAbsent
	if f.OwedVersion > 0 {
		cond = store.IfVersion(f.OwedVersion)
	}
	b.extra = append(b.extra, store.Check(BalanceKey(accountID, currency, Owed), cond))
	return nil
}

// WhileDebtFree runs commit with the funds of one currency as read now, and
// again with a fresh read while its write is refused by DebtFree's check
// (owed changed in between: a store.Race over the funds). commit builds its
// batch with b.DebtFree(f) and writes it, returning its ops and the write's
// error; any error but a debt change is commit's to answer, and is
// returned as it is. Errors: Unavailable (the read), store.CodeBusy (owed
// kept changing), commit's.
func WhileDebtFree(ctx context.Context, st store.Store, accountID, currency string, commit func(f Funds) ([]store.Op, error)) error {
	race := store.Race{Op: "ledger.WhileDebtFree", What: "the " + currency + " balances"}
	return race.Run(ctx, func(int) error {
		f, err := ReadFunds(ctx, st, accountID, currency)
		if err != nil {
			return err
		}
		ops, err := commit(f)
		if IsDebtChange(err, ops) {
			return store.Lost()
		}
		return err
	})
}

// IsDebtChange reports whether err is a write refused by DebtFree's check:
// owed changed since it was read.
func IsDebtChange(err error, ops []store.Op) bool {
	cf, ok := store.IsConditionFailed(err)
	if !ok || cf.Index < 0 || cf.Index >= len(ops) {
		return false
	}
	op := ops[cf.Index]
	return op.Kind == store.OpCheck && op.Item.Table == store.TableLedger && strings.HasPrefix(op.Item.PK, "mbal#") &&
		strings.HasSuffix(op.Item.SK, "#"+string(Owed))
}

// RecoverBatch bounds the debts one run of Recover looks at per shard.
const RecoverBatch = 1000

// Recover repays negative balances from available: for every entry of the
// debtors index it reads the account's funds in that currency and moves
// min(available, owed) from available to owed (a debt_recovery entry),
// guarded by owed's version and available's non-negative condition, with
// the entry's removal when nothing is owed any more (conditioned on the
// entry's version: a hold that owes again meanwhile puts it back, and the
// removal fails). A write that loses a race is left to the next run. It
// returns how much it recovered, in entries written.
func Recover(ctx context.Context, st store.Store, now time.Time) (int, error) {
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		q := store.Query{Table: store.TableLedger, PK: owedPK(shard), Limit: 100}
		for seen := 0; seen < RecoverBatch; {
			page, err := st.Query(ctx, q)
			if err != nil {
				return n, apierr.Wrap("ledger.Recover", apierr.Unavailable, err)
			}
			for _, it := range page.Items {
				seen++
				ok, err := recoverOne(ctx, st, it, now)
				if ok {
					n++
				}
				if err != nil && firstErr == nil {
					firstErr = err
				}
			}
			if page.Next == "" {
				break
			}
			q.Cursor = page.Next
		}
	}
	return n, firstErr
}

func recoverOne(ctx context.Context, st store.Store, entry store.Item, now time.Time) (bool, error) {
	i := strings.LastIndexByte(entry.SK, '#')
	if i <= 0 || i == len(entry.SK)-1 {
		return false, st.Write(ctx, store.Delete(entry.Key, store.Always)) // not written by DisputeHold
	}
	accountID, currency := entry.SK[:i], entry.SK[i+1:]
	var d debtor
	if err := json.Unmarshal(entry.Data, &d); err != nil {
		return false, apierr.Wrap("ledger.Recover", apierr.Internal, err)
	}
	f, err := ReadFunds(ctx, st, accountID, currency)
	if err != nil {
		return false, err
	}
	drop := store.Delete(entry.Key, store.IfVersion(entry.Version))
	if f.Owed >= 0 {
		err := st.Write(ctx, drop)
		if _, lost := store.IsConditionFailed(err); lost {
			return false, nil // owed again meanwhile: the next run
		}
		return false, err
	}
	x := min(f.Available, -f.Owed)
	if x <= 0 {
		return false, nil // nothing available yet
	}
	var b Batch
	now = now.UTC()
	b.Add(Entry{ID: ids.NewAt(now), AccountID: accountID, Type: EntryDebtRecovery, Currency: currency, Livemode: d.Livemode,
		Source: Source{Type: SourceNegativeBalance, ID: currency}, CreatedAt: now,
		Postings: []Posting{{Available, -x}, {Owed, x}}})
	b.guard(accountID, currency, Owed, store.IfVersion(f.OwedVersion))
	if x == -f.Owed {
		b.extra = append(b.extra, drop)
	}
	ops, err := b.Ops(now)
	if err != nil {
		return false, err
	}
	err = st.Write(ctx, ops...)
	if _, lost := store.IsConditionFailed(err); lost {
		return false, nil
	}
	if err != nil {
		return false, apierr.Wrap("ledger.Recover", apierr.Unavailable, err)
	}
	return true, nil
}
