package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/store"
)

// StreamHandler is a stream consumer as Lambda invokes it: a batch of a
// table's stream records, as the DynamoDB event source with
// FunctionResponseTypes ReportBatchItemFailures delivers them: in order, and
// on failure the handler returns the SequenceNumber of the first record it
// did not finish as ItemIdentifier; the source retries from that record (the
// ones before it are done). An error retries the whole batch. StreamLambda
// makes one of a store.ChangeHandler.
type StreamHandler func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error)

// StreamBuilder builds a stream consumer from the dependencies.
type StreamBuilder func(*Deps) (store.ChangeHandler, error)

// StartStream is the whole main of a stream consumer.
func StartStream(build StreamBuilder, cloud CloudOpener, opts ...Option) {
	d := mustOpen(cloud, opts...)
	h, err := build(d)
	if err != nil {
		fail(err)
	}
	lambda.Start(StreamLambda(h, d.Tables, d.Log))
}

// StreamLambda adapts a consumer to Lambda's DynamoDB stream event: each
// record becomes a store.Change (its new image decoded as the DynamoDB
// adapter wrote it, its table the logical name of the record's source, by
// tables: logical to physical), and the first record the consumer did not
// finish is the batch item failure. A record whose image cannot be decoded
// is logged and passed over: nothing would make it readable later, and
// holding the stream behind it would hold every later record.
func StreamLambda(h store.ChangeHandler, tables map[string]string, log *slog.Logger) StreamHandler {
	logical := make(map[string]string, len(tables))
	for l, p := range tables {
		logical[p] = l
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return func(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
		changes := make([]store.Change, 0, len(ev.Records))
		seqs := make([]string, 0, len(ev.Records))
		for _, rec := range ev.Records {
			c := store.Change{Kind: store.ChangeKind(rec.EventName), At: rec.Change.ApproximateCreationDateTime.Time}
			c.Seq, _ = strconv.ParseUint(rec.Change.SequenceNumber, 10, 64) // DynamoDB's may not fit: informative only
			if c.Kind == store.ChangeRemove {
				c.Item.Key = dynamostore.KeyFromImage(rec.Change.Keys)
			} else {
				it, err := dynamostore.ItemFromImage(rec.Change.NewImage)
				if err != nil {
					log.Error("undecodable stream record skipped", "sequence_number", rec.Change.SequenceNumber, "error", err.Error())
					continue
				}
				c.Item = it
			}
			c.Item.Table = tableOf(rec.EventSourceArn, logical)
			changes = append(changes, c)
			seqs = append(seqs, rec.Change.SequenceNumber)
		}
		done := h(ctx, changes)
		if done < len(changes) {
			return events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{
				{ItemIdentifier: seqs[done]}}}, nil
		}
		return events.DynamoDBEventResponse{}, nil
	}
}

// tableOf is the logical table of a stream ARN
// (arn:aws:dynamodb:<region>:<account>:table/<name>/stream/<label>): the
// physical name mapped back, or the name itself (the local feed's ARNs carry
// the logical name).
func tableOf(arn string, logical map[string]string) string {
	_, rest, ok := strings.Cut(arn, ":table/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if l, ok := logical[name]; ok {
		return l
	}
	return name
}

// StreamARN is the eventSourceARN of the embedded feed's records: a
// table's stream ARN in the local account, with the label "local".
func StreamARN(region, table string) string {
	return "arn:aws:dynamodb:" + region + ":" + LocalAccountID + ":table/" + table + "/stream/local"
}

// SequenceNumber is how a feed position appears in a record: decimal,
// zero-padded to 21 digits as DynamoDB's are, so that comparing the strings
// compares the positions.
func SequenceNumber(seq uint64) string { return fmt.Sprintf("%021d", seq) }

// StreamEvent is the Lambda event for changes of table, record by record as
// DynamoDB Streams (NEW_IMAGE) and the event source mapping write them:
// eventName INSERT, MODIFY or REMOVE, Keys, NewImage in the DynamoDB adapter's
// layout of an unpacked body (dynamostore.Image without packing; none for
// REMOVE),
// SequenceNumber, SizeBytes.
func StreamEvent(region, table string, changes []store.Change) events.DynamoDBEvent {
	ev := events.DynamoDBEvent{Records: make([]events.DynamoDBEventRecord, 0, len(changes))}
	arn := StreamARN(region, table)
	for _, c := range changes {
		rec := events.DynamoDBStreamRecord{
			ApproximateCreationDateTime: events.SecondsEpochTime{Time: c.At.Truncate(time.Second)},
			Keys:                        dynamostore.ImageKeys(c.Item.Key),
			SequenceNumber:              SequenceNumber(c.Seq),
			SizeBytes:                   int64(len(c.Item.PK) + len(c.Item.SK)),
			StreamViewType:              string(events.DynamoDBStreamViewTypeNewImage),
		}
		if c.Kind != store.ChangeRemove {
			rec.NewImage = dynamostore.Image(c.Item, false)
			rec.SizeBytes = int64(store.ItemSize(c.Item))
		}
		ev.Records = append(ev.Records, events.DynamoDBEventRecord{
			AWSRegion:      region,
			Change:         rec,
			EventID:        fmt.Sprintf("%032x", c.Seq),
			EventName:      string(c.Kind),
			EventSource:    "aws:dynamodb",
			EventVersion:   "1.1",
			EventSourceArn: arn,
		})
	}
	return ev
}

// Feed runner defaults: Lambda's default batch size for DynamoDB streams,
// the template's function timeout, and retries spaced 100 ms doubling to
// 30 s.
const (
	DefaultStreamBatchSize = 100
	DefaultStreamTimeout   = 30 * time.Second
)

// DefaultStreamBackoff spaces the retries of a failed batch.
var DefaultStreamBackoff = retry.Backoff{Base: 100 * time.Millisecond, Max: 30 * time.Second, Jitter: retry.Equal}

// FeedRunner feeds a stream consumer from the embedded store's change feed,
// as the DynamoDB event source mapping feeds it from the table's stream on
// AWS: batches in commit order from the consumer's durable checkpoint, the
// checkpoint moved past what succeeded, the failed record (and what follows)
// retried with backoff. A commit wakes it (store.ChangeFeed.Changed), so a
// record reaches the handler milliseconds after its write; nothing is
// polled while idle.
type FeedRunner struct {
	Feed     store.ChangeFeed
	Table    string // logical streamed table
	Consumer string // checkpoint name: the function's logical id
	Handler  StreamHandler
	Log      *slog.Logger  // nil discards
	Region   string        // for the records; empty means us-east-1
	Batch    int           // records per invocation; 0 means DefaultStreamBatchSize
	Timeout  time.Duration // per batch; 0 means DefaultStreamTimeout
	Backoff  retry.Backoff // between retries; zero means DefaultStreamBackoff
	// MaxAttempts bounds the invocations of a batch that keeps failing at the
	// same record; the record is then skipped and logged (the local stand-in
	// for the mapping's OnFailure destination). 0 retries forever: nothing
	// committed is dropped.
	MaxAttempts int
}

// FeedResult is what one batch did.
type FeedResult struct {
	Received int
	Done     int    // records finished (the checkpoint moved past them)
	Failed   uint64 // sequence of the record retried from; 0 when all succeeded
}

func (r *FeedRunner) defaults() {
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
	if r.Region == "" {
		r.Region = "us-east-1"
	}
	if r.Batch == 0 {
		r.Batch = DefaultStreamBatchSize
	}
	if r.Timeout == 0 {
		r.Timeout = DefaultStreamTimeout
	}
	if r.Backoff == (retry.Backoff{}) {
		r.Backoff = DefaultStreamBackoff
	}
}

// Run feeds the handler until ctx is done; a batch in flight finishes (with
// its checkpoint) before Run returns.
func (r *FeedRunner) Run(ctx context.Context) {
	r.defaults()
	var failing uint64 // the record the last failures were at
	attempts := 0
	for ctx.Err() == nil {
		changed := r.Feed.Changed(r.Table) // before reading: no commit missed
		res, err := r.Once(ctx)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			r.Log.Error("change feed read failed", "table", r.Table, "error", err.Error())
			attempts++
		case res.Failed != 0:
			if res.Failed != failing {
				failing, attempts = res.Failed, 0
			}
			attempts++
			if r.MaxAttempts > 0 && attempts >= r.MaxAttempts {
				r.giveUp(ctx, res.Failed, attempts)
				failing, attempts = 0, 0
				continue
			}
		case res.Received == 0:
			failing, attempts = 0, 0
			select {
			case <-ctx.Done():
			case <-changed:
			}
			continue
		default:
			failing, attempts = 0, 0
			continue
		}
		_ = r.Backoff.Sleep(ctx, attempts-1)
	}
}

// giveUp moves the checkpoint past record seq after attempts failures.
func (r *FeedRunner) giveUp(ctx context.Context, seq uint64, attempts int) {
	if err := r.Feed.SetCheckpoint(context.WithoutCancel(ctx), r.Table, r.Consumer, seq); err != nil {
		r.Log.Error("change feed checkpoint failed", "table", r.Table, "error", err.Error())
		return
	}
	r.Log.Error("stream record skipped after repeated failures", "table", r.Table,
		"sequence_number", SequenceNumber(seq), "attempts", attempts)
}

// Once hands the handler the next batch after the checkpoint and moves the
// checkpoint past the records that succeeded. An empty feed is not an error
// (Received 0).
func (r *FeedRunner) Once(ctx context.Context) (FeedResult, error) {
	r.defaults()
	after, err := r.Feed.Checkpoint(ctx, r.Table, r.Consumer)
	if err != nil {
		return FeedResult{}, err
	}
	changes, err := r.Feed.Changes(ctx, r.Table, after, r.Batch)
	if err != nil || len(changes) == 0 {
		return FeedResult{}, err
	}
	res := FeedResult{Received: len(changes)}
	done, herr := r.handle(ctx, changes)
	if herr != nil {
		r.Log.Error("stream batch failed", "table", r.Table, "records", len(changes),
			"first_sequence_number", SequenceNumber(changes[0].Seq), "error", herr.Error())
	}
	res.Done = done
	if done < len(changes) {
		res.Failed = changes[done].Seq
		if herr == nil {
			r.Log.Warn("stream record failed", "table", r.Table, "sequence_number", SequenceNumber(res.Failed),
				"done", done, "received", len(changes))
		}
	}
	if done > 0 {
		// The work is done: recording it must not be cut short by shutdown.
		if err := r.Feed.SetCheckpoint(context.WithoutCancel(ctx), r.Table, r.Consumer, changes[done-1].Seq); err != nil {
			return res, fmt.Errorf("checkpoint: %w", err)
		}
	}
	return res, nil
}

// handle runs the handler on one batch and returns how many leading records
// succeeded. An error (the handler's, a panic, a timeout, a failure naming a
// record not in the batch) fails the whole batch, as in Lambda.
func (r *FeedRunner) handle(ctx context.Context, changes []store.Change) (done int, err error) {
	// A batch in flight finishes on shutdown, within its own timeout.
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.Timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			done, err = 0, fmt.Errorf("handler panic: %v", p)
		}
	}()
	resp, err := r.Handler(hctx, StreamEvent(r.Region, r.Table, changes))
	if err != nil {
		return 0, err
	}
	if hctx.Err() != nil {
		return 0, fmt.Errorf("handler ran past its %s timeout", r.Timeout)
	}
	return firstFailure(changes, resp)
}

// firstFailure is the number of leading records a response lets through:
// the index of the lowest sequence number it reports (Lambda resumes from
// the lowest), or all of them. An identifier that names no record of the
// batch fails it whole.
func firstFailure(changes []store.Change, resp events.DynamoDBEventResponse) (int, error) {
	done := len(changes)
	for _, f := range resp.BatchItemFailures {
		i := -1
		if seq, err := strconv.ParseUint(f.ItemIdentifier, 10, 64); err == nil {
			for j, c := range changes {
				if c.Seq == seq {
					i = j
					break
				}
			}
		}
		if i < 0 {
			return 0, errors.New("batch item failure names no record of the batch: " + strconv.Quote(f.ItemIdentifier))
		}
		done = min(done, i)
	}
	return done, nil
}
