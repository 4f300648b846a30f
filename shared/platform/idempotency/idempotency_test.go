package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/storetest"
)

type newStoreFunc func(t *testing.T) (*Store, store.Store, *storetest.Clock)

// backends runs f on the embedded store and on DynamoDB Local.
func backends(t *testing.T, f func(t *testing.T, newStore newStoreFunc)) {
	start := time.Date(2024, 1, 15, 10, 0, 0, 0, time.UTC)
	t.Run("embedded", func(t *testing.T) {
		f(t, func(t *testing.T) (*Store, store.Store, *storetest.Clock) {
			clock := storetest.NewClock(start)
			st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), clock.Now)
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			return New(st, clock.Now), st, clock
		})
	})
	t.Run("dynamodb", func(t *testing.T) {
		f(t, func(t *testing.T) (*Store, store.Store, *storetest.Clock) {
			clock := storetest.NewClock(start)
			st := dynamotest.New(t, clock.Now)
			return New(st, clock.Now), st, clock
		})
	})
}

func TestFingerprintIgnoresKeyOrderAndSpace(t *testing.T) {
	s := New(nil, nil)
	a := s.Fingerprint("POST", "/orders", []byte(`{"a":1,"b":{"c":"x"}}`))
	b := s.Fingerprint("POST", "/orders", []byte(` { "b" : {"c":"x"}, "a" : 1 } `))
	assert.Equal(t, a, b)
	assert.NotEqual(t, a, s.Fingerprint("POST", "/orders", []byte(`{"a":2,"b":{"c":"x"}}`)))
	assert.NotEqual(t, a, s.Fingerprint("POST", "/other", []byte(`{"a":1,"b":{"c":"x"}}`)))
	// Large integers stay exact.
	assert.NotEqual(t, s.Fingerprint("POST", "/x", []byte(`{"n":9007199254740993}`)), s.Fingerprint("POST", "/x", []byte(`{"n":9007199254740992}`)))
	// Two ids in the path are two requests.
	assert.NotEqual(t, s.Fingerprint("POST", "/test-helpers/orders/A/complete", nil), s.Fingerprint("POST", "/test-helpers/orders/B/complete", nil))
}

// TestFingerprintIsKeyed: the fingerprint of a card body is an HMAC under
// the store's key, marked as such, never the unkeyed SHA-256 (a hash of the
// card number an attacker could match against every number).
func TestFingerprintIsKeyed(t *testing.T) {
	body := []byte(`{"card":{"number":"4111111111111111","expiry_month":3,"expiry_year":2030},"amount":{"value":100,"currency":"EUR"}}`)
	plain := sha256.Sum256(append([]byte("POST /v1/payouts/cards\n"), canonical(body)...))
	dev := New(nil, nil).Fingerprint("POST", "/v1/payouts/cards", body)
	live := New(nil, nil).WithFingerprintKey([]byte("a-deployed-stack's-own-32-byte-key")).Fingerprint("POST", "/v1/payouts/cards", body)
	for _, f := range []string{dev, live} {
		assert.True(t, strings.HasPrefix(f, "hmac-sha256:"), f)
		assert.NotContains(t, f, hex.EncodeToString(plain[:]))
	}
	assert.NotEqual(t, dev, live, "another key, another fingerprint")
	assert.Equal(t, live, New(nil, nil).WithFingerprintKey([]byte("a-deployed-stack's-own-32-byte-key")).Fingerprint("POST", "/v1/payouts/cards", body), "stable under one key")
	assert.Equal(t, dev, New(nil, nil).WithFingerprintKey(nil).Fingerprint("POST", "/v1/payouts/cards", body), "no key keeps the dev key")
}

// TestRecordsWithTheUnkeyedFingerprintStillCompare: during a rollout a
// record stored before keyed fingerprints (the bare SHA-256) still replays
// to the same request, still refuses another one with 422, and a lapsed
// claim of the same request is taken over and then stored keyed.
func TestRecordsWithTheUnkeyedFingerprintStillCompare(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, st, clock := newStore(t)
		ctx := context.Background()
		body := []byte(`{"amount":100}`)
		old := func(key string, rec record) Request {
			r := s.Request("a", "secret", key, "POST", "/v1/payouts", body)
			rec.Fingerprint = legacyFingerprint("POST", "/v1/payouts", body)
			rec.CreatedAt = clock.Now()
			data, err := json.Marshal(rec)
			require.NoError(t, err)
			require.NoError(t, st.Write(ctx, store.Put(store.Item{Key: s.key(r), Data: data, ExpiresAt: clock.Now().Add(Retention)}, store.IfAbsent)))
			return r
		}
		r := old("done", record{State: stateDone, Result: &Result{Status: 201, Body: []byte(`{"id":"po_1"}`)}})
		res, c, err := s.Claim(ctx, r)
		require.NoError(t, err)
		assert.Nil(t, c)
		require.NotNil(t, res, "the old record replays")
		assert.JSONEq(t, `{"id":"po_1"}`, string(res.Body))
		got, err := s.Lookup(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, got)
		_, _, err = s.Claim(ctx, s.Request("a", "secret", "done", "POST", "/v1/payouts", []byte(`{"amount":200}`)))
		assert.True(t, apierr.Is(err, apierr.IdempotencyMismatch), "another body is still refused: %v", err)
		noLegacy := r
		noLegacy.LegacyFingerprint = ""
		_, _, err = s.Claim(ctx, noLegacy)
		assert.True(t, apierr.Is(err, apierr.IdempotencyMismatch), "the unkeyed fingerprint is what matched: %v", err)

		lease := clock.Now().Add(-time.Second)
		r = old("lapsed", record{State: stateInProgress, Token: "old-holder", LeaseUntil: &lease})
		res, c, err = s.Claim(ctx, r)
		require.NoError(t, err, "a lapsed old claim of the same request is taken over")
		assert.Nil(t, res)
		require.NotNil(t, c)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 201, Body: []byte(`{}`)}))
		it, err := st.Get(ctx, s.key(r))
		require.NoError(t, err)
		rec, err := decode(&it)
		require.NoError(t, err)
		assert.Equal(t, r.Fingerprint, rec.Fingerprint, "the new record holds the keyed fingerprint")
	})
}

func TestValidateKey(t *testing.T) {
	assert.Error(t, ValidateKey(""))
	assert.Error(t, ValidateKey(strings.Repeat("k", MaxKeyLen+1)))
	assert.Error(t, ValidateKey("tab\there"))
	assert.NoError(t, ValidateKey(strings.Repeat("k", MaxKeyLen)))
	assert.NoError(t, ValidateKey("550e8400-e29b-41d4-a716-446655440000"))
}

func TestClaimCompleteReplay(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, _ := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f1"}
		res, c, err := s.Claim(ctx, r)
		require.NoError(t, err)
		require.Nil(t, res)
		_, _, err = s.Claim(ctx, r)
		assert.True(t, apierr.Is(err, apierr.Conflict), "in flight: %v", err)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 201, Body: []byte(`{"id":1}`)}))
		res, _, err = s.Claim(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, res)
		assert.Equal(t, 201, res.Status)
		assert.JSONEq(t, `{"id":1}`, string(res.Body))
		_, _, err = s.Claim(ctx, Request{Account: "a", Key: "k", Fingerprint: "f2"})
		assert.True(t, apierr.Is(err, apierr.IdempotencyMismatch))
		res, c2, err := s.Claim(ctx, Request{Account: "b", Key: "k", Fingerprint: "f2"})
		require.NoError(t, err, "scope is account + key")
		assert.Nil(t, res)
		assert.NotNil(t, c2)
	})
}

func TestReleaseFreesTheKey(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, _ := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		_, c, err := s.Claim(ctx, r)
		require.NoError(t, err)
		require.NoError(t, s.Release(ctx, c))
		res, c2, err := s.Claim(ctx, r)
		require.NoError(t, err)
		assert.Nil(t, res)
		assert.NotNil(t, c2)
	})
}

func TestLeaseLapsesAndResultsExpire(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, clock := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		_, _, err := s.Claim(ctx, r)
		require.NoError(t, err)
		clock.Advance(Lease + time.Second)
		res, c, err := s.Claim(ctx, r)
		require.NoError(t, err, "a crashed holder's claim lapses")
		assert.Nil(t, res)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 200, Body: []byte(`{}`)}))
		clock.Advance(Retention - time.Minute)
		res, err = s.Lookup(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, res, "kept at least 24 h")
		clock.Advance(2 * time.Minute)
		res, err = s.Lookup(ctx, r)
		require.NoError(t, err)
		assert.Nil(t, res)
	})
}

// TestLapsedHolderCannotOverwrite: Complete and Release act only on the
// caller's own claim, however the key changed hands meanwhile.
func TestLapsedHolderCannotOverwrite(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, clock := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		_, a, err := s.Claim(ctx, r)
		require.NoError(t, err)
		clock.Advance(Lease + time.Second)
		_, b, err := s.Claim(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, b, "a retry takes the lapsed claim over")

		err = s.Complete(ctx, a, Result{Status: 201, Body: []byte(`{"by":"a"}`)})
		require.True(t, apierr.Is(err, apierr.Conflict), "the lapsed holder's Complete fails: %v", err)
		require.NoError(t, s.Release(ctx, a), "the lapsed holder's Release is a no-op")
		_, _, err = s.Claim(ctx, r)
		require.True(t, apierr.Is(err, apierr.Conflict), "b still holds the key: %v", err)

		require.NoError(t, s.Complete(ctx, b, Result{Status: 201, Body: []byte(`{"by":"b"}`)}))
		require.True(t, apierr.Is(s.Complete(ctx, a, Result{Status: 201, Body: []byte(`{"by":"a"}`)}), apierr.Conflict))
		require.NoError(t, s.Release(ctx, a))
		res, err := s.Lookup(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, res, "a's Release did not delete b's result")
		assert.JSONEq(t, `{"by":"b"}`, string(res.Body))

		// Released and claimed anew (the version starts again after a
		// delete): the first holder's token still does not match.
		r2 := Request{Account: "a", Key: "k2", Fingerprint: "f"}
		_, x, err := s.Claim(ctx, r2)
		require.NoError(t, err)
		clock.Advance(Lease + time.Second)
		_, y, err := s.Claim(ctx, r2)
		require.NoError(t, err)
		require.NoError(t, s.Release(ctx, y))
		_, z, err := s.Claim(ctx, r2)
		require.NoError(t, err)
		require.True(t, apierr.Is(s.Complete(ctx, x, Result{Status: 201, Body: []byte(`{"by":"x"}`)}), apierr.Conflict))
		require.NoError(t, s.Complete(ctx, z, Result{Status: 201, Body: []byte(`{"by":"z"}`)}))
		res, err = s.Lookup(ctx, r2)
		require.NoError(t, err)
		assert.JSONEq(t, `{"by":"z"}`, string(res.Body))
	})
}

// TestSlowHolderStillCompletes: a holder past its lease whom nobody replaced
// still records its result (the claim is stored longer than its lease).
func TestSlowHolderStillCompletes(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, clock := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "slow", Fingerprint: "f"}
		_, c, err := s.Claim(ctx, r)
		require.NoError(t, err)
		clock.Advance(Lease + 10*time.Second)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 201, Body: []byte(`{}`)}))
		res, err := s.Lookup(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, res)
	})
}

func TestTakeoverOfALapsedClaimIsExclusive(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, clock := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		_, _, err := s.Claim(ctx, r)
		require.NoError(t, err)
		clock.Advance(Lease + time.Second)
		var wg sync.WaitGroup
		var mu sync.Mutex
		held, busy := 0, 0
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, c, err := s.Claim(ctx, r)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && c != nil:
					held++
				case apierr.Is(err, apierr.Conflict):
					busy++
				default:
					t.Errorf("unexpected: %v", err)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, held, "exactly one retry takes the claim over")
		assert.Equal(t, 19, busy)
	})
}

// TestKeyKindsAreSeparateNamespaces: the same key from a client key and a
// secret key of one account are two records; neither can burn the other.
func TestKeyKindsAreSeparateNamespaces(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, _ := newStore(t)
		ctx := context.Background()
		client := Request{Account: "a", KeyKind: KeyKindClient, Key: "k", Fingerprint: "shopper"}
		secret := Request{Account: "a", KeyKind: "secret", Key: "k", Fingerprint: "merchant"}
		_, c, err := s.Claim(ctx, client)
		require.NoError(t, err)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 200, Body: []byte(`{"who":"shopper"}`)}))
		res, m, err := s.Claim(ctx, secret)
		require.NoError(t, err, "the shopper's use of the key does not touch the merchant's")
		require.Nil(t, res)
		require.NoError(t, s.Complete(ctx, m, Result{Status: 201, Body: []byte(`{"who":"merchant"}`)}))
		got, err := s.Lookup(ctx, client)
		require.NoError(t, err)
		assert.JSONEq(t, `{"who":"shopper"}`, string(got.Body))
		got, err = s.Lookup(ctx, secret)
		require.NoError(t, err)
		assert.JSONEq(t, `{"who":"merchant"}`, string(got.Body))
		// A secret key's request without a kind (operators' tools) shares the
		// secret namespace.
		got, err = s.Lookup(ctx, Request{Account: "a", Key: "k", Fingerprint: "merchant"})
		require.NoError(t, err)
		assert.JSONEq(t, `{"who":"merchant"}`, string(got.Body))
	})
}

// TestClaimAndCompleteIgnoreTheCallersCancellation: a client that gives up
// after the work ran must still get its result recorded.
func TestClaimAndCompleteIgnoreTheCallersCancellation(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, _ := newStore(t)
		cancelled, cancel := context.WithCancel(context.Background())
		cancel()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		_, c, err := s.Claim(cancelled, r)
		require.NoError(t, err)
		require.NoError(t, s.Complete(cancelled, c, Result{Status: 201, Body: []byte(`{}`)}))
		res, err := s.Lookup(context.Background(), r)
		require.NoError(t, err)
		require.NotNil(t, res)

		r2 := Request{Account: "a", Key: "k2", Fingerprint: "f"}
		_, c2, err := s.Claim(context.Background(), r2)
		require.NoError(t, err)
		require.NoError(t, s.Release(cancelled, c2))
		_, c3, err := s.Claim(context.Background(), r2)
		require.NoError(t, err)
		require.NotNil(t, c3, "released despite the cancelled context")

		deadline, stop := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer stop()
		biz := store.Key{Table: store.TableOrders, PK: "ord#a", SK: "cancelled"}
		call := &Call{req: Request{Account: "a", Key: "k3", Fingerprint: "f"}, render: jsonRender, idem: s}
		require.NoError(t, Commit(deadline, s.st, call, Outcome{Created: true, Value: map[string]int{"n": 1}},
			store.Put(store.Item{Key: biz, Data: []byte(`{}`)}, store.IfAbsent)), "a passed deadline does not stop the commit")
		_, err = s.st.Get(context.Background(), biz)
		require.NoError(t, err)
	})
}

func jsonRender(o Outcome) (Result, error) {
	b, err := json.Marshal(o.Value)
	status := 200
	if o.Created {
		status = 201
	}
	return Result{Status: status, Body: b}, err
}

func TestInlineRecordInATransaction(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
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
				var err error
				for attempt := 0; attempt < 20; attempt++ {
					err = st.Write(ctx,
						s.RecordOp(r, Result{Status: 201, Body: []byte(`{"order":1}`)}, store.IfAbsent),
						store.Put(store.Item{Key: biz, Data: []byte(`{}`)}, store.IfAbsent))
					if _, isCF := store.IsConditionFailed(err); err == nil || isCF || !apierr.Is(err, apierr.Conflict) {
						break // DynamoDB may give up on transaction conflicts: write again, as a caller would
					}
				}
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
	})
}

// TestCommit is the money-moving helper: record and business ops in one
// transaction, the key's verdicts mapped, business failures numbered in the
// caller's ops, many concurrent duplicates settled to one write.
func TestCommit(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, st, _ := newStore(t)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		biz := func(sk string) store.Op {
			return store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "ord#a", SK: sk}, Data: []byte(`{}`)}, store.IfAbsent)
		}

		call, err := s.Begin(ctx, r, jsonRender)
		require.NoError(t, err)
		require.NoError(t, Commit(ctx, st, call, Outcome{Created: true, Value: map[string]string{"id": "1"}}, biz("1")))
		got, ok := call.Recorded()
		require.True(t, ok)
		assert.JSONEq(t, `{"id":"1"}`, string(got.Body))

		_, err = s.Begin(ctx, r, jsonRender)
		rep, ok := AsReplayed(err)
		require.True(t, ok, "Begin replays a stored result: %v", err)
		assert.Equal(t, 201, rep.Result.Status)
		_, err = s.Begin(ctx, Request{Account: "a", Key: "k", Fingerprint: "other"}, jsonRender)
		assert.True(t, apierr.Is(err, apierr.IdempotencyMismatch), "%v", err)
		assert.True(t, FromKey(err))

		// A failed business condition comes back numbered in the caller's ops.
		call, err = s.Begin(ctx, Request{Account: "a", Key: "k2", Fingerprint: "f"}, jsonRender)
		require.NoError(t, err)
		err = Commit(ctx, st, call, Outcome{Created: true}, biz("2"), biz("1"))
		cf, ok := store.IsConditionFailed(err)
		require.True(t, ok, "%v", err)
		assert.Equal(t, 1, cf.Index)
		assert.False(t, FromKey(err))
		_, ok = call.Recorded()
		assert.False(t, ok, "nothing recorded when the business write failed")
		res, err := s.Lookup(ctx, Request{Account: "a", Key: "k2", Fingerprint: "f"})
		require.NoError(t, err)
		assert.Nil(t, res, "the key stays free for a retry")

		// Without a key: the business ops alone.
		require.NoError(t, Commit(ctx, st, nil, Outcome{}, biz("3")))
		unkeyed, err := s.Begin(ctx, Request{Account: "a"}, jsonRender)
		require.NoError(t, err)
		require.NoError(t, Commit(ctx, st, unkeyed, Outcome{}, biz("4")))
		_, ok = unkeyed.Recorded()
		assert.False(t, ok)

		// 30 concurrent duplicates that all passed Begin: one writes, the
		// others replay its result.
		dup := Request{Account: "a", Key: "dup", Fingerprint: "f"}
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, replays := 0, 0
		for i := 0; i < 30; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var err error
				for attempt := 0; attempt < 20; attempt++ {
					var c *Call
					if c, err = s.Begin(ctx, dup, jsonRender); err == nil {
						err = Commit(ctx, st, c, Outcome{Created: true, Value: map[string]string{"id": "dup"}}, biz("dup"))
					}
					if !apierr.Is(err, apierr.Conflict) || FromKey(err) {
						break // DynamoDB transaction conflicts: try again, as a client would
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					wins++
				} else if rep, ok := AsReplayed(err); ok {
					assert.JSONEq(t, `{"id":"dup"}`, string(rep.Result.Body))
					replays++
				} else {
					t.Errorf("unexpected: %v", err)
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, 1, wins)
		assert.Equal(t, 29, replays)
	})
}

// TestReserveIsFixedPerKey: every retry of a key, 20 at once included,
// reserves the first value; another key, another account or a call without
// a key gets its own; the reservation does not answer for the key (a later
// Begin still runs the call).
func TestReserveIsFixedPerKey(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		s, _, _ := newStore(t)
		ctx := context.Background()
		var n atomic.Int64
		fresh := func() string { return fmt.Sprintf("v%d", n.Add(1)) }
		reserve := func(account, key string) string {
			call, err := s.Begin(ctx, Request{Account: account, Key: key, Fingerprint: "f"}, jsonRender)
			require.NoError(t, err)
			v, err := call.Reserve(ctx, "payment", fresh)
			require.NoError(t, err)
			return v
		}
		got := make([]string, 20)
		var wg sync.WaitGroup
		for i := range got {
			wg.Add(1)
			go func() { defer wg.Done(); got[i] = reserve("a", "k") }()
		}
		wg.Wait()
		for _, v := range got {
			assert.Equal(t, got[0], v, "every retry of the key reserves the same value")
		}
		assert.Equal(t, got[0], reserve("a", "k"))
		assert.NotEqual(t, got[0], reserve("a", "k2"), "another key")
		assert.NotEqual(t, got[0], reserve("b", "k"), "another account")
		call, err := s.Begin(ctx, Request{Account: "a"}, jsonRender)
		require.NoError(t, err)
		v1, _ := call.Reserve(ctx, "payment", fresh)
		v2, _ := call.Reserve(ctx, "payment", fresh)
		assert.NotEqual(t, v1, v2, "without a key, every call is fresh")
	})
}
