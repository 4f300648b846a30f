// Package faults injects the failures a deployed stack meets from DynamoDB
// and SQS into the local gateway's AWS clients (issue 30): an
// http.RoundTripper under the SDK, after signing and the SDK's retryer, so
// the SDK retries what it would retry on AWS and the service sees what it
// would see when the retries run out.
//
// It is linked only by the local gateway (infra/local, with FAULTS set) and
// the chaos runner; the Lambda functions never import it (importrules) and
// never set app.Config.Transport, so a deployed stack cannot enable it.
//
// Every decision comes from one seeded generator, so a run's schedule of
// faults is reproduced from its seed (given the same order of calls).
package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Kind is one way a call fails.
type Kind string

// The kinds, by where they happen.
const (
	// Throttle answers the call as DynamoDB (ProvisionedThroughputExceeded)
	// or SQS (RequestThrottled) answers a throttled call; nothing reached the
	// table or queue.
	Throttle Kind = "throttle"
	// ServerError answers 500; nothing reached the table or queue.
	ServerError Kind = "500"
	// Reset fails the call as a reset connection before it was sent.
	Reset Kind = "reset"
	// LostAnswer sends the call, lets it commit, and drops the answer as a
	// reset connection: the ambiguous outcome.
	LostAnswer Kind = "lost-answer"
	// LateAnswer sends the call, lets it commit, and holds the answer past
	// the caller's deadline (the attempt's timeout).
	LateAnswer Kind = "late-answer"
	// LostDelete answers an SQS DeleteMessage as done without sending it:
	// the message comes back after its visibility timeout.
	LostDelete Kind = "lost-delete"
	// Duplicate sends an SQS SendMessage twice: SQS's at-least-once.
	Duplicate Kind = "duplicate"
	// Delayed sends an SQS SendMessage with a delay of a few seconds.
	Delayed Kind = "delayed"
	// Storm throttles every DynamoDB data call for a few seconds, longer
	// than the SDK's retries last.
	Storm Kind = "storm"
	// Deadline cuts an invocation of a queue consumer, stream consumer or
	// scheduled task at a random moment, as Lambda's timeout ends one
	// midway: its context ends, and the invocation fails whole (Cut).
	Deadline Kind = "deadline"
)

// All is every kind, in the order reports list them.
var All = []Kind{Throttle, ServerError, Reset, LostAnswer, LateAnswer, LostDelete, Duplicate, Delayed, Storm, Deadline}

// Plan is what to inject: Parse reads it from FAULTS.
type Plan struct {
	Seed  uint64
	Rate  float64 // the share of eligible calls that fail
	Kinds []Kind
	// StormEvery and StormFor: a storm starts every StormEvery from the
	// transport's start (the first after one period: a start-up meets no
	// storm) and lasts StormFor; zero is no storms.
	StormEvery, StormFor time.Duration
	// Limit stops injecting after Limit faults (0: no limit); a test uses
	// it to fail one attempt and let the SDK's retry through.
	Limit int
	// Report, when set, is a file the counts are written to as JSON after
	// every injection, so a runner reads them even after kill -9.
	Report string
	// Spare names the functions whose invocations Deadline never cuts.
	Spare []string
}

// Parse reads a plan: comma-separated key=value pairs, for example
// "seed=42,rate=0.1,kinds=throttle+500+reset+lost-answer,storm=20s/3s".
// kinds defaults to every kind but storm; rate to 0.05.
func Parse(spec string) (Plan, error) {
	p := Plan{Rate: 0.05}
	for part := range strings.SplitSeq(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return p, fmt.Errorf("faults: %q is not key=value", part)
		}
		switch k {
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return p, fmt.Errorf("faults: seed: %w", err)
			}
			p.Seed = n
		case "rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 || r > 1 {
				return p, fmt.Errorf("faults: rate must be between 0 and 1, not %q", v)
			}
			p.Rate = r
		case "kinds":
			for name := range strings.SplitSeq(v, "+") {
				if !slices.Contains(All, Kind(name)) {
					return p, fmt.Errorf("faults: unknown kind %q (known: %v)", name, All)
				}
				p.Kinds = append(p.Kinds, Kind(name))
			}
		case "storm":
			every, dur, ok := strings.Cut(v, "/")
			e, err1 := time.ParseDuration(every)
			d, err2 := time.ParseDuration(dur)
			if !ok || err1 != nil || err2 != nil || d <= 0 || e <= d {
				return p, fmt.Errorf("faults: storm is every/duration, e.g. 20s/3s, not %q", v)
			}
			p.StormEvery, p.StormFor = e, d
		case "limit":
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return p, fmt.Errorf("faults: limit must be a count, not %q", v)
			}
			p.Limit = n
		case "report":
			p.Report = v
		case "spare":
			p.Spare = strings.Split(v, "+")
		default:
			return p, fmt.Errorf("faults: unknown key %q", k)
		}
	}
	if p.Kinds == nil {
		p.Kinds = slices.DeleteFunc(slices.Clone(All), func(k Kind) bool { return k == Storm })
	}
	if p.StormEvery > 0 && !slices.Contains(p.Kinds, Storm) {
		p.Kinds = append(p.Kinds, Storm)
	}
	return p, nil
}

// Transport injects the plan's faults into the calls it carries.
type Transport struct {
	next  http.RoundTripper
	plan  Plan
	start time.Time

	mu     sync.Mutex
	rng    *rand.Rand
	counts map[Kind]int
	total  int
}

// New wraps next (http.DefaultTransport when nil).
func New(p Plan, next http.RoundTripper) *Transport {
	if next == nil {
		next = http.DefaultTransport
	}
	t := &Transport{next: next, plan: p, start: time.Now(), rng: rand.New(rand.NewPCG(p.Seed, 0x5eed)), counts: map[Kind]int{}}
	if p.Report != "" {
		// A gateway started again after kill -9 adds to its predecessor's
		// counts, and draws other faults than it (the generator is seeded
		// with the seed and the count so far).
		if prev, err := ReadReport(p.Report); err == nil {
			t.counts = prev
			for _, n := range prev {
				t.total += n
			}
			t.rng = rand.New(rand.NewPCG(p.Seed, 0x5eed+uint64(t.total)))
		}
	}
	return t
}

// Counts are the faults injected so far, by kind.
func (t *Transport) Counts() map[Kind]int {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[Kind]int, len(t.counts))
	for k, n := range t.counts {
		out[k] = n
	}
	return out
}

// ReadReport reads the counts a transport wrote to path (none yet: empty).
func ReadReport(path string) (map[Kind]int, error) {
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[Kind]int{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[Kind]int{}
	return out, json.Unmarshal(raw, &out)
}

// call is what the transport knows of a request from its X-Amz-Target.
type call struct {
	service string // "dynamodb", "streams", "sqs"
	op      string
}

func classify(r *http.Request) (call, bool) {
	target := r.Header.Get("X-Amz-Target")
	prefix, op, ok := strings.Cut(target, ".")
	if !ok {
		return call{}, false
	}
	switch prefix {
	case "DynamoDB_20120810":
		return call{"dynamodb", op}, true
	case "DynamoDBStreams_20120810":
		return call{"streams", op}, true
	case "AmazonSQS":
		return call{"sqs", op}, true
	}
	return call{}, false
}

// eligible lists the kinds that apply to c: data calls only (creating
// tables and queues, describing streams stay clean, as the runner's setup
// must succeed).
func eligible(c call) []Kind {
	switch c.service {
	case "dynamodb":
		switch c.op {
		case "TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem":
			return []Kind{Throttle, ServerError, Reset, LostAnswer, LateAnswer}
		case "GetItem", "Query", "BatchGetItem", "TransactGetItems", "Scan":
			return []Kind{Throttle, ServerError, Reset, LateAnswer}
		}
	case "streams":
		if c.op == "GetRecords" {
			return []Kind{ServerError, Reset}
		}
	case "sqs":
		switch c.op {
		case "SendMessage":
			return []Kind{ServerError, Reset, LostAnswer, Duplicate, Delayed}
		case "SendMessageBatch":
			return []Kind{ServerError, Reset, LostAnswer}
		case "ReceiveMessage":
			return []Kind{ServerError, Reset}
		case "DeleteMessage", "DeleteMessageBatch":
			return []Kind{LostDelete, Reset}
		}
	}
	return nil
}

// pick decides the fault of one call ("" for none) and counts it.
func (t *Transport) pick(c call) Kind {
	all := eligible(c)
	kinds := slices.DeleteFunc(slices.Clone(all), func(k Kind) bool { return !slices.Contains(t.plan.Kinds, k) })
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.plan.Limit > 0 && t.total >= t.plan.Limit {
		return ""
	}
	var k Kind
	switch {
	case t.plan.StormEvery > 0 && c.service == "dynamodb" && len(all) > 0 &&
		time.Since(t.start) > t.plan.StormEvery && time.Since(t.start)%t.plan.StormEvery < t.plan.StormFor:
		k = Storm
	case len(kinds) == 0 || t.rng.Float64() >= t.plan.Rate:
		return ""
	default:
		k = kinds[t.rng.IntN(len(kinds))]
	}
	t.countLocked(k)
	return k
}

// countLocked counts one fault of kind k (t.mu held) and writes the report.
func (t *Transport) countLocked(k Kind) {
	t.counts[k]++
	t.total++
	if t.plan.Report != "" {
		raw, _ := json.Marshal(t.counts)
		tmp := t.plan.Report + ".tmp"
		if os.WriteFile(tmp, raw, 0o600) == nil {
			_ = os.Rename(tmp, t.plan.Report)
		}
	}
}

// CutWithin bounds when a cut invocation's context ends: a random moment
// in its first CutWithin.
const CutWithin = 2 * time.Second

// ErrCut is the error of an invocation Deadline cut.
var ErrCut = errors.New("faults: invocation cut at its deadline (injected)")

// Cut runs one invocation of function (a consumer's batch, a scheduled
// task's run) under the plan's Deadline faults: with the plan's rate, its
// context ends at a random moment within CutWithin. An invocation still at
// work when its context ended fails whole with ErrCut, as one that Lambda
// timed out does (a queue batch then comes back after its visibility
// timeout, a stream batch is retried, a task waits for its next run),
// whatever it reported; only those count as injected.
func (t *Transport) Cut(ctx context.Context, function string, invoke func(context.Context) error) error {
	if !slices.Contains(t.plan.Kinds, Deadline) || slices.Contains(t.plan.Spare, function) {
		return invoke(ctx)
	}
	t.mu.Lock()
	hit := (t.plan.Limit == 0 || t.total < t.plan.Limit) && t.rng.Float64() < t.plan.Rate
	var after time.Duration
	if hit {
		after = time.Duration(t.rng.Int64N(int64(CutWithin)))
	}
	t.mu.Unlock()
	if !hit {
		return invoke(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, after)
	defer cancel()
	err := invoke(cctx)
	if ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		t.mu.Lock()
		t.countLocked(Deadline)
		t.mu.Unlock()
		return ErrCut
	}
	return err
}

// resetErr is what a reset connection looks like to the SDK (which retries
// it, as it would on AWS).
func resetErr() error {
	return &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// RoundTrip carries one call, failing it as planned.
func (t *Transport) RoundTrip(r *http.Request) (*http.Response, error) {
	c, ok := classify(r)
	if !ok {
		return t.next.RoundTrip(r)
	}
	k := t.pick(c)
	if k == "" {
		return t.next.RoundTrip(r)
	}
	switch k {
	case Throttle, Storm:
		return answer(r, c, http.StatusBadRequest, throttleCode(c)), nil
	case ServerError:
		return answer(r, c, http.StatusInternalServerError, serverCode(c)), nil
	case Reset:
		return nil, resetErr()
	case LostAnswer:
		res, err := t.next.RoundTrip(r)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		return nil, resetErr()
	case LateAnswer:
		res, err := t.next.RoundTrip(r)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		<-r.Context().Done()
		return nil, r.Context().Err()
	case LostDelete:
		if c.op == "DeleteMessageBatch" {
			return t.lostBatchDelete(r)
		}
		return jsonAnswer(r, http.StatusOK, []byte("{}")), nil
	case Duplicate:
		return t.duplicate(r)
	case Delayed:
		return t.delayed(r)
	}
	return t.next.RoundTrip(r)
}

// lostBatchDelete answers every entry as deleted without deleting any.
func (t *Transport) lostBatchDelete(r *http.Request) (*http.Response, error) {
	var in struct{ Entries []struct{ Id string } }
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	type ok struct{ Id string }
	out := struct {
		Successful []ok
		Failed     []any
	}{Failed: []any{}}
	for _, e := range in.Entries {
		out.Successful = append(out.Successful, ok{e.Id})
	}
	raw, _ := json.Marshal(out)
	return jsonAnswer(r, http.StatusOK, raw), nil
}

// duplicate sends the message twice and answers the second send.
func (t *Transport) duplicate(r *http.Request) (*http.Response, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	first, err := t.next.RoundTrip(withBody(r, body))
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, first.Body)
	first.Body.Close()
	return t.next.RoundTrip(withBody(r, body))
}

// delayed sends the message with a delay of 2 to 5 seconds (moto honours
// DelaySeconds; the signature is not checked locally).
func (t *Transport) delayed(r *http.Request) (*http.Response, error) {
	body, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var in map[string]any
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, err
	}
	t.mu.Lock()
	in["DelaySeconds"] = 2 + t.rng.IntN(4)
	t.mu.Unlock()
	raw, _ := json.Marshal(in)
	return t.next.RoundTrip(withBody(r, raw))
}

func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	return io.ReadAll(r.Body)
}

func withBody(r *http.Request, body []byte) *http.Request {
	c := r.Clone(r.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.ContentLength = int64(len(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return c
}

func throttleCode(c call) string {
	if c.service == "sqs" {
		return "com.amazonaws.sqs#RequestThrottled"
	}
	return "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"
}

func serverCode(c call) string {
	if c.service == "sqs" {
		return "com.amazonaws.sqs#InternalError"
	}
	return "com.amazonaws.dynamodb.v20120810#InternalServerError"
}

// answer is an AWS JSON-protocol error answer.
func answer(r *http.Request, c call, status int, code string) *http.Response {
	raw, _ := json.Marshal(map[string]string{"__type": code, "message": "injected by infra/chaos/faults"})
	res := jsonAnswer(r, status, raw)
	short := code[strings.LastIndex(code, "#")+1:]
	res.Header.Set("X-Amzn-ErrorType", short)
	if c.service == "sqs" {
		res.Header.Set("X-Amzn-Query-Error", short+";Sender")
	}
	return res
}

func jsonAnswer(r *http.Request, status int, body []byte) *http.Response {
	return &http.Response{
		Status: fmt.Sprintf("%d %s", status, http.StatusText(status)), StatusCode: status,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}, "X-Amzn-Requestid": {"injected"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       r,
	}
}
