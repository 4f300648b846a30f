package dynamostore_test

import (
	"bytes"
	"context"
	crand "crypto/rand"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
)

// chainWrites submits n writes chained on one counter, as the orders of one
// balance are: write i debits 10 under version i, puts its own record and
// checks the shared product's version. It returns the verdicts in order.
func chainWrites(t *testing.T, s *dynamostore.Store, counter, product store.Key, prefix string, n int) []error {
	ctx := context.Background()
	waits := make([]func() error, n)
	for i := range n {
		rec := store.Key{Table: store.TableOrders, PK: prefix, SK: fmt.Sprintf("%03d", i)}
		w, err := s.Submit(ctx,
			store.Put(store.Item{Key: rec, Data: []byte("order")}, store.IfAbsent),
			store.Add(counter, -10, true, store.IfVersion(int64(i+1))),
			store.Check(product, store.IfVersion(1)))
		require.NoError(t, err)
		waits[i] = w
	}
	errs := make([]error, n)
	for i, w := range waits {
		errs[i] = w()
	}
	return errs
}

// TestSubmitCombinesChainedWrites: writes handed over one after another on
// one versioned counter share TransactWriteItems calls (one add of the sum,
// one check of the shared item, each write's own items), and the counter
// ends exactly where the writes one by one would leave it, version included.
func TestSubmitCombinesChainedWrites(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	s := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	ctx := context.Background()
	bal := store.Key{Table: store.TableLedger, PK: "acct", SK: "balance"}
	prod := store.Key{Table: store.TableCatalog, PK: "acct", SK: "product"}
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: bal, N: 1000}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: prod, Data: []byte("p")}, store.IfAbsent)))
	counter.Reset()
	const n = 60
	for i, err := range chainWrites(t, s, bal, prod, "chain", n) {
		require.NoError(t, err, "write %d", i)
	}
	it, err := s.Get(ctx, bal)
	require.NoError(t, err)
	assert.EqualValues(t, 1000-10*n, it.N)
	assert.EqualValues(t, 1+n, it.Version, "the version moves on once per write")
	stats := s.CombineStats()
	t.Logf("%d writes: %+v, calls %v", n, stats, counter.Counts())
	assert.Less(t, counter.Counts()["TransactWriteItems"], n, "chained writes share calls")
	assert.Zero(t, stats.Fallbacks)
	// Every write's own item is there.
	page, err := s.Query(ctx, store.Query{Table: store.TableOrders, PK: "chain", Limit: 100})
	require.NoError(t, err)
	assert.Len(t, page.Items, n)
}

// TestSubmitFailureFailsOnlyItsOwnWrite: one write of a chain fails its own
// condition (its record exists already). The writes before it succeed, even
// those that shared its call; it fails on its own item; those after it,
// built on its outcome, fail their version condition with the counter as
// it stands, exactly as they would have one by one.
func TestSubmitFailureFailsOnlyItsOwnWrite(t *testing.T) {
	s := dynamotest.New(t, nil)
	ctx := context.Background()
	bal := store.Key{Table: store.TableLedger, PK: "acct", SK: "balance"}
	prod := store.Key{Table: store.TableCatalog, PK: "acct", SK: "product"}
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: bal, N: 1000}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: prod, Data: []byte("p")}, store.IfAbsent)))
	const n, bad = 30, 7
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "chain", SK: fmt.Sprintf("%03d", bad)}, Data: []byte("taken")}, store.IfAbsent)))
	errs := chainWrites(t, s, bal, prod, "chain", n)
	for i, err := range errs {
		switch {
		case i < bad:
			require.NoError(t, err, "write %d", i)
		case i == bad:
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "write %d: %v", i, err)
			assert.Equal(t, 0, cf.Index, "its own record")
		default:
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "write %d: %v", i, err)
			assert.Equal(t, 1, cf.Index, "the counter's version")
			require.NotNil(t, cf.Current)
			assert.EqualValues(t, 1+bad, cf.Current.Version)
			assert.EqualValues(t, 1000-10*bad, cf.Current.N)
		}
	}
	it, err := s.Get(ctx, bal)
	require.NoError(t, err)
	assert.EqualValues(t, 1000-10*bad, it.N)
	assert.EqualValues(t, 1+bad, it.Version)
	t.Logf("%+v", s.CombineStats())
}

// TestCallCounterUnits: the counter reads the capacity DynamoDB reports (the
// cost table's source): a small write 1 WCU, a consistent read 1 RCU, a
// transaction twice its items' units (1 + 2 for an item of 1.5 KB).
func TestCallCounterUnits(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	s := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	ctx := context.Background()
	k := store.Key{Table: store.TableAccounts, PK: "acct", SK: "key"}
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte("x")}, store.IfAbsent)))
	assert.Equal(t, dynamostore.Units{Write: 1}, counter.Units())
	counter.Reset()
	_, err := s.Get(ctx, k)
	require.NoError(t, err)
	assert.Equal(t, dynamostore.Units{Read: 1}, counter.Units())
	counter.Reset()
	// 1.5 KB that does not deflate (pack.go) stays 1.5 KB.
	noise := make([]byte, 1500)
	_, _ = crand.Read(noise)
	require.NoError(t, s.Write(ctx, store.Add(k, 1, false, store.Always), store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "o", SK: "o"}, Data: noise}, store.Always)))
	assert.Equal(t, dynamostore.Units{Write: 6}, counter.Units())
	counter.Reset()
	// An event record of 1.1 KB deflates under a KB: 2 units in a
	// transaction, not 4.
	event := bytes.Repeat([]byte(`{"type":"payment.authorised","amount":{"value":1000,"currency":"EUR"}},`), 16)[:1100]
	require.NoError(t, s.Write(ctx, store.Add(k, 1, false, store.Always), store.Put(store.Item{Key: store.Key{Table: store.TableEvents, PK: "e", SK: "e"}, Data: event}, store.Always)))
	assert.Equal(t, dynamostore.Units{Write: 4}, counter.Units())
}
