package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func openStore(t *testing.T, path string) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func evt(sk string) store.Key { return store.Key{Table: store.TableEvents, PK: "evt#acct", SK: sk} }

func writeEvents(t *testing.T, s store.Store, sks ...string) {
	t.Helper()
	for _, sk := range sks {
		require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: evt(sk), Data: []byte(`{"id":"` + sk + `"}`)}, store.Always)))
	}
}

// recorder is a handler that keeps what it was given and fails as told.
type recorder struct {
	mu      sync.Mutex
	batches [][]events.DynamoDBEventRecord
	fail    func(rec events.DynamoDBEventRecord, call int) bool // report this record as failed
}

func (r *recorder) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.batches = append(r.batches, ev.Records)
	var resp events.DynamoDBEventResponse
	for _, rec := range ev.Records {
		if r.fail != nil && r.fail(rec, len(r.batches)) {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: rec.Change.SequenceNumber})
			break
		}
	}
	return resp, nil
}

func (r *recorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, b := range r.batches {
		for _, rec := range b {
			out = append(out, rec.Change.Keys["sk"].String())
		}
	}
	return out
}

func runner(s store.ChangeFeed, h app.StreamHandler) *app.FeedRunner {
	return &app.FeedRunner{Feed: s, Table: store.TableEvents, Consumer: "TestConsumerFunction", Handler: h,
		Region: "eu-west-1", Backoff: retry.Backoff{Base: time.Millisecond, Max: 5 * time.Millisecond}}
}

// The records are what Lambda's DynamoDB event source delivers for a
// NEW_IMAGE stream: names, source, ARN, increasing sequence numbers, keys,
// and a NewImage that dynamostore.ItemFromImage reads back into the item the
// store holds; they survive Lambda's JSON.
func TestFeedRunnerBuildsLambdaRecords(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "store.db"))
	exp := time.Unix(time.Now().Add(time.Hour).Unix(), 0).UTC()
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: evt("a"), Data: []byte{0, '"', 0xff}, N: -3, ExpiresAt: exp}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Add(evt("a"), 5, false, store.Always)))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "o", SK: "o"}}, store.Always)))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: evt("b")}, store.Always)))
	stored, err := s.Get(ctx, evt("a"))
	require.NoError(t, err)
	require.NoError(t, s.Write(ctx, store.Delete(evt("b"), store.Always)))

	rec := &recorder{}
	res, err := runner(s, rec.handle).Once(ctx)
	require.NoError(t, err)
	require.Equal(t, app.FeedResult{Received: 4, Done: 4}, res)
	require.Len(t, rec.batches, 1)

	// Through JSON, as the Lambda runtime would hand it over.
	raw, err := json.Marshal(events.DynamoDBEvent{Records: rec.batches[0]})
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"eventSourceARN":"arn:aws:dynamodb:eu-west-1:000000000000:table/events/stream/local"`)
	var ev events.DynamoDBEvent
	require.NoError(t, json.Unmarshal(raw, &ev))
	require.Len(t, ev.Records, 4)
	var names []string
	prev := ""
	for _, r := range ev.Records {
		names = append(names, r.EventName)
		assert.Equal(t, "aws:dynamodb", r.EventSource)
		assert.Equal(t, "eu-west-1", r.AWSRegion)
		assert.Equal(t, "NEW_IMAGE", r.Change.StreamViewType)
		assert.Len(t, r.Change.SequenceNumber, 21)
		assert.Greater(t, r.Change.SequenceNumber, prev)
		prev = r.Change.SequenceNumber
		assert.Equal(t, "evt#acct", r.Change.Keys["pk"].String())
		assert.Positive(t, r.Change.SizeBytes)
		assert.False(t, r.Change.ApproximateCreationDateTime.IsZero())
	}
	assert.Equal(t, []string{"INSERT", "MODIFY", "INSERT", "REMOVE"}, names)
	assert.Empty(t, ev.Records[3].Change.NewImage)

	got, err := dynamostore.ItemFromImage(ev.Records[1].Change.NewImage)
	require.NoError(t, err)
	got.Table = store.TableEvents
	assert.Equal(t, stored, got)
	assert.Equal(t, []byte{0, '"', 0xff}, got.Data)
	assert.Equal(t, int64(2), got.N)
	first, err := dynamostore.ItemFromImage(ev.Records[0].Change.NewImage)
	require.NoError(t, err)
	assert.Equal(t, int64(1), first.Version)
	assert.Equal(t, int64(-3), first.N)

	// Nothing new: nothing handed over.
	res, err = runner(s, rec.handle).Once(ctx)
	require.NoError(t, err)
	require.Zero(t, res.Received)
}

// A record reported as failed, and every record after it, comes again; the
// ones before it do not.
func TestFeedRunnerRetriesFromTheFailedRecord(t *testing.T) {
	ctx := context.Background()
	s := openStore(t, filepath.Join(t.TempDir(), "store.db"))
	writeEvents(t, s, "1", "2", "3", "4", "5")
	rec := &recorder{fail: func(r events.DynamoDBEventRecord, call int) bool {
		return call == 1 && r.Change.Keys["sk"].String() == "3"
	}}
	r := runner(s, rec.handle)
	res, err := r.Once(ctx)
	require.NoError(t, err)
	require.Equal(t, app.FeedResult{Received: 5, Done: 2, Failed: 3}, res)
	cp, err := s.Checkpoint(ctx, store.TableEvents, r.Consumer)
	require.NoError(t, err)
	require.Equal(t, uint64(2), cp)
	res, err = r.Once(ctx)
	require.NoError(t, err)
	require.Equal(t, app.FeedResult{Received: 3, Done: 3}, res)
	require.Equal(t, []string{"1", "2", "3", "4", "5", "3", "4", "5"}, rec.seen())
}

// An error, a panic, a timeout or a failure that names no record of the
// batch fails the whole batch: the checkpoint stays.
func TestFeedRunnerFailsWholeBatch(t *testing.T) {
	for name, h := range map[string]app.StreamHandler{
		"error": func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{}, errors.New("boom")
		},
		"panic": func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) { panic("boom") },
		"unknown item": func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: "999"}}}, nil
		},
		"empty item": func(context.Context, events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{}}}, nil
		},
		"timeout": func(ctx context.Context, _ events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
			<-ctx.Done()
			return events.DynamoDBEventResponse{}, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			s := openStore(t, filepath.Join(t.TempDir(), "store.db"))
			writeEvents(t, s, "1", "2")
			r := runner(s, h)
			r.Timeout = 50 * time.Millisecond
			res, err := r.Once(ctx)
			require.NoError(t, err)
			require.Equal(t, app.FeedResult{Received: 2, Done: 0, Failed: 1}, res)
			cp, err := s.Checkpoint(ctx, store.TableEvents, r.Consumer)
			require.NoError(t, err)
			require.Zero(t, cp)
		})
	}
}

// Run delivers a commit within milliseconds (woken, not polling), retries a
// failing record with backoff until it passes, and finishes the batch in
// flight on shutdown, checkpoint included; a new runner on the reopened
// store goes on from there.
func TestFeedRunnerRunDeliversRetriesAndStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	got := make(chan time.Time, 100)
	release := make(chan struct{})
	calls := 0
	h := func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		calls++
		for _, r := range ev.Records {
			switch r.Change.Keys["sk"].String() {
			case "flaky":
				if calls < 4 { // fails three times, then passes
					return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}, nil
				}
			case "slow":
				<-release
			}
			got <- time.Now()
		}
		return events.DynamoDBEventResponse{}, nil
	}
	r := runner(s, h)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()

	time.Sleep(20 * time.Millisecond) // let it wait on the feed
	var lat []time.Duration
	for i := range 20 {
		start := time.Now()
		writeEvents(t, s, strconv.Itoa(i))
		select {
		case at := <-got:
			lat = append(lat, at.Sub(start))
		case <-time.After(5 * time.Second):
			t.Fatal("a committed record was not delivered")
		}
	}
	t.Logf("commit to handler: %v", lat)

	writeEvents(t, s, "flaky")
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the failing record was not retried until it passed")
	}
	require.GreaterOrEqual(t, calls, 4)

	writeEvents(t, s, "slow")
	time.Sleep(20 * time.Millisecond) // the batch is in flight
	cancel()
	select {
	case <-done:
		t.Fatal("Run returned with a batch in flight")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	<-got
	require.NoError(t, s.Close())

	s = openStore(t, path)
	cp, err := s.Checkpoint(context.Background(), store.TableEvents, r.Consumer)
	require.NoError(t, err)
	require.Equal(t, uint64(22), cp, "the batch in flight was checkpointed")
	writeEvents(t, s, "after")
	rec := &recorder{}
	res, err := runner(s, rec.handle).Once(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, res.Received)
	require.Equal(t, []string{"after"}, rec.seen())
}

// With MaxAttempts a record that keeps failing is skipped after that many
// invocations, and the records after it flow again.
func TestFeedRunnerMaxAttemptsSkipsAPoisonRecord(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "store.db"))
	writeEvents(t, s, "poison", "next")
	rec := &recorder{fail: func(r events.DynamoDBEventRecord, _ int) bool { return r.Change.Keys["sk"].String() == "poison" }}
	r := runner(s, rec.handle)
	r.MaxAttempts = 3
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	require.Eventually(t, func() bool {
		seen := rec.seen()
		return len(seen) > 0 && seen[len(seen)-1] == "next" && len(seen) == 7
	}, 5*time.Second, 5*time.Millisecond)
	cancel()
	<-done
	assert.Equal(t, []string{"poison", "next", "poison", "next", "poison", "next", "next"}, rec.seen())
}

// Many writers committing while the runner runs: every record reaches the
// handler exactly once, in commit order (increasing sequence numbers), with
// each writer's own writes in the order it made them.
func TestFeedRunnerUnderConcurrentWriters(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "store.db"))
	var mu sync.Mutex
	var seqs []string
	perKey := map[string][]string{}
	h := func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		mu.Lock()
		defer mu.Unlock()
		for _, r := range ev.Records {
			seqs = append(seqs, r.Change.SequenceNumber)
			it, err := dynamostore.ItemFromImage(r.Change.NewImage)
			if err != nil {
				return events.DynamoDBEventResponse{}, err
			}
			perKey[it.SK] = append(perKey[it.SK], string(it.Data))
		}
		return events.DynamoDBEventResponse{}, nil
	}
	r := runner(s, h)
	r.Batch = 7
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	const writers, writes = 12, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			k := evt("w" + strconv.Itoa(w))
			for i := range writes {
				assert.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: k, Data: []byte(strconv.Itoa(i))}, store.Always)))
			}
		})
	}
	wg.Wait()
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seqs) >= writers*writes
	}, 10*time.Second, 5*time.Millisecond)
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seqs, writers*writes, "each record exactly once")
	for i := 1; i < len(seqs); i++ {
		require.Less(t, seqs[i-1], seqs[i])
	}
	require.Len(t, perKey, writers)
	for k, datas := range perKey {
		for i, d := range datas {
			require.Equal(t, strconv.Itoa(i), d, k)
		}
	}
}

// BenchmarkFeedCommitToHandler measures, on the embedded store, the time
// from the start of a committing write to the stream handler holding its
// record: the local pipeline's first hop (fsync of the write included).
func BenchmarkFeedCommitToHandler(b *testing.B) {
	s, err := boltstore.Open(filepath.Join(b.TempDir(), "store.db"), nil)
	require.NoError(b, err)
	defer s.Close()
	got := make(chan struct{}, 1)
	r := runner(s, func(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		for range ev.Records {
			got <- struct{}{}
		}
		return events.DynamoDBEventResponse{}, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := s.Write(ctx, store.Put(store.Item{Key: evt(strconv.Itoa(i)), Data: []byte("x")}, store.Always)); err != nil {
			b.Fatal(err)
		}
		<-got
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	cancel()
	<-done
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
