package streamtest_test

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/dynamostore/streamtest"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// collector is a handler that keeps every record it is given and fails as
// told (per call).
type collector struct {
	mu    sync.Mutex
	calls int
	recs  []events.DynamoDBEventRecord
	fail  func(call int, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)
}

func (c *collector) handle(_ context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	c.recs = append(c.recs, ev.Records...)
	if c.fail != nil {
		return c.fail(c.calls, ev)
	}
	return events.DynamoDBEventResponse{}, nil
}

func (c *collector) wait(t *testing.T, n int) []events.DynamoDBEventRecord {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c.mu.Lock()
		got := append([]events.DynamoDBEventRecord(nil), c.recs...)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d stream records, want %d", len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sks(recs []events.DynamoDBEventRecord) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Change.Keys["sk"].String())
	}
	return out
}

func ev(sk string) store.Key { return store.Key{Table: store.TableEvents, PK: "evt#acct", SK: sk} }

// script is one run of writes, the same on both adapters. It returns each
// streamed item as a Get read it right after the write that should yield a
// record (nil for a REMOVE).
func script(t *testing.T, s store.Store) []*store.Item {
	t.Helper()
	ctx := context.Background()
	var want []*store.Item
	after := func(k store.Key) {
		it, err := s.Get(ctx, k)
		require.NoError(t, err)
		want = append(want, &it)
	}
	exp := time.Now().Add(time.Hour)
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: ev("a"), Data: []byte{0, 1, '"', 0xff}, N: 3, ExpiresAt: exp}, store.IfAbsent)))
	after(ev("a"))
	require.NoError(t, s.Write(ctx, store.Add(ev("a"), 4, true, store.Always)))
	after(ev("a"))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: ev("b")}, store.Always)))
	after(ev("b"))
	require.NoError(t, s.Write(ctx,
		store.Put(store.Item{Key: ev("c"), Data: []byte(`{"type":"order.completed"}`)}, store.IfAbsent),
		store.Add(store.Key{Table: store.TableLedger, PK: "bal#acct", SK: "USD"}, 100, false, store.Always)))
	after(ev("c"))
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: ev("a"), Data: []byte("v3")}, store.IfVersion(2))))
	after(ev("a"))
	require.NoError(t, s.Write(ctx, store.Add(ev("n"), -5, false, store.IfAbsent)))
	after(ev("n"))
	require.NoError(t, s.Write(ctx, store.Delete(ev("b"), store.Always)))
	want = append(want, nil)
	// No record: a delete of nothing, a failed condition, a failed transaction.
	require.NoError(t, s.Write(ctx, store.Delete(ev("none"), store.Always)))
	_, failed := store.IsConditionFailed(s.Write(ctx, store.Put(store.Item{Key: ev("a")}, store.IfAbsent)))
	require.True(t, failed)
	_, failed = store.IsConditionFailed(s.Write(ctx, store.Put(store.Item{Key: ev("x")}, store.Always), store.Check(ev("none"), store.IfExists)))
	require.True(t, failed)
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: ev("z"), Data: []byte("last")}, store.Always)))
	after(ev("z"))
	return want
}

var wantNames = []string{"INSERT", "MODIFY", "INSERT", "INSERT", "MODIFY", "INSERT", "REMOVE", "INSERT"}

// The same writes on DynamoDB Local, read through its real stream by the
// poller, and on the embedded store, read through the change feed by
// app.FeedRunner, give the same records: event names, keys, and NewImages
// that dynamostore.ItemFromImage turns back into exactly the items the
// adapter holds (Data byte for byte, N, Version, expiry).
func TestStreamRecordsMatchTheFeedRunners(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	ddb := dynamostore.New(client, tables, nil)
	remote := &collector{}
	streamtest.Start(t, client, tables[store.TableEvents], remote.handle)
	wantRemote := script(t, ddb)

	bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = bolt.Close() })
	wantLocal := script(t, bolt)
	local := &collector{}
	runner := &app.FeedRunner{Feed: bolt, Table: store.TableEvents, Consumer: "TestFunction", Handler: local.handle}
	res, err := runner.Once(context.Background())
	require.NoError(t, err)
	require.Equal(t, len(wantNames), res.Done)

	gotRemote := remote.wait(t, len(wantNames))
	time.Sleep(100 * time.Millisecond) // nothing more comes
	require.Len(t, remote.wait(t, 0), len(wantNames), "a write that failed or changed nothing made a record")

	for name, side := range map[string]struct {
		recs []events.DynamoDBEventRecord
		want []*store.Item
	}{"dynamodb": {gotRemote, wantRemote}, "embedded": {local.recs, wantLocal}} {
		t.Run(name, func(t *testing.T) {
			var names []string
			prev := ""
			for i, r := range side.recs {
				names = append(names, r.EventName)
				assert.Equal(t, "aws:dynamodb", r.EventSource)
				assert.Equal(t, "1.1", r.EventVersion)
				assert.Equal(t, "NEW_IMAGE", r.Change.StreamViewType)
				assert.NotEmpty(t, r.EventSourceArn)
				assert.NotEmpty(t, r.EventID)
				assert.False(t, r.Change.ApproximateCreationDateTime.IsZero())
				assert.True(t, prev == "" || streamtest.Less(prev, r.Change.SequenceNumber), "sequence numbers increase")
				prev = r.Change.SequenceNumber
				assert.Equal(t, "evt#acct", r.Change.Keys["pk"].String())
				if side.want[i] == nil {
					assert.Empty(t, r.Change.NewImage)
					continue
				}
				assert.Equal(t, side.want[i].SK, r.Change.Keys["sk"].String())
				got, err := dynamostore.ItemFromImage(r.Change.NewImage)
				require.NoError(t, err)
				got.Table = store.TableEvents
				assert.Equal(t, *side.want[i], got, "record %d", i)
			}
			assert.Equal(t, wantNames, names)
		})
	}
	assert.Equal(t, sks(gotRemote), sks(local.recs))
}

// A record reported as failed comes again, with every record after it,
// from its sequence number; the ones before it do not. An error retries the
// whole batch.
func TestPollerRetriesFromTheFailedSequenceNumber(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	s := dynamostore.New(client, tables, nil)
	for i := range 5 {
		require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: ev(fmt.Sprint(i))}, store.Always)))
	}
	c := &collector{fail: func(call int, e events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		switch call {
		case 1:
			for _, r := range e.Records {
				if r.Change.Keys["sk"].String() == "2" {
					return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{{ItemIdentifier: r.Change.SequenceNumber}}}, nil
				}
			}
		case 2:
			return events.DynamoDBEventResponse{}, errors.New("boom")
		}
		return events.DynamoDBEventResponse{}, nil
	}}
	streamtest.Start(t, client, tables[store.TableEvents], c.handle)
	got := c.wait(t, 11)
	time.Sleep(100 * time.Millisecond)
	got = c.wait(t, len(got))
	assert.Equal(t, []string{"0", "1", "2", "3", "4", "2", "3", "4", "2", "3", "4"}, sks(got))
}

// Latest skips what was written before the poller started.
func TestPollerLatestStartsAtTheTip(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	s := dynamostore.New(client, tables, nil)
	require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: ev("before")}, store.Always)))
	c := &collector{}
	streamtest.Start(t, client, tables[store.TableEvents], c.handle, func(cfg *streamtest.Config) { cfg.Latest = true })
	time.Sleep(300 * time.Millisecond) // the poller holds its LATEST iterators
	require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: ev("after")}, store.Always)))
	got := c.wait(t, 1)
	time.Sleep(100 * time.Millisecond)
	assert.Equal(t, []string{"after"}, sks(c.wait(t, len(got))))
}

// No function binary links this package or the DynamoDB Streams client: on
// AWS the event source mapping reads the stream, not the function.
func TestNoFunctionLinksTheStreamsClient(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "./functions/...")
	cmd.Dir = "../../../.."
	out, err := cmd.Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/paygate/paygate/shared/platform/app", "the listing covers the functions")
	for _, d := range deps {
		assert.NotContains(t, d, "dynamodbstreams")
		assert.NotContains(t, d, "streamtest")
	}
}
