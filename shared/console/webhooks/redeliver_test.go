package webhooks_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"runtime"
	"sync"
	"testing"
	"time"

	lambdaevents "github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/dynamostore/streamtest"
	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/console/webhooks/outbound"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// slowReceiver answers 200 after a pause long enough for copies of one
// message handled at once to overlap, and counts requests by event id.
type slowReceiver struct {
	*receiver
}

func newSlowReceiver(t *testing.T) slowReceiver {
	return slowReceiver{newReceiver(t, func(int, *http.Request) int {
		time.Sleep(300 * time.Millisecond)
		return 200
	})}
}

func (rc slowReceiver) byEvent() map[string]int {
	n := map[string]int{}
	for _, rq := range rc.requests() {
		n[rq.header.Get("Service-Event-Id")]++
	}
	return n
}

// drain receives every message on the webhooks queue until want are held.
func (p *pipe) drain(t *testing.T, want int) []queue.Message {
	t.Helper()
	var got []queue.Message
	deadline := time.Now().Add(liveness)
	for len(got) < want {
		require.True(t, time.Now().Before(deadline), "%d of %d messages received", len(got), want)
		msgs, err := p.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, 5*time.Minute, 500*time.Millisecond)
		require.NoError(t, err)
		got = append(got, msgs...)
	}
	return got
}

// pumpFor feeds the webhooks queue to the sender for d, whatever happens.
func (p *pipe) pumpFor(t *testing.T, d time.Duration) {
	t.Helper()
	poller := p.poller()
	for end := time.Now().Add(d); time.Now().Before(end); {
		_, err := poller.Once(context.Background())
		require.NoError(t, err)
	}
}

// A stream batch replayed (a retried batch, a new event source mapping at
// TRIM_HORIZON, a republished batch): the publisher queues every delivery
// again, and copies of each message reach several sender instances at once.
// Each receiver sees each event once; a replay after delivery sends nothing;
// a merchant's resend still sends. Fails without the sender's claim: copies
// handled at once each POST.
func TestReplayedBatchReachesEachReceiverOnce(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		a, b := newSlowReceiver(t), newSlowReceiver(t)
		epA, _ := p.endpoint(t, a.srv.URL, []string{"*"}, nil)
		p.endpoint(t, b.srv.URL, []string{"order.completed"}, nil)
		var batch []store.Change
		var evts []string
		for range 3 {
			id := writeOrderEvent(t, p.Deps.Store, p.Account.ID, time.Now())
			it, err := p.Deps.Store.Get(context.Background(), eventlog.Key(p.Account.ID, id))
			require.NoError(t, err)
			batch = append(batch, store.Change{Kind: store.ChangeInsert, Item: it})
			evts = append(evts, id)
		}
		// The batch, and two replays of it at the same time.
		const copies = 3
		var wg sync.WaitGroup
		for range copies {
			wg.Go(func() { assert.Equal(t, len(batch), p.pub.Consume(context.Background(), batch)) })
		}
		wg.Wait()
		msgs := p.drain(t, copies*len(evts)*2)

		// Copy i of every message to sender instance i, all at once.
		instances := make([][]lambdaevents.SQSMessage, copies)
		seen := map[string]int{}
		for _, m := range msgs {
			i := seen[string(m.Body)]
			seen[string(m.Body)]++
			instances[i] = append(instances[i], lambdaevents.SQSMessage{MessageId: m.ID, Body: string(m.Body)})
		}
		require.Len(t, seen, len(evts)*2, "one delivery per (event, endpoint)")
		for _, recs := range instances {
			wg.Go(func() {
				resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: recs})
				assert.NoError(t, err)
				assert.Empty(t, resp.BatchItemFailures, "a copy waits for the attempt made by another instance")
			})
		}
		wg.Wait()
		for _, rc := range []slowReceiver{a, b} {
			assert.Equal(t, len(evts), len(rc.requests()))
			for _, id := range evts {
				assert.Equal(t, 1, rc.byEvent()[id], "event %s", id)
			}
		}
		assert.Len(t, p.attempts(t, epA), len(evts))

		// Replayed again once delivered (a mapping created later): nothing
		// reaches a receiver.
		assert.Equal(t, len(batch), p.pub.Consume(context.Background(), batch))
		p.pumpFor(t, 3*time.Second)
		assert.Equal(t, len(evts), len(a.requests()))
		assert.Equal(t, len(evts), len(b.requests()))

		// The merchant's resend is a new delivery: it is sent.
		r := p.Do("POST", "/v1/events/"+evts[0]+"/resend", map[string]any{"endpoint_id": epA})
		require.Equal(t, 202, r.Status, "%s", r.Body)
		p.pump(t, liveness, func() bool { return a.byEvent()[evts[0]] == 2 })
		assert.Equal(t, len(evts), len(b.requests()))
	})
}

// The first deploy with aliases: a new event source mapping starts at
// TRIM_HORIZON while the old one still runs, so DynamoDB Local's real stream
// is read by two publishers at once, and later by a third; two sender
// instances take the queue (moto's SQS) at once. Each receiver sees each
// event once.
func TestNewMappingAtTrimHorizonDeliversNothingTwice(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	clock := &apitest.Clock{}
	p := newPipe(t, apitest.Options{Store: dynamostore.New(client, tables, clock.Now), Queue: sqstest.NewForTest(t, queue.Webhooks), Clock: clock}, fast)
	rc := newSlowReceiver(t)
	p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
	handler := app.StreamLambda(p.pub.Consume, tables, nil)
	streamtest.Start(t, client, tables[store.TableEvents], handler)

	evts := []string{writeOrderEvent(t, p.Deps.Store, p.Account.ID, time.Now())}
	writePaymentEvents(t, p.Deps.Store, p.Account.ID, time.Now(), time.Now())
	streamtest.Start(t, client, tables[store.TableEvents], handler) // the new mapping, TRIM_HORIZON

	// Two sender instances at once until every event arrived, then a while
	// longer for any copy still queued.
	instances := func(d time.Duration, done func() bool) {
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				poller := p.poller()
				for end := time.Now().Add(d); time.Now().Before(end) && !done(); {
					_, err := poller.Once(context.Background())
					assert.NoError(t, err)
				}
			})
		}
		wg.Wait()
	}
	instances(liveness, func() bool { return len(rc.byEvent()) >= 3 })
	require.Len(t, rc.byEvent(), 3, "three events delivered")
	instances(3*time.Second, func() bool { return false })

	// A mapping created later still replays the whole stream.
	streamtest.Start(t, client, tables[store.TableEvents], handler)
	instances(5*time.Second, func() bool { return false })

	n := rc.byEvent()
	assert.Len(t, n, 3)
	for id, c := range n {
		assert.Equal(t, 1, c, "event %s", id)
	}
	assert.Equal(t, 1, n[evts[0]])
	assert.Equal(t, 3, len(rc.requests()))
}

// crashing stands in for a sender instance that dies in the middle of its
// POST: the goroutine making the attempt ends there, nothing recorded.
type crashing struct{}

func (crashing) RoundTrip(*http.Request) (*http.Response, error) {
	runtime.Goexit()
	return nil, nil
}

// A sender that claimed an attempt and crashed before recording it: a copy
// of the message handled while the claim holds is retried (reported failed,
// never dropped, never sent), and once the claim has lapsed (SendLease) a
// copy makes the attempt. At least once survives the claim.
func TestLapsedClaimIsTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the claim (15 s)")
	}
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(200))
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		p.publish(t)
		msgs := p.drain(t, 1)
		batch := lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "m", Body: string(msgs[0].Body)}}}

		crash := webhooks.NewSender(p.svc, p.Deps.Queue, webhooks.SenderConfig{Schedule: fast,
			Clients: webhooks.Clients{outbound.TestLocal: {Transport: crashing{}}}})
		_, err := app.SQSLambda(crash.Consume)(context.Background(), batch)
		require.NoError(t, err)
		assert.Equal(t, 0, len(rc.requests()))

		// A copy of the attempt, and the next attempt of the same delivery,
		// while the claim holds: neither is sent (attempts never overlap),
		// both come back later.
		var next webhooks.Message
		require.NoError(t, json.Unmarshal(msgs[0].Body, &next))
		next.Attempt = 2
		nextBody, err := json.Marshal(next)
		require.NoError(t, err)
		resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{
			batch.Records[0], {MessageId: "next", Body: string(nextBody)}}})
		require.NoError(t, err)
		assert.Len(t, resp.BatchItemFailures, 2, "claimed by a sender that may still be at work: retried later")
		assert.Equal(t, 0, len(rc.requests()))
		assert.Empty(t, p.attempts(t, ep))

		p.Clock.Advance(webhooks.SendLease + time.Second)
		resp, err = app.SQSLambda(p.sender.Consume)(context.Background(), batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Equal(t, 1, len(rc.requests()), "the lapsed claim is taken over")
		resp, err = app.SQSLambda(p.sender.Consume)(context.Background(), batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Equal(t, 1, len(rc.requests()), "and made once")
		assert.Len(t, p.attempts(t, ep), 1)
	})
}

// A copy of an attempt handled after a later attempt of its delivery was
// claimed (a stale duplicate, say a replayed first attempt while the second
// is in flight) has nothing to do: no POST, no retry.
func TestStaleAttemptAfterALaterClaimSendsNothing(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(200))
		p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		p.publish(t)
		msgs := p.drain(t, 1)
		var second webhooks.Message
		require.NoError(t, json.Unmarshal(msgs[0].Body, &second))
		second.Attempt = 2
		body, err := json.Marshal(second)
		require.NoError(t, err)
		crash := webhooks.NewSender(p.svc, p.Deps.Queue, webhooks.SenderConfig{Schedule: fast,
			Clients: webhooks.Clients{outbound.TestLocal: {Transport: crashing{}}}})
		_, err = app.SQSLambda(crash.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "2", Body: string(body)}}})
		require.NoError(t, err)

		start := time.Now()
		resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "1", Body: string(msgs[0].Body)}}})
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Less(t, time.Since(start), 5*time.Second, "not waited for")
		assert.Equal(t, 0, len(rc.requests()))
	})
}

var errThrottled = errors.New("throttled (a test's storm)")

// failingWrites fails the next n writes with an unavailable store, as a
// throttling storm does.
type failingWrites struct {
	store.Store
	mu sync.Mutex
	n  int
}

func (f *failingWrites) fail(n int) { f.mu.Lock(); f.n = n; f.mu.Unlock() }

func (f *failingWrites) Write(ctx context.Context, ops ...store.Op) error {
	f.mu.Lock()
	fail := f.n > 0
	if fail {
		f.n--
	}
	f.mu.Unlock()
	if fail {
		return errThrottled
	}
	return f.Store.Write(ctx, ops...)
}

// An attempt the receiver acknowledged whose record meets store failures
// is recorded once they pass, within its claim: the message is done and the
// event never sent again. Fails without the sender's tries of the record
// (make chaos, seed 2: an event acknowledged twice after a throttled
// write): the message came back and, once the claim lapsed, POSTed again.
func TestAnAcknowledgedAttemptIsRecordedThroughStoreFailures(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		st := &failingWrites{Store: p.Deps.Store}
		rc := newReceiver(t, func(int, *http.Request) int {
			st.fail(3) // the attempt's record, after the POST
			return 200
		})
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		p.publish(t)
		msgs := p.drain(t, 1)
		batch := lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "m", Body: string(msgs[0].Body)}}}
		sender := webhooks.NewSender(webhooks.New(st, p.Deps.Clock), p.Deps.Queue, webhooks.SenderConfig{Schedule: fast})

		resp, err := app.SQSLambda(sender.Consume)(context.Background(), batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures, "recorded: nothing to come back")
		require.Len(t, p.attempts(t, ep), 1)

		// A copy after the claim would have lapsed finds the attempt made.
		p.Clock.Advance(webhooks.SendLease + time.Second)
		resp, err = app.SQSLambda(sender.Consume)(context.Background(), batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Equal(t, 1, len(rc.requests()), "the receiver saw the event once")
		assert.Len(t, p.attempts(t, ep), 1)
	})
}

// An invocation too close to its deadline for an attempt's POST and record
// (Lambda ends it there, and an attempt POSTed and never recorded is made
// again, so the receiver would see the event twice) makes none: the
// message comes back in a second, and the next invocation, with time,
// delivers it once.
func TestNoAttemptStartsTooCloseToTheDeadline(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(200))
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		p.publish(t)
		msgs := p.drain(t, 1)
		batch := lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{{MessageId: "m", Body: string(msgs[0].Body)}}}

		late, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		resp, err := app.SQSLambda(p.sender.Consume)(late, batch)
		require.NoError(t, err)
		assert.Len(t, resp.BatchItemFailures, 1, "left for the next receive")
		assert.Empty(t, rc.requests(), "no POST")
		assert.Empty(t, p.attempts(t, ep))

		timely, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		resp, err = app.SQSLambda(p.sender.Consume)(timely, batch)
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)
		assert.Len(t, rc.requests(), 1)
		assert.Len(t, p.attempts(t, ep), 1)
	})
}
