package remittance_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

type status string

const (
	open   status = "open"
	paid   status = "paid"
	failed status = "failed"
)

func (s status) CanTransition(to status) bool { return s == open && (to == paid || to == failed) }

// TestStateDecidesOnce: the payer's answer sets paid (with its time) or
// failed (with its time and reason), once: a decided state refuses another.
func TestStateDecidesOnce(t *testing.T) {
	now := time.Now().UTC()
	s := remittance.State[status]{Status: open}
	require.NoError(t, s.Decide(remittance.Result{Paid: true}, paid, failed, now))
	assert.Equal(t, paid, s.Status)
	assert.Equal(t, now, *s.PaidAt)
	assert.Nil(t, s.FailedAt)
	assert.Equal(t, now, s.UpdatedAt)
	assert.True(t, apierr.Is(s.Decide(remittance.Result{}, paid, failed, now), apierr.Internal), "decided once")

	s = remittance.State[status]{Status: open}
	require.NoError(t, s.Decide(remittance.Result{Reason: "card_declined"}, paid, failed, now))
	assert.Equal(t, failed, s.Status)
	assert.Equal(t, "card_declined", s.FailureReason)
	assert.Equal(t, now, *s.FailedAt)

	var k remittance.Kept
	assert.Equal(t, 1, k.Unanswered())
	assert.Equal(t, 2, k.Unanswered())
	k.Read(7)
	assert.EqualValues(t, 7, k.Version())
}

// TestEnqueueWritesTheConsumersMessage: the message names the account and
// the remittance under IDField, as the consumer reads it.
func TestEnqueueWritesTheConsumersMessage(t *testing.T) {
	q, err := boltqueue.Open(filepath.Join(t.TempDir(), "q.db"), nil)
	require.NoError(t, err)
	f := remittance.Flow[*struct{ remittance.Record }]{Queue: q, QueueName: queue.Payouts, IDField: "payout_id",
		Log: slog.New(slog.DiscardHandler)}
	f.Enqueue(context.Background(), "acct_1", "po_1")
	msgs, err := q.Receive(context.Background(), queue.Payouts, 10, time.Minute, 0)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	var body map[string]string
	require.NoError(t, json.Unmarshal(msgs[0].Body, &body))
	assert.Equal(t, map[string]string{"account_id": "acct_1", "payout_id": "po_1"}, body)
}
