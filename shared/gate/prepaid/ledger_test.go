package prepaid_test

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// stores runs a test against the embedded store and DynamoDB Local (skipped
// without DYNAMODB_ENDPOINT unless REQUIRE_REAL_SERVERS=1).
func stores(t *testing.T, run func(t *testing.T, st store.Store)) {
	t.Run("embedded", func(t *testing.T) {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), time.Now)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		run(t, st)
	})
	t.Run("dynamodb", func(t *testing.T) { run(t, dynamotest.New(t, nil)) })
}

const acct = "0190f3a2-b4c4-7d1e-8a00-000000000001"

func TestBalanceAbsentIsZero(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		l := prepaid.New(st, nil)
		b, err := l.Balance(context.Background(), acct, "USD")
		require.NoError(t, err)
		require.Equal(t, prepaid.Balance{AccountID: acct, Currency: "USD"}, b)
		bs, err := l.Balances(context.Background(), acct)
		require.NoError(t, err)
		require.Empty(t, bs)
	})
}

func TestDebitAndCreditOps(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		l := prepaid.New(st, func() time.Time { return now })
		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "USD", 1000, now)))
		b, err := l.Balance(ctx, acct, "USD")
		require.NoError(t, err)
		require.Equal(t, int64(1000), b.Available)
		require.Equal(t, now, b.UpdatedAt)
		require.Positive(t, b.Version)

		// A stale version fails even when the funds suffice.
		err = st.Write(ctx, prepaid.DebitOp(acct, "USD", 100, b.Version+1, now))
		_, ok := store.IsConditionFailed(err)
		require.True(t, ok)
		require.False(t, prepaid.IsInsufficient(err, 0, 100))

		// More than the balance fails and reports insufficiency.
		err = st.Write(ctx, prepaid.DebitOp(acct, "USD", 1001, 0, now))
		require.True(t, prepaid.IsInsufficient(err, 0, 1001))
		err = st.Write(ctx, prepaid.DebitOp(acct, "USD", 1001, b.Version, now))
		require.True(t, prepaid.IsInsufficient(err, 0, 1001))

		// At the read version, exactly all of it.
		later := now.Add(time.Minute)
		require.NoError(t, st.Write(ctx, prepaid.DebitOp(acct, "USD", 1000, b.Version, later)))
		b2, err := l.Balance(ctx, acct, "USD")
		require.NoError(t, err)
		require.Equal(t, int64(0), b2.Available)
		require.Equal(t, b.Version+1, b2.Version)
		require.Equal(t, later, b2.UpdatedAt)

		// Debiting an absent balance fails.
		require.True(t, prepaid.IsInsufficient(st.Write(ctx, prepaid.DebitOp(acct, "EUR", 1, 0, now)), 0, 1))

		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "EUR", 5, now)))
		bs, err := l.Balances(ctx, acct)
		require.NoError(t, err)
		require.Len(t, bs, 2)
		require.Equal(t, []string{"EUR", "USD"}, []string{bs[0].Currency, bs[1].Currency})
	})
}

func TestConcurrentDebitsNeverGoNegative(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now()
		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "USD", 1000, now)))
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok := 0
		for range 40 {
			wg.Go(func() {
				err := st.Write(ctx, prepaid.DebitOp(acct, "USD", 100, 0, now))
				if err == nil {
					mu.Lock()
					ok++
					mu.Unlock()
					return
				}
				if !prepaid.IsInsufficient(err, 0, 100) {
					require.True(t, apierr.Is(err, apierr.Conflict), "%v", err)
				}
			})
		}
		wg.Wait()
		b, err := prepaid.New(st, nil).Balance(ctx, acct, "USD")
		require.NoError(t, err)
		require.Equal(t, int64(1000-100*ok), b.Available)
		require.GreaterOrEqual(t, b.Available, int64(0))
		require.Equal(t, 10, ok, "every affordable debit succeeds once the race is over")
	})
}

func TestPostDepositValidation(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), time.Now)
	require.NoError(t, err)
	defer st.Close()
	l := prepaid.New(st, nil)
	long := fmt.Sprintf("%0129d", 0)
	for d, param := range map[prepaid.Deposit]string{
		{Currency: "XYZ", Amount: 1}:                           "currency_code",
		{Currency: "USD", Amount: 0}:                           "amount",
		{Currency: "USD", Amount: -5}:                          "amount",
		{Currency: "USD", Amount: 1, Method: "cash"}:           "method",
		{Currency: "USD", Amount: 1, ExternalRef: long}:        "external_ref",
		{Currency: "USD", Amount: 1, ExternalRef: "has space"}: "external_ref",
	} {
		_, _, err := l.PostDeposit(context.Background(), acct, d)
		require.Equal(t, param, apierr.As(err).Param, "%+v", d)
	}
	bs, err := l.Balances(context.Background(), acct)
	require.NoError(t, err)
	require.Empty(t, bs)
}

func TestPostDepositOnceOnly(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := prepaid.New(st, nil)
		d, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 10000, Method: prepaid.MethodBankWire, ExternalRef: "BANK-1"})
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, "USD", d.Currency)
		require.Equal(t, prepaid.StatusPosted, d.Status)
		require.NotNil(t, d.PostedAt)

		again, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 999, ExternalRef: "BANK-1"})
		require.NoError(t, err)
		require.False(t, created)
		require.Equal(t, d.ID, again.ID)
		require.Equal(t, int64(10000), again.Amount, "the first deposit is returned")

		b, err := l.Balance(ctx, acct, "USD")
		require.NoError(t, err)
		require.Equal(t, int64(10000), b.Available)

		// The same reference on another account is another deposit.
		other := "0190f3a2-b4c4-7d1e-8a00-000000000002"
		_, created, err = l.PostDeposit(ctx, other, prepaid.Deposit{Currency: "USD", Amount: 1, ExternalRef: "BANK-1"})
		require.NoError(t, err)
		require.True(t, created)

		byRef, err := l.DepositByRef(ctx, acct, "BANK-1")
		require.NoError(t, err)
		require.Equal(t, d.ID, byRef.ID)
		_, err = l.DepositByRef(ctx, acct, "BANK-2")
		require.True(t, apierr.Is(err, apierr.NotFound))
	})
}

func TestConcurrentSameReferenceCreditsOnce(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := prepaid.New(st, nil)
		var wg sync.WaitGroup
		var mu sync.Mutex
		seen := map[string]int{}
		createdN := 0
		for range 20 {
			wg.Go(func() {
				d, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "EUR", Amount: 2500, ExternalRef: "WIRE-20"})
				require.NoError(t, err)
				mu.Lock()
				seen[d.ID]++
				if created {
					createdN++
				}
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Equal(t, 1, createdN)
		require.Len(t, seen, 1, "every caller gets the one deposit")
		b, err := l.Balance(ctx, acct, "EUR")
		require.NoError(t, err)
		require.Equal(t, int64(2500), b.Available)
		ds, next, err := l.Deposits(ctx, acct, prepaid.DepositFilter{}, 100, "")
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Empty(t, next)
	})
}

func TestConcurrentDistinctDepositsSumExactly(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := prepaid.New(st, nil)
		var wg sync.WaitGroup
		var want int64
		for i := range 30 {
			amount := int64(100 + i)
			want += amount
			wg.Go(func() {
				_, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: amount, ExternalRef: fmt.Sprintf("REF-%d", i)})
				require.NoError(t, err)
				require.True(t, created)
			})
		}
		wg.Wait()
		b, err := l.Balance(ctx, acct, "USD")
		require.NoError(t, err)
		require.Equal(t, want, b.Available)
		var n int
		for cursor := ""; ; {
			ds, next, err := l.Deposits(ctx, acct, prepaid.DepositFilter{Currency: "USD"}, 7, cursor)
			require.NoError(t, err)
			n += len(ds)
			if next == "" {
				break
			}
			cursor = next
		}
		require.Equal(t, 30, n)
	})
}

// TestCreditStopsAtMaxBalance: a credit that would take a balance past
// money.MaxBalance is refused by the store itself, atomically, on both
// adapters; a refund is not held to it; nothing wraps past int64.
func TestCreditStopsAtMaxBalance(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Date(2024, 3, 1, 12, 0, 0, 0, time.UTC)
		l := prepaid.New(st, func() time.Time { return now })
		bal := func() prepaid.Balance {
			b, err := l.Balance(ctx, acct, "USD")
			require.NoError(t, err)
			return b
		}
		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "USD", money.MaxBalance-5, now)))
		err := st.Write(ctx, prepaid.CreditOp(acct, "USD", 6, now))
		require.True(t, prepaid.IsBalanceFull(err), "%v", err)
		require.Equal(t, apierr.Invalid, apierr.KindOf(err))
		require.Equal(t, money.MaxBalance-5, bal().Available)
		require.Equal(t, int64(1), bal().Version, "nothing was written")

		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "USD", 5, now)), "exactly the maximum is allowed")
		require.Equal(t, money.MaxBalance, bal().Available)

		// A deposit past it: the clear 400, and no deposit recorded.
		_, _, err = l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 1, ExternalRef: "OVER"})
		e := apierr.As(err)
		require.Equal(t, apierr.Invalid, e.Kind)
		require.Equal(t, "balance_limit_exceeded", e.Code.Name())
		require.Equal(t, "amount", e.Param)
		require.Equal(t, "this amount would take the USD balance above its maximum of 1000000000000000.00 USD; nothing was credited", e.Message)
		_, err = l.DepositByRef(ctx, acct, "OVER")
		require.True(t, apierr.Is(err, apierr.NotFound), "the deposit was not stored: %v", err)

		// A refund (a failed order's charge) may pass MaxBalance, not int64.
		require.NoError(t, st.Write(ctx, prepaid.RefundOp(acct, "USD", money.MaxMinor, now)))
		require.Equal(t, money.MaxBalance+money.MaxMinor, bal().Available)
		require.NoError(t, st.Write(ctx, prepaid.DebitOp(acct, "USD", money.MaxMinor, 0, now)), "a debit from past the maximum works")
		require.NoError(t, st.Write(ctx, prepaid.RefundOp(acct, "USD", math.MaxInt64-money.MaxBalance, now)))
		err = st.Write(ctx, prepaid.RefundOp(acct, "USD", 1, now))
		require.ErrorIs(t, err, store.ErrOutOfRange)
		require.Equal(t, apierr.Invalid, apierr.KindOf(err), "a 400, never a wrapped negative balance")
		require.Equal(t, int64(math.MaxInt64), bal().Available)
	})
}

// TestConcurrentDepositsStopAtMaxBalance: 30 deposits race for room for 10;
// exactly 10 post, the others are balance_limit_exceeded, and the balance
// ends exactly at the maximum.
func TestConcurrentDepositsStopAtMaxBalance(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := prepaid.New(st, nil)
		const each = 1000
		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "EUR", money.MaxBalance-10*each, time.Now())))
		var posted, full atomic.Int64
		var wg sync.WaitGroup
		for i := range 30 {
			wg.Go(func() {
				_, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "EUR", Amount: each, ExternalRef: fmt.Sprintf("R-%d", i)})
				switch {
				case err == nil && created:
					posted.Add(1)
				case apierr.As(err).Code.Name() == "balance_limit_exceeded":
					full.Add(1)
				default:
					t.Errorf("deposit %d: created %v, %v", i, created, err)
				}
			})
		}
		wg.Wait()
		require.Equal(t, int64(10), posted.Load())
		require.Equal(t, int64(20), full.Load())
		b, err := l.Balance(ctx, acct, "EUR")
		require.NoError(t, err)
		require.Equal(t, money.MaxBalance, b.Available)
		ds, _, err := l.Deposits(ctx, acct, prepaid.DepositFilter{Currency: "EUR"}, 100, "")
		require.NoError(t, err)
		require.Len(t, ds, 10, "only the credited deposits are recorded")
	})
}
