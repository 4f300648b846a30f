package orders

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/store"
)

// TestSameKeyTwoOrderIDsIs422: the fingerprint holds the actual path, so a
// key used to complete order A and then sent to fail order B is a 422, and
// B is neither failed nor refunded silently. (With the route pattern in the
// fingerprint, B's call replayed A's answer and reported success.)
func TestSameKeyTwoOrderIDsIs422(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 5000)
		a := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
		b := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)

		r := e.Do("POST", "/test-helpers/orders/"+a+"/complete", nil, "Idempotency-Key", "helper-key")
		require.Equal(t, 200, r.Status, string(r.Body))
		r = e.Do("POST", "/test-helpers/orders/"+b+"/complete", nil, "Idempotency-Key", "helper-key")
		require.Equal(t, 422, r.Status, string(r.Body))
		assert.Equal(t, "pending", e.get(b)["status"], "B was not completed, nor reported as completed")

		r = e.Do("POST", "/test-helpers/orders/"+b+"/fail", nil, "Idempotency-Key", "fail-key")
		require.Equal(t, 200, r.Status, string(r.Body))
		require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"), "B refunded once")
		c := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
		r = e.Do("POST", "/test-helpers/orders/"+c+"/fail", nil, "Idempotency-Key", "fail-key")
		require.Equal(t, 422, r.Status, "a refund is never skipped by another order's key: %s", r.Body)
		r = e.Do("POST", "/test-helpers/orders/"+c+"/fail", nil, "Idempotency-Key", "fail-key-c")
		require.Equal(t, 200, r.Status, string(r.Body))
		require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"), "C charged and refunded")

		// The same call again replays its answer.
		r = e.Do("POST", "/test-helpers/orders/"+a+"/complete", nil, "Idempotency-Key", "helper-key")
		require.Equal(t, 200, r.Status)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	})
}

// cancelAtCommit cancels the caller's request context the moment the order's
// transaction is sent, as a client that disconnects (or an API Gateway
// timeout) at the worst time.
type cancelAtCommit struct {
	store.Store
	cancel context.CancelFunc
}

func (c *cancelAtCommit) Write(ctx context.Context, ops ...store.Op) error {
	if len(ops) > 1 {
		c.cancel()
		if ctx.Err() != nil {
			return ctx.Err() // the commit must not run on the request's context
		}
	}
	return c.Store.Write(ctx, ops...)
}

func jsonRender(o idempotency.Outcome) (idempotency.Result, error) {
	b, err := json.Marshal(o.Value)
	status := 200
	if o.Created {
		status = 201
	}
	return idempotency.Result{Status: status, Body: b}, err
}

// TestCancelledClientAtCommitReplays: the service takes typed input (no
// HTTP); the client's context ends as the order commits; the order is
// committed with its record, and the retry replays it: one order, one charge.
func TestCancelledClientAtCommitReplays(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 5000)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		svc := New(Config{Store: &cancelAtCommit{Store: e.Deps.Store, cancel: cancel}, Queue: e.Deps.Queue, Test: gatesupplier.New(), Clock: e.Deps.Clock})
		req := idempotency.Request{Account: e.Account.ID, KeyKind: "secret", Key: "cancelled-1", Fingerprint: "place-1"}

		call, err := e.Deps.Idem.Begin(ctx, req, jsonRender)
		require.NoError(t, err)
		pid := int64(pCard)
		o, err := svc.Place(ctx, PlaceInput{AccountID: e.Account.ID, TestMode: true, Order: CreateOrder{ProductID: &pid}, Idem: call})
		require.NoError(t, err, "the commit ran although the client went away")
		require.Error(t, ctx.Err())

		_, err = e.Deps.Idem.Begin(context.Background(), req, jsonRender)
		rep, ok := idempotency.AsReplayed(err)
		require.True(t, ok, "the retry replays: %v", err)
		var got Order
		require.NoError(t, json.Unmarshal(rep.Result.Body, &got))
		assert.Equal(t, o.ID, got.ID)
		require.Equal(t, 1, e.count())
		require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"), "charged once")
	})
}

// TestReadmeIdempotencyClaims checks each claim of docs/conventions.md's idempotency
// paragraph, on the embedded store and on DynamoDB Local.
func TestReadmeIdempotencyClaims(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 100000)

		t.Run("required on POST /orders, at most 255 printable ASCII characters", func(t *testing.T) {
			r := e.Do("POST", "/orders", map[string]any{"product_id": pCard})
			require.Equal(t, 400, r.Status)
			code, param := errParam(t, r)
			assert.Equal(t, "idempotency_key_missing", code)
			assert.Equal(t, "Idempotency-Key", param)
			r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", strings.Repeat("k", 256))
			require.Equal(t, 400, r.Status)
			r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "caf\u00e9")
			require.Equal(t, 400, r.Status)
			r = e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", strings.Repeat("k", 255))
			require.Equal(t, 201, r.Status, string(r.Body))
		})
		t.Run("same request replays status and body; another body or path is 422", func(t *testing.T) {
			first := e.Do("POST", "/orders", `{"product_id": 1, "external_ref": "r-1"}`, "Idempotency-Key", "readme-1")
			require.Equal(t, 201, first.Status, string(first.Body))
			again := e.Do("POST", "/orders", `{ "external_ref" : "r-1", "product_id" : 1 }`, "Idempotency-Key", "readme-1")
			require.Equal(t, 201, again.Status)
			assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, first.Body, again.Body, "the same bytes")
			other := e.Do("POST", "/orders", `{"product_id": 1, "external_ref": "r-2"}`, "Idempotency-Key", "readme-1")
			require.Equal(t, 422, other.Status)
		})
		t.Run("scope is the account", func(t *testing.T) {
			other, key := e.NewAccount(accounts.Test)
			require.NoError(t, catalogRepo(e).Load(context.Background(), other.ID, testCatalog))
			e.deposit(other.ID, "USD", 1000)
			r := e.DoKey(key, "POST", "/orders", `{"product_id": 1, "external_ref": "r-1"}`, "Idempotency-Key", "readme-1")
			require.Equal(t, 201, r.Status, string(r.Body))
			assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		})
		t.Run("results that are not definitive are not stored", func(t *testing.T) {
			r := e.Do("POST", "/orders", map[string]any{"product_id": pInactive}, "Idempotency-Key", "readme-2")
			require.Equal(t, 400, r.Status)
			poor, key := e.NewAccount(accounts.Test)
			require.NoError(t, catalogRepo(e).Load(context.Background(), poor.ID, testCatalog))
			r = e.DoKey(key, "POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "readme-3")
			require.Equal(t, 400, r.Status)
			code, _ := errParam(t, r)
			require.Equal(t, "insufficient_balance", code)
			e.deposit(poor.ID, "USD", 1000)
			r = e.DoKey(key, "POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "readme-3")
			require.Equal(t, 201, r.Status, "the retry ran again: %s", r.Body)
			assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		})
		t.Run("a concurrent duplicate replays the winner's result", func(t *testing.T) {
			before := e.balance(e.Account.ID, "USD")
			var wg sync.WaitGroup
			bodies := make([]string, 20)
			statuses := make([]int, 20)
			for i := range 20 {
				wg.Go(func() {
					r := e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "readme-4")
					statuses[i], bodies[i] = r.Status, string(r.Body)
				})
			}
			wg.Wait()
			for i := range 20 {
				require.Equal(t, 201, statuses[i], bodies[i])
				require.JSONEq(t, bodies[0], bodies[i])
			}
			require.EqualValues(t, before-1000, e.balance(e.Account.ID, "USD"), "one charge")
		})
		t.Run("kept 24 h", func(t *testing.T) {
			first := e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "readme-5")
			require.Equal(t, 201, first.Status)
			e.Clock.Set(time.Now().Add(idempotency.Retention - time.Minute))
			defer e.Clock.Set(time.Time{})
			r := e.Do("POST", "/orders", map[string]any{"product_id": pCard}, "Idempotency-Key", "readme-5")
			require.Equal(t, 201, r.Status)
			assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
			assert.Equal(t, first.Body, r.Body)
		})
		t.Run("a duplicate in flight on a leased route is 409", func(t *testing.T) {
			// The force-outcome helpers hold the key with a lease: a claim
			// in progress answers 409 to a duplicate.
			id := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
			path := "/test-helpers/orders/" + id + "/complete"
			req := e.Deps.Idem.Request(e.Account.ID, "secret", "readme-6", "POST", path, nil)
			_, claim, err := e.Deps.Idem.Claim(context.Background(), req)
			require.NoError(t, err)
			r := e.Do("POST", path, nil, "Idempotency-Key", "readme-6")
			require.Equal(t, 409, r.Status, string(r.Body))
			code, _ := errParam(t, r)
			assert.Equal(t, "idempotency_in_flight", code)
			require.NoError(t, e.Deps.Idem.Release(context.Background(), claim))
			r = e.Do("POST", path, nil, "Idempotency-Key", "readme-6")
			require.Equal(t, 200, r.Status, string(r.Body))
		})
	})
}
