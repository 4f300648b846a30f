package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// syncBuf is the CLI's output, read while it runs.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// webhooks listen registers a temporary endpoint over the API, prints and
// forwards each delivery with its signature headers, and deletes the
// endpoint when stopped.
func TestWebhooksListenForwards(t *testing.T) {
	e := apitest.New(t, func(d *app.Deps) (httpapi.Group, error) {
		return webhooks.New(d.Store, d.Clock).EndpointsRoutes(), nil
	})
	var mu sync.Mutex
	var fwd []*http.Request
	var bodies [][]byte
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		fwd, bodies = append(fwd, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	defer target.Close()

	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuf{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"webhooks", "listen", "--api", e.URL, "--key", e.Key, "--forward-to", target.URL}, out, out,
			func(string) string { return "" })
	}()
	svc := webhooks.New(e.Deps.Store, e.Deps.Clock)
	var ep []webhooks.View
	require.Eventually(t, func() bool {
		ep, _, _ = svc.List(context.Background(), e.Account.ID, 10, "")
		return len(ep) == 1
	}, 10*time.Second, 10*time.Millisecond, "no endpoint registered: %s", out.String())

	op, err := eventlog.Append(eventlog.Event{Type: orders.EventCompleted, Account: e.Account.ID, At: time.Now(),
		Data: orders.Order{ID: ids.New(), Status: orders.StatusCompleted}})
	require.NoError(t, err)
	it := op.Item
	ev := struct{ ID string }{ID: it.SK}
	require.NoError(t, e.Deps.Store.Write(context.Background(), op))
	_, err = webhooks.NewPublisher(svc, e.Deps.Queue, nil).Publish(context.Background(), it)
	require.NoError(t, err)
	msgs, err := e.Deps.Queue.Receive(context.Background(), queue.Webhooks, 1, time.Minute, time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	resp, err := app.SQSLambda(webhooks.NewSender(svc, e.Deps.Queue, webhooks.SenderConfig{}).Consume)(context.Background(),
		events.SQSEvent{Records: []events.SQSMessage{{MessageId: msgs[0].ID, Body: string(msgs[0].Body)}}})
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)

	mu.Lock()
	require.Len(t, fwd, 1)
	require.Equal(t, ev.ID, fwd[0].Header.Get("Service-Event-Id"))
	require.NotEmpty(t, fwd[0].Header.Get("Service-Signature"))
	require.Contains(t, string(bodies[0]), ev.ID)
	mu.Unlock()
	require.Contains(t, out.String(), ev.ID+" order.completed -> 202")
	as, _, err := svc.Attempts(context.Background(), e.Account.ID, ep[0].ID, 10, "")
	require.NoError(t, err)
	require.Equal(t, 202, *as[0].StatusCode, "the forward target's answer is the delivery's")

	cancel()
	require.Equal(t, 0, <-done, out.String())
	left, _, err := svc.List(context.Background(), e.Account.ID, 10, "")
	require.NoError(t, err)
	require.Empty(t, left, "the temporary endpoint is deleted")

	r := cli(t, nil, "webhooks", "listen", "--key", "sk_live_x")
	require.Equal(t, 2, r.code)
}
