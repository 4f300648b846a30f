package ledger_test

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	accountsrepo "github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/store/dueindex"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("embedded", func(t *testing.T) {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		f(t, st)
	})
	t.Run("dynamodb", func(t *testing.T) { f(t, dynamotest.New(t, nil)) })
}

var ctx = context.Background()

func write(t *testing.T, st store.Store, b *ledger.Batch, now time.Time) error {
	t.Helper()
	ops, err := b.Ops(now)
	require.NoError(t, err)
	return st.Write(ctx, ops...)
}

func balance(t *testing.T, st store.Store, account, currency string, a ledger.Account) int64 {
	t.Helper()
	total := ledgertest.BalanceOf
	if a.External() {
		total = ledgertest.ExternalTotal
	}
	n, err := total(ctx, st, account, currency, a)
	require.NoError(t, err)
	return n
}

func check(t *testing.T, st store.Store, account string) ledger.Report {
	t.Helper()
	r, err := ledger.Check(ctx, st, account)
	require.NoError(t, err)
	return r
}

func tx(id string) ledger.Source { return ledger.Source{Type: ledger.SourceTransaction, ID: id} }

func TestEntryRules(t *testing.T) {
	e := ledger.Entry{ID: ids.New(), AccountID: "a", Type: ledger.EntryCapture, Currency: "EUR", Source: tx("p1"),
		Postings: []ledger.Posting{{Account: ledger.Processor, Amount: -100}, {Account: ledger.Pending, Amount: 100}}}
	require.NoError(t, e.Validate())
	for name, mutate := range map[string]func(*ledger.Entry){
		"unbalanced":      func(e *ledger.Entry) { e.Postings[1].Amount = 99 },
		"one posting":     func(e *ledger.Entry) { e.Postings = e.Postings[:1] },
		"zero posting":    func(e *ledger.Entry) { e.Postings = append(e.Postings, ledger.Posting{Account: ledger.Fees}) },
		"account twice":   func(e *ledger.Entry) { e.Postings[1].Account = ledger.Processor },
		"unknown account": func(e *ledger.Entry) { e.Postings[1].Account = "savings" },
		"bad partner":     func(e *ledger.Entry) { e.Postings[1].Account = ledger.Partner("a b") },
		"unknown type":    func(e *ledger.Entry) { e.Type = "gift" },
		"unknown source":  func(e *ledger.Entry) { e.Source.Type = "gift" },
	} {
		c := e
		c.Postings = append([]ledger.Posting(nil), e.Postings...)
		mutate(&c)
		assert.Error(t, c.Validate(), name)
		var b ledger.Batch
		b.Add(c)
		_, err := b.Ops(time.Now())
		assert.True(t, apierr.Is(err, apierr.Internal), "%s: a batch with a broken entry writes nothing", name)
	}
}

func TestPolicyFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	p, err := ledger.PolicyFromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, ledger.Policy{}, p, "the sandbox: settled at once, no fee")
	p, err = ledger.PolicyFromEnv(env(map[string]string{"SETTLEMENT_DELAY": "48h", "PROCESSING_FEE_BPS": "290"}))
	require.NoError(t, err)
	assert.Equal(t, ledger.Policy{SettlementDelay: 48 * time.Hour, FeeBps: 290}, p)
	assert.EqualValues(t, 2, p.Fee(99), "rounded down: 99 x 2.9% = 2.871")
	for _, bad := range []map[string]string{{"SETTLEMENT_DELAY": "2 days"}, {"SETTLEMENT_DELAY": "-1h"},
		{"PROCESSING_FEE_BPS": "10001"}, {"PROCESSING_FEE_BPS": "2.5"}, {"PROCESSING_FEE_BPS": "-1"}} {
		_, err := ledger.PolicyFromEnv(env(bad))
		assert.Error(t, err, "%v", bad)
	}
}

func TestMulDivIsExactPastInt64Products(t *testing.T) {
	assert.EqualValues(t, 333333333333333, ledger.MulDiv(1_000_000_000_000_000, 1, 3))
	assert.EqualValues(t, 999_999_999_999_999, ledger.MulDiv(999_999_999_999_999, 999_999_999_999_999, 999_999_999_999_999))
	assert.EqualValues(t, 0, ledger.MulDiv(0, 5, 7))
}

// TestCaptureSettledAtOnceAndRefund: the sandbox's policy (no delay)
// settles a capture in its own entry (processor -> available, no settlement
// entry through pending), so a refund may follow at once;
// the check finds the books consistent; on both stores.
func TestCaptureSettledAtOnceAndRefund(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now()
		var b ledger.Batch
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx("p1"), Amount: 5000}, now)
		require.Len(t, b.Entries, 1, "settled at once: one entry")
		assert.Equal(t, []ledger.Posting{{Account: ledger.Processor, Amount: -5000}, {Account: ledger.Available, Amount: 5000}}, b.Entries[0].Postings)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 5000, balance(t, st, acct, "EUR", ledger.Available))
		assert.EqualValues(t, 0, balance(t, st, acct, "EUR", ledger.Pending))
		assert.EqualValues(t, -5000, balance(t, st, acct, "EUR", ledger.Processor))

		b = ledger.Batch{}
		b.Refund(ledger.Refund{AccountID: acct, Currency: "EUR", Source: ledger.Source{Type: ledger.SourceRefund, ID: "r1"}, Amount: 1250}, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 3750, balance(t, st, acct, "EUR", ledger.Available))

		b = ledger.Batch{}
		b.Refund(ledger.Refund{AccountID: acct, Currency: "EUR", Source: ledger.Source{Type: ledger.SourceRefund, ID: "r2"}, Amount: 3751}, now)
		ops, err := b.Ops(now)
		require.NoError(t, err)
		err = st.Write(ctx, ops...)
		e := ledger.Insufficient(err, ops, "amount")
		require.NotNil(t, e, "%v", err)
		assert.Equal(t, apierr.InsufficientFunds, apierr.KindOf(e))
		assert.Equal(t, "amount", apierr.As(e).Param)
		assert.Contains(t, apierr.As(e).Message, "37.50")
		assert.EqualValues(t, 3750, balance(t, st, acct, "EUR", ledger.Available), "nothing written")

		r := check(t, st, acct)
		assert.True(t, r.OK(), r.String())
		assert.Equal(t, 2, r.Entries, "the capture and one refund")
	})
}

// TestSettlementDelayHoldsFundsInPending: with a delay the capture's funds
// stay pending until the settlement task runs after it; two tasks racing
// settle each capture once; on both stores.
func TestSettlementDelayHoldsFundsInPending(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now().UTC()
		pol := ledger.Policy{SettlementDelay: time.Hour, FeeBps: 100}
		var b ledger.Batch
		b.Capture(pol, ledger.Capture{AccountID: acct, Currency: "USD", Source: tx("p1"), Amount: 10000}, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 9900, balance(t, st, acct, "USD", ledger.Pending))
		assert.EqualValues(t, 100, balance(t, st, acct, "USD", ledger.Fees))
		assert.EqualValues(t, 0, balance(t, st, acct, "USD", ledger.Available))

		n, err := ledger.Settle(ctx, st, now.Add(59*time.Minute))
		require.NoError(t, err)
		assert.Zero(t, n, "not due yet")
		assert.EqualValues(t, 0, balance(t, st, acct, "USD", ledger.Available))

		var wg sync.WaitGroup
		counts := make([]int, 4)
		for i := range counts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				counts[i], _ = ledger.Settle(ctx, st, now.Add(time.Hour))
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, counts[0]+counts[1]+counts[2]+counts[3], "settled once: %v", counts)
		assert.EqualValues(t, 9900, balance(t, st, acct, "USD", ledger.Available))
		assert.EqualValues(t, 0, balance(t, st, acct, "USD", ledger.Pending))
		r := check(t, st, acct)
		assert.True(t, r.OK(), r.String())
	})
}

// TestSettleReadsBothLayoutsOfTheDueIndex: a capture's due entry is put in
// the one due-time index's layout (mdue2#, compact time, its settlement's
// data kept); an entry written before it (mdue#, the dashed time layout) is
// settled all the same, and once; on both stores.
func TestSettleReadsBothLayoutsOfTheDueIndex(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now().UTC()
		pol := ledger.Policy{SettlementDelay: time.Hour}
		var b ledger.Batch
		b.Capture(pol, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx("new"), Amount: 700}, now)
		b.Capture(pol, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx("old"), Amount: 300}, now)
		ops, err := b.Ops(now)
		require.NoError(t, err)
		var dues []store.Op
		for _, op := range ops {
			if strings.HasPrefix(op.Item.PK, "mdue") {
				dues = append(dues, op)
			}
		}
		require.Len(t, dues, 2)
		parent := b.Entries[1].ID
		want := now.Add(time.Hour).Format(dueindex.TimeLayout) + "#" + acct + "#" + parent
		assert.Equal(t, store.Key{Table: store.TableLedger, PK: "mdue2#" + strconv.Itoa(dueindex.Shard(parent)), SK: want}, dues[1].Item.Key)
		// The second as written before the one layout.
		dues[1].Item.Key = store.Key{Table: store.TableLedger, PK: "mdue#" + strconv.Itoa(dueindex.Shard(parent)),
			SK: now.Add(time.Hour).Format("2006-01-02T15:04:05.000000000Z") + "#" + acct + "#" + parent}
		require.NoError(t, st.Write(ctx, ops...))
		assert.EqualValues(t, 1000, balance(t, st, acct, "EUR", ledger.Pending))

		n, err := ledger.Settle(ctx, st, now.Add(59*time.Minute))
		require.NoError(t, err)
		assert.Zero(t, n, "not due yet")
		n, err = ledger.Settle(ctx, st, now.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 2, n, "both layouts settled")
		n, err = ledger.Settle(ctx, st, now.Add(2*time.Hour))
		require.NoError(t, err)
		assert.Zero(t, n, "each once")
		assert.EqualValues(t, 0, balance(t, st, acct, "EUR", ledger.Pending))
		assert.EqualValues(t, 1000, balance(t, st, acct, "EUR", ledger.Available))
		r := check(t, st, acct)
		assert.True(t, r.OK(), r.String())
	})
}

// TestCheckFindsPlantedDifferences: the check must be able to fail: a
// counter changed behind the entries' back, an entry written without its
// balances, and an unbalanced entry are each reported; on both stores.
func TestCheckFindsPlantedDifferences(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now()
		var b ledger.Batch
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx("p1"), Amount: 700}, now)
		require.NoError(t, write(t, st, &b, now))
		require.True(t, check(t, st, acct).OK())

		// A counter moved with no entry.
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "EUR", ledger.Available), 5, false, store.Always)))
		r := check(t, st, acct)
		require.False(t, r.OK())
		require.Len(t, r.Differences, 1)
		assert.Equal(t, ledger.Difference{AccountID: acct, Currency: "EUR", Account: ledger.Available, Stored: 705, Derived: 700}, r.Differences[0])
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "EUR", ledger.Available), -5, false, store.Always)))
		require.True(t, check(t, st, acct).OK())

		// An entry whose balances were never written (a currency with no counter).
		b = ledger.Batch{}
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "JPY", Source: tx("p2"), Amount: 300}, now)
		ops, err := b.Ops(now)
		require.NoError(t, err)
		var entriesOnly []store.Op
		for _, op := range ops {
			if op.Item.PK == ledger.EntryKey(acct, "x").PK {
				entriesOnly = append(entriesOnly, op)
			}
		}
		require.NoError(t, st.Write(ctx, entriesOnly...))
		r = check(t, st, acct)
		assert.Len(t, r.Differences, 1, "JPY available has no counter (processor keeps none): %s", r)

		// An unbalanced entry, written by hand.
		other := ids.New()
		require.NoError(t, st.Write(ctx, store.Put(store.Item{Key: ledger.EntryKey(other, ids.New()),
			Data: []byte(`{"id":"x","account_id":"` + other + `","type":"capture","currency":"EUR","postings":[{"account":"processor","amount":-5},{"account":"pending","amount":4}]}`)}, store.IfAbsent)))
		r = check(t, st, other)
		assert.Len(t, r.Broken, 1, r.String())
		assert.Len(t, r.Differences, 1, "pending has no counter: %s", r)
		assert.Equal(t, []ledger.Difference{{AccountID: other, Currency: "EUR", Account: ledger.Processor, Derived: -5}}, r.External)
	})
}

// TestExternalAccountsKeepNoCounter: a capture and a refund post to the
// processor but write no counter for it (one balance item fewer in each
// transaction); its total is the sum of its postings; BalanceOf refuses to
// read it; a counter that books written before the rule hold is neither
// listed by Balances nor compared by Check. On both stores.
func TestExternalAccountsKeepNoCounter(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now()
		var b ledger.Batch
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx("p1"), Amount: 5000}, now)
		ops, err := b.Ops(now)
		require.NoError(t, err)
		var adds []string
		for _, op := range ops {
			if ledger.IsBalanceOp(op) {
				adds = append(adds, op.Item.SK)
			}
		}
		assert.Equal(t, []string{"EUR#available"}, adds, "a capture settled at once adds to available alone")
		require.NoError(t, st.Write(ctx, ops...))
		b = ledger.Batch{}
		b.Refund(ledger.Refund{AccountID: acct, Currency: "EUR", Source: tx("r1"), Amount: 1200}, now)
		require.NoError(t, write(t, st, &b, now))

		_, err = st.Get(ctx, ledger.BalanceKey(acct, "EUR", ledger.Processor))
		assert.ErrorIs(t, err, store.ErrNotFound, "no processor counter")
		total, err := ledgertest.ExternalTotal(ctx, st, acct, "EUR", ledger.Processor)
		require.NoError(t, err)
		assert.EqualValues(t, -5000+1200, total)
		none, err := ledgertest.ExternalTotal(ctx, st, acct, "USD", ledger.Processor)
		require.NoError(t, err)
		assert.Zero(t, none)
		_, err = ledgertest.BalanceOf(ctx, st, acct, "EUR", ledger.Processor)
		require.Error(t, err)
		assert.Equal(t, apierr.Internal, apierr.KindOf(err), "an external account has no counter to read")
		_, err = ledgertest.ExternalTotal(ctx, st, acct, "EUR", ledger.Available)
		require.Error(t, err)
		assert.Equal(t, apierr.Internal, apierr.KindOf(err), "available is read from its counter")

		// A counter left by books written before the rule: stale, ignored.
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "EUR", ledger.Processor), -777, false, store.Always)))
		bs, err := ledger.Balances(ctx, st, acct)
		require.NoError(t, err)
		require.Len(t, bs, 1)
		assert.Equal(t, ledger.Available, bs[0].Account)
		assert.EqualValues(t, 3800, bs[0].Amount)
		r := check(t, st, acct)
		assert.True(t, r.OK(), r.String())
		assert.Equal(t, []ledger.Difference{{AccountID: acct, Currency: "EUR", Account: ledger.Processor, Derived: -3800}}, r.External)
	})
}

// TestCheckAllReadsEveryAccount: the accounts index reaches every account
// that posted, and the ledger's marks an account whose books were written
// before that index, without a Scan.
func TestCheckAllReadsEveryAccount(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		now := time.Now()
		var accounts []string
		repo := accountsrepo.NewRepo(st, nil)
		for i := 0; i < 5; i++ {
			a, err := repo.Create(ctx, accountsrepo.NewAccount{Name: "Shop", Mode: accountsrepo.Test})
			require.NoError(t, err)
			acct := a.ID
			if i == 4 {
				// Books from before the accounts index: the ledger's mark.
				acct = ids.New()
				require.NoError(t, st.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableLedger, PK: "mlacct#0", SK: acct}, Data: []byte("{}")}, store.Always)))
			}
			accounts = append(accounts, acct)
			var b ledger.Batch
			b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "EUR", Source: tx(ids.New()), Amount: int64(100 + i)}, now)
			require.NoError(t, write(t, st, &b, now))
		}
		r, err := ledger.CheckAll(ctx, st)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, r.Accounts, 5)
		assert.True(t, r.OK(), r.String())
		for _, acct := range []string{accounts[3], accounts[4]} {
			require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "EUR", ledger.Pending), 1, false, store.Always)))
			r, err = ledger.CheckAll(ctx, st)
			require.NoError(t, err)
			require.False(t, r.OK())
			assert.Equal(t, acct, r.Differences[len(r.Differences)-1].AccountID, "found through its index")
			require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "EUR", ledger.Pending), -1, false, store.Always)))
		}
	})
}

// TestSplitSharesAndReversalsAreExact: random splits (amounts and
// percentages, fees borne by some parts), random partial captures and
// refunds: every entry balances, each part receives exactly its share when
// all is captured, refunds take back in proportion (rounded down per part,
// never more than received, all of it on a full refund), the parts and the
// merchant's share of each refund sum to the refund exactly, and no balance
// goes below zero.
func TestSplitSharesAndReversalsAreExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 7))
	for round := 0; round < 300; round++ {
		amount := 1 + rng.Int64N(1_000_000)
		if round%7 == 0 {
			amount = 1 + rng.Int64N(20)
		}
		s := &ledger.Split{ID: ids.New()}
		n := 1 + rng.IntN(5)
		left := amount
		for i := 0; i < n && left > 0; i++ {
			p := ledger.SplitPart{Reference: "partner-" + string(rune('a'+i)), PaysFees: rng.IntN(3) == 0}
			if rng.IntN(2) == 0 {
				v := 1 + rng.Int64N(left)
				p.Amount = &v
				left -= v
			} else {
				v := 1 + rng.Int64N(100)
				p.Percentage = &v
				if ledger.MulDiv(amount, v, 100) > left {
					continue
				}
				left -= ledger.MulDiv(amount, v, 100)
			}
			s.Parts = append(s.Parts, p)
		}
		if len(s.Parts) == 0 {
			continue
		}
		require.NoError(t, s.Resolve(amount), "round %d", round)
		pol := ledger.Policy{FeeBps: rng.Int64N(400)}
		if round%5 == 0 {
			pol.SettlementDelay = time.Hour
		}
		totals := map[ledger.Account]int64{}
		post := func(b *ledger.Batch) {
			for _, e := range b.Entries {
				require.NoError(t, e.Validate(), "round %d", round)
				for _, p := range e.Postings {
					totals[p.Account] += p.Amount
				}
			}
		}
		// Captures: a few partial ones, then the rest.
		var captured int64
		for captured < amount {
			c := amount - captured
			if rng.IntN(3) > 0 && c > 1 {
				c = 1 + rng.Int64N(c-1)
			}
			var b ledger.Batch
			b.Capture(pol, ledger.Capture{AccountID: "a", Currency: "EUR", Source: tx("p"), Amount: c, Split: s,
				Authorised: amount, CapturedBefore: captured}, time.Now())
			post(&b)
			var pending int64
			for _, e := range b.Entries {
				for _, p := range e.Postings {
					if p.Account == ledger.Pending {
						pending += p.Amount
					}
					if _, ok := p.Account.PartnerRef(); ok {
						assert.Positive(t, p.Amount, "round %d: a capture only credits partners", round)
					}
				}
			}
			assert.GreaterOrEqual(t, pending, int64(0), "round %d: a capture never takes from pending", round)
			captured += c
		}
		var fees int64
		for _, p := range s.Parts {
			assert.Equal(t, p.Share, p.Captured, "round %d: a part gets exactly its share of a full capture", round)
			assert.Equal(t, p.Credited(), totals[ledger.Partner(p.Reference)], "round %d", round)
			assert.LessOrEqual(t, p.Fees, p.Captured)
			fees += p.Fees
		}
		assert.LessOrEqual(t, fees, totals[ledger.Fees])
		// Refunds: partial ones, then the rest.
		var refunded int64
		for refunded < captured {
			r := captured - refunded
			if rng.IntN(3) > 0 && r > 1 {
				r = 1 + rng.Int64N(r-1)
			}
			before := map[string]int64{}
			for _, p := range s.Parts {
				before[p.Reference] = p.Reversed
			}
			var b ledger.Batch
			b.Refund(ledger.Refund{AccountID: "a", Currency: "EUR", Source: ledger.Source{Type: ledger.SourceRefund, ID: ids.New()},
				Amount: r, Split: s, Captured: captured, RefundedBefore: refunded}, time.Now())
			post(&b)
			var parts int64
			for _, p := range s.Parts {
				d := p.Reversed - before[p.Reference]
				assert.GreaterOrEqual(t, d, int64(0))
				parts += d
			}
			// The merchant bears r - parts; with the parts that sums to r.
			var refundEntry int64
			for _, p := range b.Entries[0].Postings {
				if p.Account == ledger.Processor {
					refundEntry = p.Amount
				}
			}
			assert.Equal(t, r, refundEntry, "round %d", round)
			refunded += r
			for _, p := range s.Parts {
				assert.LessOrEqual(t, p.Reversed, p.Credited(), "round %d: never more than received", round)
				assert.GreaterOrEqual(t, totals[ledger.Partner(p.Reference)], int64(0))
			}
		}
		for _, p := range s.Parts {
			assert.Equal(t, p.Credited(), p.Reversed, "round %d: a full refund takes back all the part received", round)
			assert.Zero(t, totals[ledger.Partner(p.Reference)])
		}
		var sum int64
		for _, v := range totals {
			sum += v
		}
		assert.Zero(t, sum)
		assert.Zero(t, totals[ledger.Processor], "round %d: refunded in full, nothing is left with the processor", round)
		assert.Equal(t, -totals[ledger.Fees], totals[ledger.Pending]+totals[ledger.Available],
			"round %d: fees are not returned by refunds: the merchant bears them", round)
	}
}

// TestSplitOfTwoHalvesCapturedInTwo: a payment of 2 split 1 and 1 (the
// merchant's share 0), captured 1 then 1: the first unit goes to a partner,
// not to the merchant, so the second capture can give the other partner its
// unit (rounding each part down alone would give the merchant the first
// unit and ask it back from pending).
func TestSplitOfTwoHalvesCapturedInTwo(t *testing.T) {
	one := int64(1)
	s := &ledger.Split{ID: ids.New(), Parts: []ledger.SplitPart{{Reference: "a", Amount: &one}, {Reference: "b", Amount: &one}}}
	require.NoError(t, s.Resolve(2))
	for before := int64(0); before < 2; before++ {
		var b ledger.Batch
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: "x", Currency: "EUR", Source: tx("p"), Amount: 1, Split: s,
			Authorised: 2, CapturedBefore: before}, time.Now())
		require.Len(t, b.Entries, 2, "capture and split, nothing for the merchant to settle")
		assert.Equal(t, []ledger.Posting{{Account: ledger.Pending, Amount: -1}, {Account: ledger.Partner([]string{"a", "b"}[before]), Amount: 1}},
			b.Entries[1].Postings)
	}
	assert.EqualValues(t, 1, s.Parts[0].Captured)
	assert.EqualValues(t, 1, s.Parts[1].Captured)
}

func TestSplitResolveRefusesBadParts(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	cases := []struct {
		name  string
		parts []ledger.SplitPart
		param string
		code  string
	}{
		{"exceeds the payment", []ledger.SplitPart{{Reference: "a", Amount: i(600)}, {Reference: "b", Amount: i(500)}}, "parts", "split_exceeds_payment"},
		{"percentages exceed", []ledger.SplitPart{{Reference: "a", Percentage: i(60)}, {Reference: "b", Percentage: i(41)}}, "parts", "split_exceeds_payment"},
		{"negative amount", []ledger.SplitPart{{Reference: "a", Amount: i(-1)}}, "parts[0].amount", ""},
		{"zero amount", []ledger.SplitPart{{Reference: "a", Amount: i(0)}}, "parts[0].amount", ""},
		{"amount above the payment", []ledger.SplitPart{{Reference: "a", Amount: i(1001)}}, "parts[0].amount", ""},
		{"percentage above 100", []ledger.SplitPart{{Reference: "a", Percentage: i(101)}}, "parts[0].percentage", ""},
		{"negative percentage", []ledger.SplitPart{{Reference: "a", Percentage: i(-5)}}, "parts[0].percentage", ""},
		{"both", []ledger.SplitPart{{Reference: "a", Percentage: i(5), Amount: i(5)}}, "parts[0].percentage", ""},
		{"neither", []ledger.SplitPart{{Reference: "a"}}, "parts[0].amount", ""},
		{"bad reference", []ledger.SplitPart{{Reference: "a#b", Amount: i(5)}}, "parts[0].reference", ""},
		{"reference twice", []ledger.SplitPart{{Reference: "a", Amount: i(5)}, {Reference: "a", Amount: i(5)}}, "parts[1].reference", ""},
		{"no parts", nil, "parts", ""},
	}
	for _, c := range cases {
		s := ledger.Split{Parts: c.parts}
		err := s.Resolve(1000)
		require.Error(t, err, c.name)
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind, c.name)
		assert.Equal(t, c.param, e.Param, c.name)
		if c.code != "" {
			assert.Equal(t, c.code, e.Code.Name(), c.name)
		}
	}
	s := ledger.Split{Parts: []ledger.SplitPart{{Reference: "a", Percentage: i(33)}, {Reference: "b", Amount: i(670)}}}
	require.NoError(t, s.Resolve(1000), "33% + 670 = 1000: the whole payment")
	assert.EqualValues(t, 330, s.Parts[0].Share)
}
