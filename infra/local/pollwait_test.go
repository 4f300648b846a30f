package main

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// A gateway killed while its poller waits in a long poll leaves that
// ReceiveMessage waiting at the server (moto here; a cut connection does
// the same), and it takes the next messages sent: they stay invisible for
// the visibility timeout. make chaos saw payouts sent just after a restart
// wait two minutes for the settlement task's re-queue. With the local
// pollers' short poll on a real queue server, messages sent once the
// restarted gateway polls all reach it. Fails with app.DefaultWait (20 s).
func TestMessagesSentAfterAKilledPollerReachTheNextOne(t *testing.T) {
	q := sqstest.NewForTest(t, queue.Payouts)
	require.Equal(t, sqsPollWait, pollWait(q))

	var mu sync.Mutex
	got := map[string]bool{}
	handler := func(_ context.Context, batch []queue.Message) []string {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range batch {
			got[string(m.Body)] = true
		}
		return nil
	}
	poller := func() *app.Poller {
		return &app.Poller{Queue: q, Name: queue.Payouts, Handler: app.SQSLambda(handler),
			Timeout: 30 * time.Second, Visibility: 180 * time.Second, Wait: pollWait(q)}
	}

	// The first gateway polls, and dies in its poll.
	killed, kill := context.WithCancel(context.Background())
	go poller().Run(killed)
	time.Sleep(300 * time.Millisecond)
	kill()

	// The restarted gateway (a restart takes two or three seconds) polls,
	// and payouts are sent.
	time.Sleep(sqsPollWait + 2*time.Second)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go poller().Run(ctx)
	want := []string{"a", "b", "c", "d"}
	for _, b := range want {
		_, err := q.Send(context.Background(), queue.Payouts, []byte(b), 0)
		require.NoError(t, err)
	}
	assert.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) == len(want)
	}, 15*time.Second, 100*time.Millisecond, "every message reached the restarted gateway's poller")
}
