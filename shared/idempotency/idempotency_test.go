package idempotency

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/store/storetest"
)

func newStore(t *testing.T) (*Store, store.Store, *storetest.Clock) {
	clock := storetest.NewClock(time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC))
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), clock.Now)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return New(st, clock.Now), st, clock
}

func TestFingerprintIgnoresKeyOrderAndSpace(t *testing.T) {
	a := Fingerprint("POST", "/orders", []byte(`{"a":1,"b":{"c":"x"}}`))
	b := Fingerprint("POST", "/orders", []byte(` { "b" : {"c":"x"}, "a" : 1 } `))
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, Fingerprint("POST", "/orders", []byte(`{"a":2,"b":{"c":"x"}}`)))
	assert.NotEqual(t, a, Fingerprint("POST", "/other", []byte(`{"a":1,"b":{"c":"x"}}`)))
	// Large integers stay exact.
	assert.NotEqual(t, Fingerprint("POST", "/x", []byte(`{"n":9007199254740993}`)), Fingerprint("POST", "/x", []byte(`{"n":9007199254740992}`)))
}

func TestValidateKey(t *testing.T) {
	assert.Error(t, ValidateKey(""))
	assert.Error(t, ValidateKey(strings.Repeat("k", MaxKeyLen+1)))
	assert.Error(t, ValidateKey("tab\there"))
	assert.NoError(t, ValidateKey(strings.Repeat("k", MaxKeyLen)))
	assert.NoError(t, ValidateKey("550e8400-e29b-41d4-a716-446655440000"))
}

func TestClaimCompleteReplay(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	r := Request{Account: "a", Key: "k", Fingerprint: "f1"}
	res, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.Nil(t, res)
	_, err = s.Claim(ctx, r)
	assert.True(t, apierr.Is(err, apierr.Conflict), "in flight: %v", err)
	require.NoError(t, s.Complete(ctx, r, Result{Status: 201, Body: []byte(`{"id":1}`)}))
	res, err = s.Claim(ctx, r)
	require.NoError(t, err)
	require.NotNil(t, res)
	assert.Equal(t, 201, res.Status)
	assert.JSONEq(t, `{"id":1}`, string(res.Body))
	_, err = s.Claim(ctx, Request{Account: "a", Key: "k", Fingerprint: "f2"})
	assert.True(t, apierr.Is(err, apierr.IdempotencyMismatch))
	res, err = s.Claim(ctx, Request{Account: "b", Key: "k", Fingerprint: "f2"})
	require.NoError(t, err, "scope is account + key")
	assert.Nil(t, res)
}

func TestReleaseFreesTheKey(t *testing.T) {
	s, _, _ := newStore(t)
	ctx := context.Background()
	r := Request{Account: "a", Key: "k", Fingerprint: "f"}
	_, err := s.Claim(ctx, r)
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx, r))
	res, err := s.Claim(ctx, r)
	require.NoError(t, err)
	assert.Nil(t, res)
}

func TestLeaseLapsesAndResultsExpire(t *testing.T) {
	s, _, clock := newStore(t)
	ctx := context.Background()
	r := Request{Account: "a", Key: "k", Fingerprint: "f"}
	_, err := s.Claim(ctx, r)
	require.NoError(t, err)
	clock.Advance(Lease + time.Second)
	res, err := s.Claim(ctx, r)
	require.NoError(t, err, "a crashed holder's claim lapses")
	assert.Nil(t, res)
	require.NoError(t, s.Complete(ctx, r, Result{Status: 200, Body: []byte(`{}`)}))
	clock.Advance(Retention - time.Minute)
	res, err = s.Lookup(ctx, r)
	require.NoError(t, err)
	require.NotNil(t, res, "kept at least 24 h")
	clock.Advance(2 * time.Minute)
	res, err = s.Lookup(ctx, r)
	require.NoError(t, err)
	assert.Nil(t, res)
}

func TestInlineRecordInATransaction(t *testing.T) {
	s, st, _ := newStore(t)
	ctx := context.Background()
	r := Request{Account: "a", Key: "k", Fingerprint: "f"}
	biz := store.Key{Table: store.TableOrders, PK: "ord#a", SK: "1"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins, replays := 0, 0
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := st.Write(ctx,
				s.RecordOp(r, Result{Status: 201, Body: []byte(`{"order":1}`)}, store.IfAbsent),
				store.Put(store.Item{Key: biz, Data: []byte(`{}`)}, store.IfAbsent))
			mu.Lock()
			defer mu.Unlock()
			if err == nil {
				wins++
				return
			}
			cf, ok := store.IsConditionFailed(err)
			require.True(t, ok, "%v", err)
			if cf.Index == 0 {
				res, err := s.Resolve(r, cf)
				require.NoError(t, err)
				require.Equal(t, 201, res.Status)
				replays++
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, 1, wins)
	assert.Equal(t, 19, replays)
	res, err := s.Lookup(ctx, r)
	require.NoError(t, err)
	assert.Equal(t, 201, res.Status)
}
