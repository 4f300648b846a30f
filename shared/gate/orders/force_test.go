package orders

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// TestForcedFailureRacesRefundOnce: 20 concurrent forced failures of one
// order, half with one shared Idempotency-Key and half with keys of their
// own. The order fails once and is refunded once, with one event; every
// holder of the shared key gets the winner's answer or a replay of it, never
// a second refund; the others get 200 once at most, else 409
// order_not_pending. The key's record rides in the outcome's transaction, so
// no answer is recorded for a failure that did not happen.
func TestForcedFailureRacesRefundOnce(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 5000)
		id := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
		require.EqualValues(t, 4000, e.balance(e.Account.ID, "USD"))

		const racers = 20
		statuses := make([]int, racers)
		bodies := make([]string, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := "shared-fail-key"
				if i%2 == 1 {
					key = fmt.Sprintf("own-fail-key-%d", i)
				}
				r := e.Do("POST", "/test-helpers/orders/"+id+"/fail", map[string]any{"reason": "raced"}, "Idempotency-Key", key)
				statuses[i], bodies[i] = r.Status, string(r.Body)
			}()
		}
		wg.Wait()

		var sharedOK, ownOK int
		var sharedBody string
		for i, s := range statuses {
			switch {
			case s == 200 && i%2 == 0:
				sharedOK++
				if sharedBody == "" {
					sharedBody = bodies[i]
				}
				assert.Equal(t, sharedBody, bodies[i], "a replay is the first answer, byte for byte")
			case s == 200:
				ownOK++
			case s == 409:
				assert.Contains(t, bodies[i], "order_not_pending")
			default:
				t.Errorf("racer %d: %d %s", i, s, bodies[i])
			}
		}
		assert.Equal(t, 1, min(sharedOK, 1)+ownOK, "exactly one racer failed the order (shared key %d, own keys %d)", sharedOK, ownOK)
		assert.EqualValues(t, 5000, e.balance(e.Account.ID, "USD"), "refunded exactly once")
		assert.Equal(t, "failed", e.get(id)["status"])
		assert.Equal(t, 1, e.events(EventFailed)[id], "one order.failed event")

		// A retry of the shared key after the race replays; it never refunds.
		r := e.Do("POST", "/test-helpers/orders/"+id+"/fail", map[string]any{"reason": "raced"}, "Idempotency-Key", "shared-fail-key")
		if sharedOK > 0 {
			require.Equal(t, 200, r.Status, string(r.Body))
			assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		} else {
			require.Equal(t, 409, r.Status, "the shared key recorded nothing, so it runs again: %s", r.Body)
		}
		assert.EqualValues(t, 5000, e.balance(e.Account.ID, "USD"))
	})
}

// TestFailedOrderRefundsPastMaxBalance: deposits may top a balance up to
// money.MaxBalance while an order is pending; the order's failure still
// refunds its charge (past the maximum, which bounds deposits only), on both
// adapters, and a deposit on top of that is refused.
func TestFailedOrderRefundsPastMaxBalance(t *testing.T) {
	backends(t, func(t *testing.T, st func(testing.TB) store.Store) {
		e := newEnv(t, envOpts{store: st(t)})
		e.deposit(e.Account.ID, "USD", 5000)
		id := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
		require.NoError(t, e.Deps.Store.Write(context.Background(), prepaid.CreditOp(e.Account.ID, "USD", money.MaxBalance-4000, e.Deps.Clock())))
		require.Equal(t, money.MaxBalance, e.balance(e.Account.ID, "USD"))

		r := e.Do("POST", "/test-helpers/orders/"+id+"/fail", map[string]any{"reason": "vendor_down"}, "Idempotency-Key", e.key())
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, money.MaxBalance+1000, e.balance(e.Account.ID, "USD"), "refunded in full")
		assert.Equal(t, "failed", e.get(id)["status"])

		_, _, err := e.led.PostDeposit(context.Background(), e.Account.ID, prepaid.Deposit{Currency: "USD", Amount: 1})
		assert.Equal(t, "balance_limit_exceeded", apierr.As(err).Code.Name())
		assert.Equal(t, money.MaxBalance+1000, e.balance(e.Account.ID, "USD"))
	})
}
