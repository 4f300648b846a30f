package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Key layout (table ledger; the Gate API's prepaid balances live beside it
// under bal#, dep#, depref#):
//
//   - mbal#<account> / <currency>#<ledger account>: a balance, its amount
//     the item's counter N, changed only by store.Add ops in the transaction
//     of the entries that explain them. The external accounts have none
//     (Account.External); books written before that rule may still hold one,
//     no longer changed and never read.
//   - mbal#<account>#<beneficiary id> / <currency>#<ledger account>: a
//     beneficiary's two balances (beneficiary:<id>, beneficiary_reserved:<id>)
//     per currency, in a partition of their own.
//   - ment#<account> / <entry id>: an entry (UUIDv7 ids: time order).
//   - mdue2#<shard> / <available_on>#<account>#<capture entry id>: captured
//     funds waiting for the settlement delay (settlementDue, a
//     dueindex.Index); the settlement task reads the due ones and moves
//     them in one transaction with the entry's removal. Unlike other
//     due-time indexes, an entry keeps the settlement's data (the due
//     struct): the capture's transaction writes nothing else for it.
//   - mdue#<shard> / <available_on, 2006-01-02T15:04:05.000000000Z>#<account>#<capture entry id>:
//     the same, as written before the one due-time index; read by Settle
//     (the index's Legacy) until none is left, no longer written.
//   - mlacct#<shard> / <account>: the accounts that had books before the
//     accounts index (shared/platform/accounts) existed; read by CheckAll, no longer
//     written (a put with every posting cost two write units of each money
//     transaction).
//   - mowed#<shard> / <account>#<currency>: the debtors index (dispute.go).
//
// Every sharded partition spreads over dueindex.Shards by dueindex.Shard.

func balancePK(accountID string) string { return "mbal#" + accountID }
func entryPK(accountID string) string   { return "ment#" + accountID }

func accountPK(shard int) string { return "mlacct#" + strconv.Itoa(shard) }

// settlementDue is the due-time index of captured funds.
var settlementDue = dueindex.Index{Table: store.TableLedger, Prefix: "mdue2#",
	Legacy: &dueindex.Legacy{Prefix: "mdue#", TimeLayout: "2006-01-02T15:04:05.000000000Z"}}

// Prefixes are the partition prefixes the books own on the ledger table,
// with what lives there (the area declaration registers them).
var Prefixes = [][2]string{
	{"mbal#", "merchant ledger balances"},
	{"ment#", "merchant ledger entries"},
	{settlementDue.Prefix, "captured funds waiting for settlement, by time"},
	{settlementDue.Legacy.Prefix, "captured funds waiting for settlement, by time, as written before the one due-time index (read only)"},
	{"mlacct#", "the accounts that had merchant books before the accounts index (read only)"},
	{"mowed#", "the balances owed (negative), for their recovery"},
}

// BalanceKey addresses one balance of the merchant's books: a
// beneficiary's in the beneficiary's partition, the others in the
// merchant's.
func BalanceKey(accountID, currency string, a Account) store.Key {
	pk := balancePK(accountID)
	if id, _, ok := a.BeneficiaryID(); ok {
		pk = beneficiaryBalancePK(accountID, id)
	}
	return store.Key{Table: store.TableLedger, PK: pk, SK: currency + "#" + string(a)}
}

func beneficiaryBalancePK(accountID, beneficiaryID string) string {
	return balancePK(accountID) + "#" + beneficiaryID
}

// EntryKey addresses one entry.
func EntryKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: entryPK(accountID), SK: id}
}

// balanceBody is a balance item's Data: what the counter is, so the item
// reads alone; the amount is N.
type balanceBody struct {
	Currency  string    `json:"currency"`
	Account   Account   `json:"account"`
	UpdatedAt time.Time `json:"updated_at"`
}

// due is a capture waiting for its settlement.
type due struct {
	AccountID   string    `json:"account_id"`
	Currency    string    `json:"currency"`
	Amount      int64     `json:"amount"`
	Source      Source    `json:"source"`
	Parent      string    `json:"parent"` // the capture entry
	Livemode    bool      `json:"livemode"`
	AvailableOn time.Time `json:"available_on"`
}

func (d due) key() store.Key { return settlementDue.Key(d.AccountID, d.Parent, d.AvailableOn) }

// Batch gathers the entries of one business change, to be written in that
// change's transaction: Ops turns them into the entries' puts, one add per
// balance they touch (netted: a capture settled at once leaves pending
// unchanged and writes no add for it) and any settlement scheduled.
type Batch struct {
	Entries []Entry
	dues    []due
	// guards are conditions on some balances' adds (a release or a recovery
	// of the owed balance holds it at the version it was read at), and
	// extra the index writes that go with them (the debtors index).
	guards map[balRef]store.Cond
	extra  []store.Op
	// err is the first failure of a method that has no error to return;
	// Ops answers it.
	err error
}

// balRef names one balance of the books.
type balRef struct {
	account, currency string
	a                 Account
}

// guard conditions the add of one balance on cond.
func (b *Batch) guard(accountID, currency string, a Account, cond store.Cond) {
	if b.guards == nil {
		b.guards = map[balRef]store.Cond{}
	}
	b.guards[balRef{accountID, currency, a}] = cond
}

// Empty reports whether the batch moves nothing.
func (b *Batch) Empty() bool { return b == nil || len(b.Entries) == 0 }

// Add appends entries.
func (b *Batch) Add(e ...Entry) { b.Entries = append(b.Entries, e...) }

// fail keeps the first failure of a method with no error to return.
func (b *Batch) fail(op string, err error) {
	if b.err == nil {
		b.err = apierr.Wrap(op, apierr.Internal, err)
	}
}

// Ops are the batch's writes, in a fixed order: the entries (put-if-absent),
// the balances but the external ones, which keep no counter (store.Add,
// conditioned not to go below zero for every account but owed, bounded by
// money.MaxBalance, and for a guarded balance on its guard; with each
// beneficiary account its family's aggregate, by the same amount), the
// settlements due and the debtors index's writes. Errors: Internal when an
// entry breaks the rules of the books, or a method building the batch
// failed.
func (b *Batch) Ops(now time.Time) ([]store.Op, error) {
	if b.Empty() {
		return nil, nil
	}
	if b.err != nil {
		return nil, b.err
	}
	deltas := map[balRef]int64{}
	var order []balRef
	var ops []store.Op
	var err error
	for i := range b.Entries {
		e := &b.Entries[i]
		if err := e.Validate(); err != nil {
			return nil, err
		}
		data, err := json.Marshal(e)
		if err != nil {
			return nil, apierr.Wrap("ledger.Ops", apierr.Internal, err)
		}
		ops = append(ops, store.Put(store.Item{Key: EntryKey(e.AccountID, e.ID), Data: data}, store.IfAbsent))
		for _, p := range e.Postings {
			k := balRef{e.AccountID, e.Currency, p.Account}
			if _, seen := deltas[k]; !seen {
				order = append(order, k)
			}
			deltas[k] += p.Amount
		}
	}
	for _, k := range order {
		if agg, ok := k.a.aggregate(); ok {
			ak := balRef{k.account, k.currency, agg}
			if _, seen := deltas[ak]; !seen {
				order = append(order, ak)
			}
			deltas[ak] += deltas[k]
		}
	}
	for _, k := range order {
		d := deltas[k]
		if d == 0 || k.a.External() {
			continue // an external account keeps no counter (External)
		}
		cond, ok := b.guards[k]
		if !ok {
			cond = store.Always
		}
		op := store.Add(BalanceKey(k.account, k.currency, k.a), d, !k.a.MayBeNegative(), cond)
		if op.Item.Data, err = json.Marshal(balanceBody{Currency: k.currency, Account: k.a, UpdatedAt: now.UTC()}); err != nil {
			return nil, apierr.Wrap("ledger.Ops", apierr.Internal, err)
		}
		op.Max = money.MaxBalance
		ops = append(ops, op)
	}
	for _, d := range b.dues {
		data, err := json.Marshal(d)
		if err != nil {
			return nil, apierr.Wrap("ledger.Ops", apierr.Internal, err)
		}
		ops = append(ops, store.Put(store.Item{Key: d.key(), Data: data}, store.IfAbsent))
	}
	return append(ops, b.extra...), nil
}

// IsBalanceOp reports whether op changes a balance of the books.
func IsBalanceOp(op store.Op) bool {
	return op.Kind == store.OpAdd && op.Item.Table == store.TableLedger && strings.HasPrefix(op.Item.PK, "mbal#")
}

// Insufficient turns a write refused because a balance of the books would
// go below zero into the 400 insufficient_balance naming param, with the
// balance as it stood; ops are the ops whose index the failure counts in
// (for idempotency.Commit's error: the caller's ops). Any other error is nil.
func Insufficient(err error, ops []store.Op, param string) error {
	cf, ok := store.IsConditionFailed(err)
	if !ok || cf.Index < 0 || cf.Index >= len(ops) || !IsBalanceOp(ops[cf.Index]) {
		return nil
	}
	op := ops[cf.Index]
	var have int64
	if cf.Current != nil {
		have = cf.Current.N
	}
	if have+op.Delta >= 0 {
		return nil // not the balance: another condition of the op
	}
	currency, account, _ := strings.Cut(op.Item.SK, "#")
	what := account
	if id, reserved, ok := Account(account).BeneficiaryID(); ok && !reserved {
		what = "beneficiary " + id + "'s"
	}
	return &apierr.Error{Kind: apierr.InsufficientFunds, Param: param,
		Message: fmt.Sprintf("the %s %s balance is %s %s; this needs %s %s", what, currency, format(have, currency),
			currency, format(-op.Delta, currency), currency),
		Err: err}
}

func format(n int64, currency string) string {
	c, err := money.ParseCurrency(currency)
	if err != nil {
		return strconv.FormatInt(n, 10)
	}
	return money.FormatDecimal(n, c)
}

// IsOutOfRange reports whether err is a credit refused because a balance
// would pass money.MaxBalance.
func IsOutOfRange(err error) bool { return errors.Is(err, store.ErrOutOfRange) }

// MulDiv is floor(a*b/c) for a, b >= 0 and c > 0 with b <= c, exact: the
// product is taken on 128 bits, so amounts up to 2^63 cannot overflow.
func MulDiv(a, b, c int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c))
	return int64(q)
}
