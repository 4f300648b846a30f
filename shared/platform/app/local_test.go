package app_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func openQueue(t *testing.T) (*boltqueue.Queue, *fakeClock) {
	t.Helper()
	clock := &fakeClock{now: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	q, err := boltqueue.Open(filepath.Join(t.TempDir(), "queue.db"), clock.Now)
	require.NoError(t, err)
	t.Cleanup(func() { _ = q.Close() })
	return q, clock
}

func send(t *testing.T, q queue.Queue, bodies ...string) []string {
	t.Helper()
	var ids []string
	for _, b := range bodies {
		id, err := q.Send(context.Background(), queue.Fulfilment, []byte(b), 0)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	return ids
}

func poller(q queue.Queue, h app.SQSHandler) *app.Poller {
	return &app.Poller{Queue: q, Name: queue.Fulfilment, Handler: h, Region: "eu-west-1", Visibility: 30 * time.Second, Wait: 10 * time.Millisecond}
}

func TestPollerDeletesAllButReportedFailures(t *testing.T) {
	q, clock := openQueue(t)
	ids := send(t, q, "a", "b", "c")
	var seen []events.SQSMessage
	p := poller(q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		seen = append(seen, ev.Records...)
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			if r.Body == "b" {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return resp, nil
	})
	res, err := p.Once(context.Background())
	require.NoError(t, err)
	require.Equal(t, app.BatchResult{Received: 3, Deleted: 2, Failed: 1}, res)
	require.Len(t, seen, 3)
	for _, r := range seen {
		require.Contains(t, ids, r.MessageId)
		require.NotEmpty(t, r.ReceiptHandle)
		require.Equal(t, "1", r.Attributes["ApproximateReceiveCount"])
		require.Equal(t, "arn:aws:sqs:eu-west-1:000000000000:fulfilment", r.EventSourceARN)
		require.Equal(t, "aws:sqs", r.EventSource)
	}
	require.Equal(t, "0cc175b9c0f1b6a831c399e269772661", seen[0].Md5OfBody) // md5("a")

	// Only the failed message comes back, once its visibility lapses.
	seen = nil
	res, err = p.Once(context.Background())
	require.NoError(t, err)
	require.Zero(t, res.Received)
	clock.Advance(31 * time.Second)
	res, err = p.Once(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, res.Received)
	require.Equal(t, "b", seen[0].Body)
	require.Equal(t, "2", seen[0].Attributes["ApproximateReceiveCount"])
}

func TestPollerRetriesWholeBatch(t *testing.T) {
	cases := map[string]app.SQSHandler{
		"error": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, errors.New("boom")
		},
		"unknown item": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: "nope"}}}, nil
		},
		"empty item": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{}}}, nil
		},
		"panic": func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) { panic("boom") },
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			q, clock := openQueue(t)
			send(t, q, "a", "b")
			p := poller(q, h)
			res, err := p.Once(context.Background())
			require.NoError(t, err)
			require.Equal(t, app.BatchResult{Received: 2, Failed: 2}, res)
			clock.Advance(31 * time.Second)
			msgs, err := q.Receive(context.Background(), queue.Fulfilment, 10, time.Second, 0)
			require.NoError(t, err)
			require.Len(t, msgs, 2)
		})
	}
}

func TestPollerFailuresReachTheDLQ(t *testing.T) {
	q, clock := openQueue(t)
	send(t, q, "poison")
	calls := 0
	p := poller(q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		calls++
		return events.SQSEventResponse{BatchItemFailures: []events.SQSBatchItemFailure{{ItemIdentifier: ev.Records[0].MessageId}}}, nil
	})
	for i := 0; i < queue.MaxReceives+1; i++ {
		_, err := p.Once(context.Background())
		require.NoError(t, err)
		clock.Advance(31 * time.Second)
	}
	require.Equal(t, queue.MaxReceives, calls)
	msgs, err := q.Receive(context.Background(), queue.DLQName(queue.Fulfilment), 10, time.Second, 0)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "poison", string(msgs[0].Body))
}

func TestPollerRunStopsWithContext(t *testing.T) {
	q, _ := openQueue(t)
	got := make(chan string, 1)
	p := poller(q, func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		got <- ev.Records[0].Body
		return events.SQSEventResponse{}, nil
	})
	p.Wait = 20 * time.Second // the long poll must still end promptly on cancel
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	send(t, q, "hello")
	select {
	case b := <-got:
		require.Equal(t, "hello", b)
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not deliver the message")
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
}

func TestServeAll(t *testing.T) {
	d := app.WithStore(nil, nil, nil, nil)
	one := func(*app.Deps) (httpapi.Group, error) {
		return httpapi.Group{Name: "One", Routes: []httpapi.Route{{Method: "GET", Path: "/one"}}}, nil
	}
	two := func(*app.Deps) (httpapi.Group, error) {
		return httpapi.Group{Name: "Two", Routes: []httpapi.Route{{Method: "POST", Path: "/two"}}}, nil
	}
	s, err := d.ServeAll(one, two)
	require.NoError(t, err)
	var got []string
	for _, rt := range s.Routes() {
		got = append(got, rt.Pattern())
	}
	require.Equal(t, []string{"GET /one", "POST /two"}, got)

	bad := func(*app.Deps) (httpapi.Group, error) { return httpapi.Group{}, errors.New("no config") }
	_, err = d.ServeAll(one, bad)
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "no config"), err.Error())
}
