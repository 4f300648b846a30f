package orders

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/lostanswer"
	"github.com/paygate/paygate/shared/testkit/stores"
)

// TestALeaseWhoseAnswerWasLostIsHeld: the lease put commits, its answer is
// lost and the SDK sends it again; the second put fails its condition on
// the lease the first one took. The holder knows its own lease and goes on
// at once; before the fix (found by make chaos) it waited for the lease to
// expire, and past the deadline answered balance_busy.
func TestALeaseWhoseAnswerWasLostIsHeld(t *testing.T) {
	stores.Each(t, time.Now, func(t *testing.T, st store.Store) {
		w := lostanswer.Wrap(st, func(op store.Op) bool {
			return op.Kind == store.OpPut && op.Item.Key == leaseKey("acct_1", "USD")
		})
		s := &Service{st: w, clock: time.Now, log: slog.New(slog.DiscardHandler), ledger: prepaid.New(w, time.Now)}
		start := time.Now()
		_, err := s.acquireLease(context.Background(), "acct_1", "USD", 0, start.Add(leaseTTL/2))
		require.NoError(t, err, "held at once, not busy after waiting")
		assert.Equal(t, 1, w.Hits())
		assert.Less(t, time.Since(start), leaseTTL/2)

		// Another holder's lease still makes it wait.
		_, err = s.acquireLease(context.Background(), "acct_1", "USD", 0, time.Now().Add(100*time.Millisecond))
		assert.True(t, err == busy, "the lease is taken: %v", err)
	})
}
