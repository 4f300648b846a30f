// Package streamreader stands in for Lambda's DynamoDB event source mapping
// where there is no Lambda: it reads a table's stream (DynamoDB Local serves
// the DynamoDB Streams API) and hands the records to an app.StreamHandler as
// Lambda would, with ReportBatchItemFailures: a failed record and the ones
// after it are read again from its sequence number (AT_SEQUENCE_NUMBER), an
// error reads the whole batch again. The local gateway on DynamoDB Local
// (package localcloud) and the tests (streamtest) use it; no function binary
// links it, nor so the DynamoDB Streams client.
package streamreader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/paygate/paygate/shared/platform/app"
)

// Config is how Run reads a stream.
type Config struct {
	Streams *dynamodbstreams.Client
	Dynamo  *dynamodb.Client // finds the table's LatestStreamArn
	Region  string           // of the records; empty means us-east-1
	// Latest starts the shards open at start from their tip (LATEST), so
	// only records written after Run starts are delivered; the default is
	// TRIM_HORIZON, the template's StartingPosition. Shards found later are
	// always read from their start.
	Latest bool
	Batch  int32         // records per GetRecords and invocation; 0 means 100
	Poll   time.Duration // wait after a round that read nothing; 0 means 20 ms
	Retry  time.Duration // wait before a failed batch is read again; 0 means 20 ms
	Logf   func(format string, args ...any)
	// Checkpoint, when set, keeps each shard's last record done across
	// runs: a shard it knows resumes after that record instead of at the
	// start position.
	Checkpoint Checkpoint
	// Timeout bounds each batch's handling, as the function's timeout
	// bounds an invocation; 0 means none.
	Timeout time.Duration
}

// Checkpoint keeps the last sequence number done per shard.
type Checkpoint interface {
	Load() (map[string]string, error)
	Save(shard, sequence string) error
}

func (c *Config) defaults() {
	if c.Region == "" {
		c.Region = "us-east-1"
	}
	if c.Batch == 0 {
		c.Batch = 100
	}
	if c.Poll == 0 {
		c.Poll = 20 * time.Millisecond
	}
	if c.Retry == 0 {
		c.Retry = 20 * time.Millisecond
	}
	if c.Logf == nil {
		c.Logf = func(string, ...any) {}
	}
}

// shard is one shard's reading state.
type shard struct {
	id, parent string
	iter       string // next GetRecords iterator; "" when one must be got
	start      types.ShardIteratorType
	last       string // sequence number of the last record done
	done       bool   // closed and read to its end
}

// Run reads the stream of the physical table until ctx is done (then it
// returns nil, after the batch in flight) or an API call fails.
func Run(ctx context.Context, cfg Config, table string, h app.StreamHandler) error {
	cfg.defaults()
	desc, err := cfg.Dynamo.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return fmt.Errorf("describe table %s: %w", table, err)
	}
	arn := aws.ToString(desc.Table.LatestStreamArn)
	if arn == "" {
		return fmt.Errorf("table %s has no stream", table)
	}
	r := &reader{cfg: cfg, arn: arn, h: h, shards: map[string]*shard{}}
	if cfg.Checkpoint != nil {
		if r.resume, err = cfg.Checkpoint.Load(); err != nil {
			return fmt.Errorf("checkpoint of %s: %w", table, err)
		}
	}
	if err := r.discover(ctx, true); err != nil {
		return ignoreDone(ctx, err)
	}
	lastDiscover := time.Now()
	for ctx.Err() == nil {
		read := 0
		for _, id := range r.order {
			s := r.shards[id]
			if s.done || !r.ready(s) {
				continue
			}
			n, err := r.poll(ctx, s)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				// As the event source mapping does, keep polling through a
				// failed call (a loaded DynamoDB Local times out now and
				// then), from the same position.
				cfg.Logf("streamreader: %v; retrying", err)
				s.iter = ""
				sleep(ctx, cfg.Poll)
				continue
			}
			read += n
		}
		if read == 0 {
			if time.Since(lastDiscover) > 250*time.Millisecond {
				if err := r.discover(ctx, false); err != nil && ctx.Err() == nil {
					cfg.Logf("streamreader: %v; retrying", err)
				}
				lastDiscover = time.Now()
			}
			sleep(ctx, cfg.Poll)
		}
	}
	return nil
}

func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

type reader struct {
	cfg    Config
	arn    string
	h      app.StreamHandler
	shards map[string]*shard
	order  []string          // shard ids in the order found: parents before children
	resume map[string]string // the checkpoint's last record done per shard
}

// discover adds the stream's shards not seen yet (DescribeStream, every
// page). At the first call, Latest starts the open shards at their tip.
func (r *reader) discover(ctx context.Context, first bool) error {
	var start *string
	for {
		out, err := r.cfg.Streams.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{
			StreamArn: aws.String(r.arn), ExclusiveStartShardId: start,
		})
		if err != nil {
			return fmt.Errorf("describe stream: %w", err)
		}
		for _, sh := range out.StreamDescription.Shards {
			id := aws.ToString(sh.ShardId)
			if _, seen := r.shards[id]; seen {
				continue
			}
			s := &shard{id: id, parent: aws.ToString(sh.ParentShardId), start: types.ShardIteratorTypeTrimHorizon}
			if first && r.cfg.Latest {
				if sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil {
					s.done = true // closed before start: nothing new will come from it
				}
				s.start = types.ShardIteratorTypeLatest
			}
			if seq := r.resume[id]; seq != "" {
				s.last, s.done = seq, false // resumes after it, whatever the start position
			}
			r.shards[id] = s
			r.order = append(r.order, id)
		}
		start = out.StreamDescription.LastEvaluatedShardId
		if start == nil {
			return nil
		}
	}
}

// ready reports whether s may be read: its parent, if known, is read to its
// end (a key's records continue in the child shard).
func (r *reader) ready(s *shard) bool {
	p, ok := r.shards[s.parent]
	return !ok || p.done
}

// iterator gets s's iterator: from its start, after its last record done,
// or at a given sequence number (a retry).
func (r *reader) iterator(ctx context.Context, s *shard, typ types.ShardIteratorType, seq string) error {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(r.arn), ShardId: aws.String(s.id), ShardIteratorType: typ}
	if seq != "" {
		in.SequenceNumber = aws.String(seq)
	}
	out, err := r.cfg.Streams.GetShardIterator(ctx, in)
	if err != nil {
		return fmt.Errorf("shard iterator %s %s: %w", s.id, typ, err)
	}
	s.iter = aws.ToString(out.ShardIterator)
	if s.iter == "" {
		s.done = true
	}
	return nil
}

// poll reads one batch of s and hands it over; it returns how many records
// it read.
func (r *reader) poll(ctx context.Context, s *shard) (int, error) {
	if s.iter == "" {
		typ, seq := s.start, ""
		if s.last != "" {
			typ, seq = types.ShardIteratorTypeAfterSequenceNumber, s.last
		}
		if err := r.iterator(ctx, s, typ, seq); err != nil || s.done {
			return 0, err
		}
	}
	out, err := r.cfg.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(s.iter), Limit: aws.Int32(r.cfg.Batch)})
	var expired *types.ExpiredIteratorException
	var trimmed *types.TrimmedDataAccessException
	switch {
	case errors.As(err, &expired):
		s.iter = "" // got again from the last record done
		return 0, nil
	case errors.As(err, &trimmed):
		// DynamoDB Local answers this for a TRIM_HORIZON iterator got on a
		// shard before its first record was written: get it again.
		s.iter = ""
		sleep(ctx, r.cfg.Poll)
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get records %s: %w", s.id, err)
	}
	if len(out.Records) > 0 {
		failed, err := r.invoke(ctx, out.Records)
		if err != nil {
			return 0, err
		}
		if failed != "" {
			// Lambda's retry: read again from the failed record.
			sleep(ctx, r.cfg.Retry)
			return len(out.Records), r.iterator(ctx, s, types.ShardIteratorTypeAtSequenceNumber, failed)
		}
		s.last = aws.ToString(out.Records[len(out.Records)-1].Dynamodb.SequenceNumber)
		if r.cfg.Checkpoint != nil {
			if err := r.cfg.Checkpoint.Save(s.id, s.last); err != nil {
				return len(out.Records), fmt.Errorf("checkpoint %s: %w", s.id, err)
			}
		}
	}
	s.iter = aws.ToString(out.NextShardIterator)
	if s.iter == "" {
		s.done = true // the shard is closed and read to its end
	}
	return len(out.Records), nil
}

// invoke hands records to the handler and returns the sequence number to
// read again from ("" when all succeeded).
func (r *reader) invoke(ctx context.Context, recs []types.Record) (string, error) {
	ev := Event(r.cfg.Region, r.arn, recs)
	first := ev.Records[0].Change.SequenceNumber
	resp, err := safeCall(ctx, r.h, ev, r.cfg.Timeout)
	if err != nil {
		r.cfg.Logf("streamreader: batch of %d from %s failed: %v", len(recs), first, err)
		return first, nil
	}
	failed := ""
	for _, f := range resp.BatchItemFailures {
		i := indexOf(ev, f.ItemIdentifier)
		if i < 0 {
			r.cfg.Logf("streamreader: batch item failure %q names no record of the batch: all of it again", f.ItemIdentifier)
			return first, nil
		}
		if failed == "" || Less(f.ItemIdentifier, failed) {
			failed = f.ItemIdentifier
		}
	}
	return failed, nil
}

func safeCall(ctx context.Context, h app.StreamHandler, ev events.DynamoDBEvent, timeout time.Duration) (resp events.DynamoDBEventResponse, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	// The batch in flight finishes when the poller is stopped.
	ctx = context.WithoutCancel(ctx)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return h(ctx, ev)
}

func indexOf(ev events.DynamoDBEvent, seq string) int {
	for i, r := range ev.Records {
		if seq != "" && r.Change.SequenceNumber == seq {
			return i
		}
	}
	return -1
}

// Less compares two sequence numbers: decimal strings of any length (on AWS
// they pass 2^64).
func Less(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// Event is the Lambda event for stream records of the stream arn, as the
// event source mapping builds it from GetRecords' answer.
func Event(region, arn string, recs []types.Record) events.DynamoDBEvent {
	ev := events.DynamoDBEvent{Records: make([]events.DynamoDBEventRecord, 0, len(recs))}
	for _, rec := range recs {
		out := events.DynamoDBEventRecord{
			AWSRegion:      region,
			EventID:        aws.ToString(rec.EventID),
			EventName:      string(rec.EventName),
			EventSource:    aws.ToString(rec.EventSource),
			EventVersion:   aws.ToString(rec.EventVersion),
			EventSourceArn: arn,
		}
		if rec.AwsRegion != nil {
			out.AWSRegion = *rec.AwsRegion
		}
		if rec.UserIdentity != nil {
			out.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(rec.UserIdentity.Type), PrincipalID: aws.ToString(rec.UserIdentity.PrincipalId)}
		}
		if d := rec.Dynamodb; d != nil {
			out.Change = events.DynamoDBStreamRecord{
				Keys:           Attributes(d.Keys),
				NewImage:       Attributes(d.NewImage),
				OldImage:       Attributes(d.OldImage),
				SequenceNumber: aws.ToString(d.SequenceNumber),
				SizeBytes:      aws.ToInt64(d.SizeBytes),
				StreamViewType: string(d.StreamViewType),
			}
			if d.ApproximateCreationDateTime != nil {
				out.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
			}
		}
		ev.Records = append(ev.Records, out)
	}
	return ev
}

// Attributes converts the SDK's stream attribute values to Lambda's.
func Attributes(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = Attribute(v)
	}
	return out
}

// Attribute converts one attribute value, at any depth.
func Attribute(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(x.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(x.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(x.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(x.Value)
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(x.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(x.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(x.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = Attribute(e)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		return events.NewMapAttribute(Attributes(x.Value))
	}
	return events.NewNullAttribute()
}
