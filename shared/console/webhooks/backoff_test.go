package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// downStore fails every read, as a store in an outage does.
type downStore struct{ store.Store }

func (downStore) Get(context.Context, store.Key) (store.Item, error) {
	return store.Item{}, errors.New("connection reset")
}

// visibilities records the visibility each message was given.
type visibilities struct {
	queue.Queue
	mu  sync.Mutex
	got []time.Duration
}

func (v *visibilities) ChangeVisibility(ctx context.Context, q, receipt string, d time.Duration) error {
	v.mu.Lock()
	v.got = append(v.got, d)
	v.mu.Unlock()
	return nil
}

// TestAFailedDeliveryComesBackInSeconds: a message whose delivery met a
// store failure is given a visibility of seconds, growing with its
// receives, instead of waiting out the queue's visibility timeout (make
// chaos found deliveries minutes late after a blip).
func TestAFailedDeliveryComesBackInSeconds(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), time.Now)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	q, err := boltqueue.Open(filepath.Join(t.TempDir(), "q.db"), time.Now)
	require.NoError(t, err)
	t.Cleanup(func() { q.Close() })
	vq := &visibilities{Queue: q}
	s := webhooks.NewSender(webhooks.New(downStore{st}, time.Now), vq, webhooks.SenderConfig{})
	body, _ := json.Marshal(webhooks.Message{Account: "acct_1", Event: ids.Prefixed("evt"), Endpoint: ids.Prefixed("we"),
		Delivery: ids.Prefixed("whd"), Attempt: 1})
	for _, receives := range []int{1, 4} {
		again := s.Consume(context.Background(), []queue.Message{{ID: "m1", Body: body, Receipt: "r1", ReceiveCount: receives}})
		assert.Equal(t, []string{"m1"}, again, "failed: retried")
	}
	require.Len(t, vq.got, 2)
	assert.LessOrEqual(t, vq.got[0], 3*time.Second, "back in seconds after the first receive")
	assert.Greater(t, vq.got[1], vq.got[0], "later as the receives grow")
	assert.LessOrEqual(t, vq.got[1], 17*time.Second)
}
