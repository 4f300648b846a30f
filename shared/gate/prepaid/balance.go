// Package ledger holds an account's prepaid balances (one per currency) and
// the deposits that credit them. Balances change only through store.Add ops,
// so every debit and credit is atomic, a debit never takes a balance below
// zero and a deposit never takes it above money.MaxBalance; callers put
// DebitOp/CreditOp/RefundOp in their own transactions (orders, refunds) so
// the money moves with the record that explains it. It is the Gate API's
// prepaid balance, not the Pay API merchant's double-entry books
// (shared/domain/ledger, whose doc.go says how this one could move onto them).
package prepaid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Balance is one currency's available amount.
type Balance struct {
	AccountID string
	Currency  string
	Available int64 // minor units
	UpdatedAt time.Time
	// Version is the store version of the balance item; 0 when no balance has
	// ever been stored. DebitOp uses it to make balance_before exact.
	Version int64
}

// balanceBody is the Data of a balance item; the amount itself is the item's
// counter N.
type balanceBody struct {
	Currency  string    `json:"currency"`
	UpdatedAt time.Time `json:"updated_at"`
}

// maxCurrencies bounds the one query Balances makes; an account holds one row
// per currency, so this is far above any real count.
const maxCurrencies = 300

func balancePK(accountID string) string { return "bal#" + accountID }

// BalanceKey addresses the balance of accountID in currency.
func BalanceKey(accountID, currency string) store.Key {
	return store.Key{Table: store.TableLedger, PK: balancePK(accountID), SK: currency}
}

// Ledger reads balances and posts deposits.
type Ledger struct {
	st    store.Store
	clock func() time.Time
}

// New builds a ledger; nil clock means time.Now.
func New(st store.Store, clock func() time.Time) *Ledger {
	if clock == nil {
		clock = time.Now
	}
	return &Ledger{st: st, clock: clock}
}

// Balance is a consistent read of one balance. An absent balance is zero at
// Version 0.
func (l *Ledger) Balance(ctx context.Context, accountID, currency string) (Balance, error) {
	it, err := l.st.Get(ctx, BalanceKey(accountID, currency))
	if errors.Is(err, store.ErrNotFound) {
		return Balance{AccountID: accountID, Currency: currency}, nil
	}
	if err != nil {
		return Balance{}, apierr.Wrap("ledger.Balance", apierr.Internal, err)
	}
	return fromItem(accountID, it)
}

// Balances lists every currency the account holds, by currency code.
func (l *Ledger) Balances(ctx context.Context, accountID string) ([]Balance, error) {
	page, err := l.st.Query(ctx, store.Query{Table: store.TableLedger, PK: balancePK(accountID), Limit: maxCurrencies})
	if err != nil {
		return nil, apierr.Wrap("ledger.Balances", apierr.Internal, err)
	}
	out := make([]Balance, 0, len(page.Items))
	for _, it := range page.Items {
		b, err := fromItem(accountID, it)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out, nil
}

func fromItem(accountID string, it store.Item) (Balance, error) {
	b := Balance{AccountID: accountID, Currency: it.SK, Available: it.N, Version: it.Version}
	if len(it.Data) > 0 {
		var body balanceBody
		if err := json.Unmarshal(it.Data, &body); err != nil {
			return Balance{}, apierr.Wrap("ledger.balance", apierr.Internal, err)
		}
		b.UpdatedAt = body.UpdatedAt
	}
	return b, nil
}

// body is the Data written with every change, so updated_at moves with N
// (balanceBody's JSON). It is written out directly: a currency code (three
// letters, validated before any op is built) and an RFC 3339 time cannot
// fail to encode, and the balance ops have no error to return.
func body(currency string, now time.Time) []byte {
	return fmt.Appendf(nil, `{"currency":%s,"updated_at":%q}`, strconv.Quote(currency), now.UTC().Format(time.RFC3339Nano))
}

// DebitOp takes amount (> 0, minor units) off the balance inside the caller's
// transaction. It fails its condition when the balance would go below zero
// and, when version > 0, when the balance is no longer at that version, so the
// caller's balance_before/balance_after read at version are exact. A failed
// condition is a *store.ConditionFailedError whose Current is the balance now.
func DebitOp(accountID, currency string, amount int64, version int64, now time.Time) store.Op {
	cond := store.Always
	if version > 0 {
		cond = store.IfVersion(version)
	}
	op := store.Add(BalanceKey(accountID, currency), -amount, true, cond)
	op.Item.Data = body(currency, now)
	return op
}

// CreditOp adds amount (> 0, minor units) to the balance inside the caller's
// transaction (deposits). It creates the balance if absent and has no
// condition, but is bounded by money.MaxBalance in the store itself (the add
// and the check are one atomic step on both adapters): a credit that would
// pass it fails the whole write with store.ErrOutOfRange, which
// IsBalanceFull recognises and BalanceFull words for the client.
func CreditOp(accountID, currency string, amount int64, now time.Time) store.Op {
	op := store.Add(BalanceKey(accountID, currency), amount, false, store.Always)
	op.Item.Data = body(currency, now)
	op.Max = money.MaxBalance
	return op
}

// RefundOp gives amount (> 0, minor units) back to the balance inside the
// caller's transaction (a failed order's charge). Unlike CreditOp it is not
// held to money.MaxBalance: the money was in the balance before, and refusing
// it because deposits topped the balance up meanwhile would leave the order
// unable to fail. The store still refuses to pass int64 (ErrOutOfRange), which
// MaxBalance keeps out of reach: it would take some 9,000 pending orders of
// money.MaxMinor each.
func RefundOp(accountID, currency string, amount int64, now time.Time) store.Op {
	op := store.Add(BalanceKey(accountID, currency), amount, false, store.Always)
	op.Item.Data = body(currency, now)
	return op
}

// IsBalanceFull reports whether err is a write refused because a CreditOp in
// it would take a balance past money.MaxBalance.
func IsBalanceFull(err error) bool { return errors.Is(err, store.ErrOutOfRange) }

// BalanceFull is the 400 for a credit the balance in currency cannot take.
func BalanceFull(currency string) error {
	c, _ := money.ParseCurrency(currency)
	return apierr.New(CodeBalanceLimitExceeded, "this amount would take the %s balance above its maximum of %s %s; nothing was credited",
		currency, money.FormatDecimal(money.MaxBalance, c), currency)
}
