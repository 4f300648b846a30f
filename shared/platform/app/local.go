package app

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"strconv"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
)

// ServeAll builds every group and serves them all from one Server: the local
// gateway's single process stands in for API Gateway and all the functions.
func (d *Deps) ServeAll(builders ...HTTPBuilder) (*httpapi.Server, error) {
	groups := make([]httpapi.Group, 0, len(builders))
	for _, build := range builders {
		g, err := build(d)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", funcName(build), err)
		}
		groups = append(groups, g)
	}
	return d.Server(groups...), nil
}

// funcName names a builder in errors: a failed group has no name yet.
func funcName(f any) string {
	if fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer()); fn != nil {
		return fn.Name()
	}
	return "group"
}

// LocalAccountID is the AWS account id that local queue ARNs carry.
const LocalAccountID = "000000000000"

// QueueARN names a queue the way Lambda's SQS events do.
func QueueARN(region, name string) string {
	return "arn:aws:sqs:" + region + ":" + LocalAccountID + ":" + name
}

// Poller defaults, matching the SQS limits and the template's guidance that a
// consumer's timeout is at most a sixth of its queue's visibility timeout.
const (
	DefaultBatchSize  = 10
	DefaultVisibility = 60 * time.Second
	DefaultWait       = 20 * time.Second
)

// Poller feeds a queue consumer as Lambda's SQS event source mapping does
// with ReportBatchItemFailures: a batch in, the messages not reported as
// failed deleted, the failed ones left to reappear after the visibility
// timeout (the queue dead-letters them after queue.MaxReceives).
type Poller struct {
	Queue      queue.Queue
	Name       string // logical queue name
	Handler    SQSHandler
	Log        *slog.Logger  // nil discards
	Region     string        // for the event records; empty means us-east-1
	BatchSize  int           // 1..10; 0 means DefaultBatchSize
	Visibility time.Duration // 0 means DefaultVisibility
	Wait       time.Duration // long poll; 0 means DefaultWait
	Timeout    time.Duration // per batch; 0 means Visibility/6
}

// BatchResult counts what one poll did.
type BatchResult struct {
	Received int
	Deleted  int
	Failed   int // left on the queue for redelivery
}

func (p *Poller) defaults() {
	if p.Log == nil {
		p.Log = slog.New(slog.DiscardHandler)
	}
	if p.Region == "" {
		p.Region = "us-east-1"
	}
	if p.BatchSize == 0 {
		p.BatchSize = DefaultBatchSize
	}
	if p.Visibility == 0 {
		p.Visibility = DefaultVisibility
	}
	if p.Wait == 0 {
		p.Wait = DefaultWait
	}
	if p.Timeout == 0 {
		p.Timeout = p.Visibility / 6
	}
}

// Run polls until ctx is done. Receive errors are logged and retried after a
// pause, as the event source mapping keeps polling through them.
func (p *Poller) Run(ctx context.Context) {
	p.defaults()
	for ctx.Err() == nil {
		if _, err := p.Once(ctx); err != nil && ctx.Err() == nil {
			p.Log.Error("queue poll failed", "queue", p.Name, "error", err.Error())
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// Once receives one batch (waiting up to Wait), hands it to the handler and
// deletes the messages that succeeded. An empty poll is not an error.
func (p *Poller) Once(ctx context.Context) (BatchResult, error) {
	p.defaults()
	msgs, err := p.Queue.Receive(ctx, p.Name, p.BatchSize, p.Visibility, p.Wait)
	if err != nil || len(msgs) == 0 {
		return BatchResult{}, err
	}
	res := BatchResult{Received: len(msgs)}
	failed, herr := p.handle(ctx, msgs)
	if herr != nil {
		// As in Lambda: a failed invocation or a malformed response retries
		// the whole batch.
		p.Log.Error("queue batch failed", "queue", p.Name, "messages", len(msgs), "error", herr.Error())
		res.Failed = len(msgs)
		return res, nil
	}
	// Deleting must not be cut short by shutdown: the work is already done.
	dctx := context.WithoutCancel(ctx)
	for _, m := range msgs {
		if failed[m.ID] {
			res.Failed++
			continue
		}
		if err := p.Queue.Delete(dctx, p.Name, m.Receipt); err != nil {
			// A stale receipt means the message was redelivered meanwhile: the
			// consumer sees it again, which at-least-once delivery allows.
			p.Log.Warn("queue delete failed", "queue", p.Name, "message_id", m.ID, "error", err.Error())
			continue
		}
		res.Deleted++
	}
	if res.Failed > 0 {
		p.Log.Warn("queue messages failed", "queue", p.Name, "failed", res.Failed, "deleted", res.Deleted)
	}
	return res, nil
}

// handle runs the handler on one batch and returns the ids it reported as
// failed; an error means the whole batch failed.
func (p *Poller) handle(ctx context.Context, msgs []queue.Message) (failed map[string]bool, err error) {
	// A batch in flight finishes on shutdown, within its own timeout.
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.Timeout)
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panic: %v", r)
		}
	}()
	resp, err := p.Handler(hctx, SQSEvent(p.Region, p.Name, msgs))
	if err != nil {
		return nil, err
	}
	if hctx.Err() != nil {
		return nil, fmt.Errorf("handler ran past its %s timeout", p.Timeout)
	}
	inBatch := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		inBatch[m.ID] = true
	}
	failed = make(map[string]bool, len(resp.BatchItemFailures))
	for _, f := range resp.BatchItemFailures {
		if !inBatch[f.ItemIdentifier] {
			return nil, errors.New("batch item failure names no message of the batch: " + strconv.Quote(f.ItemIdentifier))
		}
		failed[f.ItemIdentifier] = true
	}
	return failed, nil
}

// SQSEvent is the Lambda event for msgs received from the queue name.
func SQSEvent(region, name string, msgs []queue.Message) events.SQSEvent {
	ev := events.SQSEvent{Records: make([]events.SQSMessage, 0, len(msgs))}
	arn := QueueARN(region, name)
	for _, m := range msgs {
		sum := md5.Sum(m.Body)
		ev.Records = append(ev.Records, events.SQSMessage{
			MessageId:      m.ID,
			ReceiptHandle:  m.Receipt,
			Body:           string(m.Body),
			Md5OfBody:      hex.EncodeToString(sum[:]),
			Attributes:     map[string]string{"ApproximateReceiveCount": strconv.Itoa(m.ReceiveCount)},
			EventSourceARN: arn,
			EventSource:    "aws:sqs",
			AWSRegion:      region,
		})
	}
	return ev
}
