package queue

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failing fails its first n sends.
type failing struct {
	Queue
	n, calls int
}

func (f *failing) Send(ctx context.Context, queue string, body []byte, delay time.Duration) (string, error) {
	f.calls++
	if f.calls <= f.n {
		return "", errors.New("connection reset")
	}
	return "m1", nil
}

// TestSendAfterCommitTriesThroughABlip: a queue that fails twice gets the
// message on the third try; one that keeps failing returns its error within
// the budget; a caller that gave up does not stop the send.
func TestSendAfterCommitTriesThroughABlip(t *testing.T) {
	q := &failing{n: 2}
	require.NoError(t, SendAfterCommit(context.Background(), q, Payouts, []byte("{}"), 0))
	assert.Equal(t, 3, q.calls)

	q = &failing{n: 1 << 30}
	start := time.Now()
	err := SendAfterCommit(context.Background(), q, Payouts, []byte("{}"), 0)
	assert.ErrorContains(t, err, "connection reset")
	assert.Less(t, time.Since(start), AfterCommitBudget+time.Second)
	assert.Greater(t, q.calls, 3)

	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	q = &failing{n: 1}
	require.NoError(t, SendAfterCommit(canceled, q, Payouts, []byte("{}"), 0))
}
