package prepaid_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func backends(t *testing.T, f func(t *testing.T, e *apitest.Env)) {
	t.Run("embedded", func(t *testing.T) { f(t, apitest.New(t, build)) })
	t.Run("dynamodb", func(t *testing.T) {
		clock := &apitest.Clock{}
		f(t, apitest.NewWith(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Clock: clock}, build))
	})
}

func balance(t *testing.T, e *apitest.Env, cur string) int64 {
	t.Helper()
	b, err := prepaid.New(e.Deps.Store, e.Deps.Clock).Balance(context.Background(), e.Account.ID, cur)
	require.NoError(t, err)
	return b.Available
}

// TestTestDepositKeyedInOneTransaction: a keyed test deposit writes its
// record with the deposit and the credit; concurrent duplicates credit once
// and all answer the same deposit; the 200 of a reference posted before is
// recorded too, and a mismatching one (409) is not.
func TestTestDepositKeyedInOneTransaction(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		body := map[string]any{"currency_code": "USD", "amount": "5.00", "external_ref": "KEYED-1"}
		var wg sync.WaitGroup
		bodies := make([]string, 20)
		statuses := make([]int, 20)
		for i := range 20 {
			wg.Go(func() {
				r := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "dep-key")
				statuses[i], bodies[i] = r.Status, string(r.Body)
			})
		}
		wg.Wait()
		for i := range 20 {
			require.Equal(t, 201, statuses[i], bodies[i])
			require.JSONEq(t, bodies[0], bodies[i])
		}
		require.EqualValues(t, 500, balance(t, e, "USD"), "credited once")

		// The same reference under a new key: 200 with the first deposit,
		// recorded for that key.
		r := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "dep-key-2")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		again := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "dep-key-2")
		require.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, r.Body, again.Body)

		other := map[string]any{"currency_code": "USD", "amount": "7.00", "external_ref": "KEYED-1"}
		r = e.Do("POST", "/test-helpers/deposits", other, "Idempotency-Key", "dep-key-3")
		require.Equal(t, 409, r.Status)
		r = e.Do("POST", "/test-helpers/deposits", other, "Idempotency-Key", "dep-key-3")
		require.Equal(t, 409, r.Status, "not definitive: not stored")
		assert.Empty(t, r.Header.Get("Idempotent-Replayed"))
		require.EqualValues(t, 500, balance(t, e, "USD"))

		r = e.Do("POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": "1.00"}, "Idempotency-Key", "dep-key")
		require.Equal(t, 422, r.Status, "the key belongs to another request")
	})
}
