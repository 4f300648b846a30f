package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	"github.com/paygate/paygate/shared/console/webhooks/signature"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// fast is a retry schedule for tests: the same rules as DefaultSchedule on a
// scale of a second (queue delays, on SQS and the embedded queue alike, are
// whole seconds, so each wait here lasts about one).
var fast = webhooks.Schedule{
	Delays: []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 100 * time.Millisecond},
	Every:  200 * time.Millisecond,
	MaxAge: 8 * time.Second,
}

// pipe is an API server with the endpoints and events groups, and the
// publisher and sender over its store and queue.
type pipe struct {
	*apitest.Env
	svc    *webhooks.Service
	pub    *webhooks.Publisher
	sender *webhooks.Sender
}

func buildEventsWithQueue(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).WithQueue(d.Queue).EventsRoutes(), nil
}

func newPipe(t *testing.T, o apitest.Options, sched webhooks.Schedule) *pipe {
	e := apitest.NewWith(t, o, buildEndpoints, buildEventsWithQueue)
	svc := webhooks.New(e.Deps.Store, e.Deps.Clock)
	return &pipe{Env: e, svc: svc, pub: webhooks.NewPublisher(svc, e.Deps.Queue, nil),
		sender: webhooks.NewSender(svc, e.Deps.Queue, webhooks.SenderConfig{Schedule: sched})}
}

// bothPipes runs f on the embedded store and queue, and on DynamoDB Local
// with moto's SQS.
func bothPipes(t *testing.T, sched webhooks.Schedule, f func(t *testing.T, p *pipe)) {
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		f(t, newPipe(t, apitest.Options{}, sched))
	})
	t.Run("dynamodb+sqs", func(t *testing.T) {
		t.Parallel()
		clock := &apitest.Clock{}
		f(t, newPipe(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Queue: sqstest.NewForTest(t, queue.Webhooks), Clock: clock}, sched))
	})
}

// receiver is a local webhook receiver that records every request.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []received
	// answer returns the status for the n-th request (1-based).
	answer func(n int, r *http.Request) int
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T, answer func(n int, r *http.Request) int) *receiver {
	rc := &receiver{answer: answer}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{header: r.Header.Clone(), body: b})
		n := len(rc.got)
		rc.mu.Unlock()
		w.WriteHeader(rc.answer(n, r))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) requests() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

func always(code int) func(int, *http.Request) int {
	return func(int, *http.Request) int { return code }
}

// endpoint registers url for events and returns its id and secret.
func (p *pipe) endpoint(t *testing.T, url string, evs []string, extra map[string]any) (string, string) {
	body := map[string]any{"url": url, "enabled_events": evs}
	for k, v := range extra {
		body[k] = v
	}
	r := p.Do("POST", "/v1/webhook-endpoints", body)
	require.Equal(t, 201, r.Status, "%s", r.Body)
	m := r.Map(t)
	return m["id"].(string), m["secret"].(string)
}

// publish writes an order.completed event for the account (as the orders
// package does) and hands its record to the publisher, as the stream would.
func (p *pipe) publish(t *testing.T) string {
	id := writeOrderEvent(t, p.Deps.Store, p.Account.ID, time.Now())
	it, err := p.Deps.Store.Get(context.Background(), eventlog.Key(p.Account.ID, id))
	require.NoError(t, err)
	_, err = p.pub.Publish(context.Background(), it)
	require.NoError(t, err)
	return id
}

// liveness bounds a wait for something that must happen: generous, since a
// loaded machine (DynamoDB Local and moto share two cores with the build)
// can be slow, and a passing run returns as soon as it happens.
const liveness = 60 * time.Second

// poller feeds the webhooks queue to the sender, as the event source
// mapping does.
func (p *pipe) poller() *app.Poller {
	return &app.Poller{Queue: p.Deps.Queue, Name: queue.Webhooks, Handler: app.SQSLambda(p.sender.Consume),
		Wait: 100 * time.Millisecond, Visibility: 30 * time.Second, Timeout: 20 * time.Second}
}

// pump feeds the webhooks queue to the sender until done holds.
func (p *pipe) pump(t *testing.T, within time.Duration, done func() bool) {
	t.Helper()
	poller := p.poller()
	deadline := time.Now().Add(within)
	for !done() {
		require.True(t, time.Now().Before(deadline), "not done within %s", within)
		_, err := poller.Once(context.Background())
		require.NoError(t, err)
	}
}

func (p *pipe) attempts(t *testing.T, endpointID string) []map[string]any {
	r := p.Do("GET", "/v1/webhook-endpoints/"+endpointID+"/deliveries?limit=100", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var l struct {
		Data []map[string]any `json:"data"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &l))
	return l.Data
}

// verifyByHand checks a delivery's signature with a hand-written HMAC, not
// the signature package that signed it.
func verifyByHand(t *testing.T, rq received, secret string) {
	t.Helper()
	parts := strings.Split(rq.header.Get("Service-Signature"), ",")
	require.True(t, strings.HasPrefix(parts[0], "t="), "%v", parts)
	ts := strings.TrimPrefix(parts[0], "t=")
	sec, err := strconv.ParseInt(ts, 10, 64)
	require.NoError(t, err)
	assert.InDelta(t, time.Now().Unix(), sec, 60)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(rq.body)))
	want := "v1=" + hex.EncodeToString(m.Sum(nil))
	assert.Contains(t, parts[1:], want, "no v1 matches the hand-made HMAC")

	// A tampered body or an old t fails the same hand check.
	m = hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts + "." + string(rq.body) + " "))
	assert.NotContains(t, parts[1:], "v1="+hex.EncodeToString(m.Sum(nil)))
}

func TestDeliveredOnTheFourthAttemptAfterThree500s(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, func(n int, _ *http.Request) int {
			if n <= 3 {
				return 500
			}
			return 200
		})
		ep, secret := p.endpoint(t, rc.srv.URL+"/hook", []string{"order.completed"}, nil)
		evt := p.publish(t)
		p.pump(t, liveness, func() bool { return len(p.attempts(t, ep)) == 4 })

		reqs := rc.requests()
		require.Len(t, reqs, 4)
		for _, rq := range reqs {
			assert.Equal(t, evt, rq.header.Get("Service-Event-Id"))
			assert.Equal(t, "order.completed", rq.header.Get("Service-Event-Type"))
			assert.Contains(t, rq.header.Get("User-Agent"), "paygate-webhooks")
			assert.Equal(t, "application/json", rq.header.Get("Content-Type"))
			verifyByHand(t, rq, secret)
		}
		var env map[string]any
		require.NoError(t, json.Unmarshal(reqs[3].body, &env))
		assert.ElementsMatch(t, []string{"id", "type", "created", "data"}, keys(env), "the 2023-09-01+ envelope")
		assert.Equal(t, evt, env["id"])

		as := p.attempts(t, ep) // newest first
		for i, a := range as {
			assert.Equal(t, float64(4-i), a["attempt"])
			assert.Equal(t, evt, a["event_id"])
		}
		assert.Equal(t, "succeeded", as[0]["status"])
		assert.Equal(t, float64(200), as[0]["status_code"])
		assert.Nil(t, as[0]["next_attempt_at"])
		for _, a := range as[1:] {
			assert.Equal(t, "failed", a["status"])
			assert.Equal(t, float64(500), a["status_code"])
			assert.NotNil(t, a["next_attempt_at"])
			assert.Contains(t, a["error"], "500")
		}
		// Done: nothing more is queued, nothing more is sent.
		msgs, err := p.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, time.Second, 200*time.Millisecond)
		require.NoError(t, err)
		assert.Empty(t, msgs)
		assert.Len(t, rc.requests(), 4)
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A receiver that refuses connections, then comes up: every event arrives,
// each succeeding once.
func TestReceiverDownThenUp(t *testing.T) {
	bothPipes(t, webhooks.Schedule{Delays: []time.Duration{50 * time.Millisecond}, Every: 100 * time.Millisecond, MaxAge: time.Minute},
		func(t *testing.T, p *pipe) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			addr := ln.Addr().String()
			require.NoError(t, ln.Close()) // down: connections are refused

			ep, _ := p.endpoint(t, "http://"+addr+"/hook", []string{"*"}, nil)
			var evts []string
			for range 5 {
				evts = append(evts, p.publish(t))
			}
			p.pump(t, liveness, func() bool { return len(p.attempts(t, ep)) >= 5 })
			for _, a := range p.attempts(t, ep) {
				assert.Equal(t, "failed", a["status"])
				assert.Nil(t, a["status_code"])
				// One generic reason: not the dial error, the address or the port.
				assert.Equal(t, outbound.CouldNotConnect, a["error"])
			}

			var mu sync.Mutex
			okBy := map[string]int{}
			ln, err = net.Listen("tcp", addr)
			require.NoError(t, err)
			srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				okBy[r.Header.Get("Service-Event-Id")]++
				mu.Unlock()
			})}
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })

			p.pump(t, liveness, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(okBy) == len(evts)
			})
			// Let any stray retry show itself before counting.
			p.pump(t, 10*time.Second, func() bool { return true })
			mu.Lock()
			defer mu.Unlock()
			for _, id := range evts {
				assert.Equal(t, 1, okBy[id], "event %s", id)
			}
		})
}

// The sender handed one message twice (SQS's at-least-once), two copies at
// once: one POST, the attempt recorded once, no copy reported failed.
func TestSameMessageTwiceCarriesOneEventID(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(200))
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		p.publish(t)
		msgs, err := p.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, 30*time.Second, 5*time.Second)
		require.NoError(t, err)
		require.Len(t, msgs, 1)
		// The same body to two senders at once, as a redelivery to a second
		// function instance would hand it, then once more after both.
		var wg sync.WaitGroup
		for _, id := range []string{"a", "b"} {
			wg.Go(func() {
				resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{
					Records: []lambdaevents.SQSMessage{{MessageId: id, Body: string(msgs[0].Body)}}})
				assert.NoError(t, err)
				assert.Empty(t, resp.BatchItemFailures)
			})
		}
		wg.Wait()
		resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{
			Records: []lambdaevents.SQSMessage{{MessageId: "c", Body: string(msgs[0].Body)}}})
		require.NoError(t, err)
		assert.Empty(t, resp.BatchItemFailures)

		assert.Equal(t, 1, len(rc.requests()), "copies handled at once POST once; a delivered message is not sent again")
		assert.Len(t, p.attempts(t, ep), 1)
	})
}

// The publisher handed one record twice (a retried stream batch) queues the
// same deliveries, which the sender makes once.
func TestRecordPublishedTwiceIsDeliveredOnce(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(204))
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		id := p.publish(t)
		it, err := p.Deps.Store.Get(context.Background(), eventlog.Key(p.Account.ID, id))
		require.NoError(t, err)
		_, err = p.pub.Publish(context.Background(), it)
		require.NoError(t, err)
		p.pump(t, liveness, func() bool { return len(p.attempts(t, ep)) >= 1 })
		p.pump(t, 5*time.Second, func() bool { return true })
		assert.Len(t, rc.requests(), 1)
		assert.Len(t, p.attempts(t, ep), 1)
	})
}

// Disabled, unsubscribed and later endpoints get nothing; a resend reaches
// the later one.
func TestOnlySubscribedEnabledEndpointsHear(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		on := newReceiver(t, always(200))
		off := newReceiver(t, always(200))
		other := newReceiver(t, always(200))
		later := newReceiver(t, always(200))
		p.endpoint(t, on.srv.URL, []string{"order.completed"}, nil)
		disabled, _ := p.endpoint(t, off.srv.URL, []string{"*"}, nil)
		r := p.Do("POST", "/v1/webhook-endpoints/"+disabled, map[string]any{"disabled": true})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		p.endpoint(t, other.srv.URL, []string{"order.failed", "payment.authorised"}, nil)

		evt := p.publish(t)
		lateID, _ := p.endpoint(t, later.srv.URL, []string{"order.completed"}, nil)
		p.pump(t, liveness, func() bool { return len(on.requests()) == 1 })
		p.pump(t, 3*time.Second, func() bool { return true })
		assert.Empty(t, off.requests(), "disabled")
		assert.Empty(t, other.requests(), "not subscribed")
		assert.Empty(t, later.requests(), "created after the event")

		r = p.Do("POST", "/v1/events/"+evt+"/resend", map[string]any{"endpoint_id": lateID})
		require.Equal(t, 202, r.Status, "%s", r.Body)
		p.pump(t, liveness, func() bool { return len(later.requests()) == 1 })
		assert.Equal(t, evt, later.requests()[0].header.Get("Service-Event-Id"))
		as := p.attempts(t, lateID)
		require.Len(t, as, 1)
		assert.Equal(t, true, as[0]["resend"])

		// A resend to everyone subscribed now: on and later (not off, not other).
		r = p.Do("POST", "/v1/events/"+evt+"/resend", nil)
		require.Equal(t, 202, r.Status, "%s", r.Body)
		assert.Len(t, r.Map(t)["deliveries"], 2)
		p.pump(t, liveness, func() bool { return len(on.requests()) == 2 && len(later.requests()) == 2 })

		r = p.Do("POST", "/v1/events/"+evt+"/resend", map[string]any{"endpoint_id": disabled})
		assert.Equal(t, 400, r.Status, "%s", r.Body)
	})
}

// Failing for the schedule's whole MaxAge: the delivery is failed, its
// message is in the DLQ, and the endpoint is disabled with a reason.
func TestGivenUpAfterMaxAge(t *testing.T) {
	short := fast
	short.MaxAge = 2 * time.Second
	bothPipes(t, short, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(503))
		ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
		evt := p.publish(t)
		p.pump(t, liveness, func() bool {
			as := p.attempts(t, ep)
			return len(as) > 0 && as[0]["next_attempt_at"] == nil
		})
		as := p.attempts(t, ep)
		assert.GreaterOrEqual(t, len(as), 2)
		for _, a := range as {
			assert.Equal(t, "failed", a["status"])
		}
		var dead []queue.Message
		require.Eventually(t, func() bool {
			msgs, err := p.Deps.Queue.Receive(context.Background(), queue.DLQName(queue.Webhooks), 10, time.Minute, 200*time.Millisecond)
			require.NoError(t, err)
			dead = append(dead, msgs...)
			return len(dead) > 0
		}, 10*time.Second, 10*time.Millisecond)
		// One delivery given up. A copy of its last message handled at the
		// same moment (SQS delivers at least once; a loaded machine lets a
		// visibility timeout lapse) dead-letters the same body again before
		// one of the two records the attempt: the DLQ is at least once too,
		// so copies are allowed, other deliveries are not.
		bodies := map[string]bool{}
		for _, m := range dead {
			bodies[string(m.Body)] = true
		}
		require.Len(t, bodies, 1, "one delivery dead-lettered")
		assert.Contains(t, string(dead[0].Body), evt)

		r := p.Do("GET", "/v1/webhook-endpoints/"+ep, nil)
		require.Equal(t, 200, r.Status)
		m := r.Map(t)
		assert.Equal(t, true, m["disabled"])
		assert.Contains(t, m["disabled_reason"], "failed")
		// A new event to the disabled endpoint: nothing is sent.
		n := len(rc.requests())
		p.publish(t)
		p.pump(t, 3*time.Second, func() bool { return true })
		assert.Len(t, rc.requests(), n)
	})
}

// A receiver sleeping 15 s is a failure at the 10 s delivery timeout.
func TestSlowReceiverFailsAtTenSeconds(t *testing.T) {
	if testing.Short() {
		t.Skip("waits the 10 s delivery timeout")
	}
	t.Parallel()
	p := newPipe(t, apitest.Options{}, webhooks.DefaultSchedule)
	var calls atomic.Int32
	rc := newReceiver(t, func(int, *http.Request) int {
		calls.Add(1)
		time.Sleep(15 * time.Second)
		return 200
	})
	ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
	p.publish(t)
	start := time.Now()
	p.pump(t, liveness, func() bool { return len(p.attempts(t, ep)) == 1 })
	took := time.Since(start)
	a := p.attempts(t, ep)[0]
	assert.Equal(t, "failed", a["status"])
	assert.Nil(t, a["status_code"])
	assert.Equal(t, "timeout: no answer within 10s", a["error"])
	assert.GreaterOrEqual(t, a["latency_ms"], float64(9900))
	assert.Less(t, took, 14*time.Second, "given up at the timeout, not after the receiver's 15 s")
	assert.NotNil(t, a["next_attempt_at"], "retried later")
}

// The endpoint's api_version picks the envelope: {name, merchantId, data} at
// 2023-06-01, and data through the dated changes (no metadata before
// 2024-01-15).
func TestLegacyEnvelopeForOldVersions(t *testing.T) {
	p := newPipe(t, apitest.Options{}, fast)
	old := newReceiver(t, always(200))
	mid := newReceiver(t, always(200))
	cur := newReceiver(t, always(200))
	p.endpoint(t, old.srv.URL, []string{"*"}, map[string]any{"api_version": "2023-06-01"})
	p.endpoint(t, mid.srv.URL, []string{"*"}, map[string]any{"api_version": "2023-09-01"})
	p.endpoint(t, cur.srv.URL, []string{"*"}, nil) // the account's default: current
	evt := p.publish(t)
	p.pump(t, liveness, func() bool {
		return len(old.requests()) == 1 && len(mid.requests()) == 1 && len(cur.requests()) == 1
	})
	var o, m, c map[string]any
	require.NoError(t, json.Unmarshal(old.requests()[0].body, &o))
	require.NoError(t, json.Unmarshal(mid.requests()[0].body, &m))
	require.NoError(t, json.Unmarshal(cur.requests()[0].body, &c))
	assert.ElementsMatch(t, []string{"name", "merchantId", "data"}, keys(o))
	assert.Equal(t, "order.completed", o["name"])
	assert.Equal(t, p.Account.ID, o["merchantId"])
	assert.ElementsMatch(t, []string{"id", "type", "created", "data"}, keys(m))
	assert.Equal(t, evt, m["id"])
	assert.NotContains(t, m["data"], "metadata", "metadata arrived in 2024-01-15")
	assert.ElementsMatch(t, []string{"id", "type", "created", "data"}, keys(c))
}

// Another account's endpoint deliveries and events: 404, also for resend.
func TestDeliveriesAndResendAreTheAccountsOwn(t *testing.T) {
	p := newPipe(t, apitest.Options{}, fast)
	rc := newReceiver(t, always(200))
	ep, _ := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
	evt := p.publish(t)
	_, otherKey := p.NewAccount("test")
	for _, c := range []struct{ method, path string }{
		{"GET", "/v1/webhook-endpoints/" + ep + "/deliveries"},
		{"POST", "/v1/events/" + evt + "/resend"},
	} {
		r := p.DoKey(otherKey, c.method, c.path, nil)
		assert.Equal(t, 404, r.Status, "%s %s: %s", c.method, c.path, r.Body)
	}
	// The other account naming this account's endpoint in its own resend.
	r := p.DoKey(otherKey, "POST", "/v1/events/"+evt+"/resend", map[string]any{"endpoint_id": ep})
	assert.Equal(t, 404, r.Status)
	for _, bad := range []string{"nope", "", ep + "0"} {
		r = p.Do("POST", "/v1/events/"+evt+"/resend", map[string]any{"endpoint_id": bad})
		assert.Equal(t, 400, r.Status, "endpoint_id %q: %s", bad, r.Body)
	}
}

// On AWS's parts: event records written by the areas' own writers reach the
// publisher through DynamoDB Local's real stream (the poller stands in for
// the event source mapping), and the sender through moto's SQS.
func TestStreamToReceiverOnDynamoDBAndSQS(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	clock := &apitest.Clock{}
	p := newPipe(t, apitest.Options{Store: dynamostore.New(client, tables, clock.Now), Queue: sqstest.NewForTest(t, queue.Webhooks), Clock: clock}, fast)
	streamtest.Start(t, client, tables[store.TableEvents], app.StreamLambda(p.pub.Consume, tables, nil))

	rc := newReceiver(t, always(200))
	_, secret := p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
	order := writeOrderEvent(t, p.Deps.Store, p.Account.ID, time.Now())
	writePaymentEvents(t, p.Deps.Store, p.Account.ID, time.Now(), time.Now())
	p.pump(t, liveness, func() bool { return len(rc.requests()) >= 3 })

	types := map[string]string{}
	for _, rq := range rc.requests() {
		verifyByHand(t, rq, secret)
		require.NoError(t, signature.Verify(rq.body, rq.header.Get(signature.HeaderSignature), time.Now(), signature.DefaultTolerance, secret))
		types[rq.header.Get("Service-Event-Type")] = rq.header.Get("Service-Event-Id")
	}
	assert.Equal(t, order, types["order.completed"])
	assert.Contains(t, types, "payment.authorised")
	assert.Contains(t, types, "payment.charged")
	assert.Len(t, rc.requests(), 3)
}

// A message no sender can read goes to the DLQ at once (retrying would not
// make it readable), and the batch's other messages are still delivered.
func TestUnreadableMessageGoesToTheDLQ(t *testing.T) {
	p := newPipe(t, apitest.Options{}, fast)
	rc := newReceiver(t, always(200))
	p.endpoint(t, rc.srv.URL, []string{"*"}, nil)
	p.publish(t)
	msgs, err := p.Deps.Queue.Receive(context.Background(), queue.Webhooks, 10, time.Minute, time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	resp, err := app.SQSLambda(p.sender.Consume)(context.Background(), lambdaevents.SQSEvent{Records: []lambdaevents.SQSMessage{
		{MessageId: "bad", Body: `{"event":"evt_x"}`}, {MessageId: "good", Body: string(msgs[0].Body)},
	}})
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
	assert.Len(t, rc.requests(), 1)
	dead, err := p.Deps.Queue.Receive(context.Background(), queue.DLQName(queue.Webhooks), 10, time.Minute, time.Second)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.JSONEq(t, `{"event":"evt_x"}`, string(dead[0].Body))
}

// A test endpoint on loopback (registered where ENVIRONMENT was local, or
// before loopback was refused elsewhere) gets nothing from a sender whose
// environment is not local: the dial-time check refuses the resolved address,
// the receiver is never reached, and the deliveries API says only "could not
// connect" (no dial error, address or port: no oracle on the sender's
// loopback, where the Lambda Runtime API listens).
func TestDeployedSenderRefusesLoopback(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newReceiver(t, always(200))
		_, port, err := net.SplitHostPort(rc.srv.Listener.Addr().String())
		require.NoError(t, err)
		byAddr, _ := p.endpoint(t, rc.srv.URL+"/hook", []string{"*"}, nil)
		byName, _ := p.endpoint(t, "http://localhost:"+port+"/hook", []string{"*"}, nil)
		p.sender = webhooks.NewSender(webhooks.New(p.Deps.Store, p.Deps.Clock).WithEnvironment("prod"), p.Deps.Queue, webhooks.SenderConfig{Schedule: fast})
		p.publish(t)
		p.pump(t, liveness, func() bool { return len(p.attempts(t, byAddr)) >= 1 && len(p.attempts(t, byName)) >= 1 })
		assert.Empty(t, rc.requests(), "loopback reached from a deployed environment")
		for _, ep := range []string{byAddr, byName} {
			for _, a := range p.attempts(t, ep) {
				assert.Equal(t, "failed", a["status"])
				assert.Nil(t, a["status_code"])
				assert.Equal(t, outbound.CouldNotConnect, a["error"])
			}
			r := p.Do("GET", "/v1/webhook-endpoints/"+ep+"/deliveries", nil)
			require.Equal(t, 200, r.Status)
			assert.NotContains(t, string(r.Body), "127.0.0.1")
			assert.NotContains(t, string(r.Body), "refused")
		}
	})
}
