// Package sqsqueue is the Amazon SQS adapter of the queue port. Logical queue
// names map to queue URLs given by configuration (URLsFromEnv) or created by
// CreateQueues.
package sqsqueue

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/paygate/paygate/shared/queue"
)

// Queue implements queue.Queue on SQS standard queues.
type Queue struct {
	client *sqs.Client
	urls   map[string]string
}

var _ queue.Queue = (*Queue)(nil)

// New returns the adapter. urls maps logical names (including DLQ names)
// to queue URLs; a name without a URL is queue.ErrInvalid at use.
func New(client *sqs.Client, urls map[string]string) *Queue {
	copied := make(map[string]string, len(urls))
	for k, v := range urls {
		copied[k] = v
	}
	return &Queue{client: client, urls: copied}
}

// Close implements queue.Queue; the SDK client holds nothing to release.
func (q *Queue) Close() error { return nil }

func (q *Queue) url(name string) (*string, error) {
	if err := queue.CheckName(name); err != nil {
		return nil, err
	}
	u, ok := q.urls[name]
	if !ok || u == "" {
		return nil, fmt.Errorf("%w: no URL configured for queue %q", queue.ErrInvalid, name)
	}
	return aws.String(u), nil
}

// Send implements queue.Queue.
func (q *Queue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	u, err := q.url(name)
	if err != nil {
		return "", err
	}
	if err := errors.Join(queue.CheckBody(body), queue.CheckDelay(delay)); err != nil {
		return "", err
	}
	out, err := q.client.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:     u,
		MessageBody:  aws.String(string(body)),
		DelaySeconds: seconds(delay),
	})
	if err != nil {
		return "", fmt.Errorf("sqsqueue: send to %s: %w", name, err)
	}
	return aws.ToString(out.MessageId), nil
}

// Receive implements queue.Queue.
func (q *Queue) Receive(ctx context.Context, name string, limit int, visibility, wait time.Duration) ([]queue.Message, error) {
	u, err := q.url(name)
	if err != nil {
		return nil, err
	}
	if err := queue.CheckReceive(limit, visibility, wait); err != nil {
		return nil, err
	}
	out, err := q.client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    u,
		MaxNumberOfMessages:         int32(limit),
		VisibilityTimeout:           seconds(visibility),
		WaitTimeSeconds:             seconds(wait),
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
	})
	if err != nil {
		return nil, fmt.Errorf("sqsqueue: receive from %s: %w", name, err)
	}
	msgs := make([]queue.Message, 0, len(out.Messages))
	for _, m := range out.Messages {
		count, err := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)])
		if err != nil {
			// Without it consumers cannot tell a retry; SQS always sends it
			// when asked, so this is a broken server, not a message to drop.
			return nil, fmt.Errorf("sqsqueue: receive from %s: message %s without ApproximateReceiveCount", name, aws.ToString(m.MessageId))
		}
		msgs = append(msgs, queue.Message{
			ID:           aws.ToString(m.MessageId),
			Body:         []byte(aws.ToString(m.Body)),
			Receipt:      aws.ToString(m.ReceiptHandle),
			ReceiveCount: count,
		})
	}
	return msgs, nil
}

// Delete implements queue.Queue. SQS accepts some stale receipts silently
// (it then keeps the message); only the ones it rejects are ErrStaleReceipt.
func (q *Queue) Delete(ctx context.Context, name, receipt string) error {
	u, err := q.url(name)
	if err != nil {
		return err
	}
	if receipt == "" {
		return fmt.Errorf("%w: empty receipt", queue.ErrInvalid)
	}
	_, err = q.client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: u, ReceiptHandle: aws.String(receipt)})
	if err != nil {
		return fmt.Errorf("sqsqueue: delete on %s: %w", name, mapReceiptErr(err))
	}
	return nil
}

// ChangeVisibility implements queue.Queue.
func (q *Queue) ChangeVisibility(ctx context.Context, name, receipt string, visibility time.Duration) error {
	u, err := q.url(name)
	if err != nil {
		return err
	}
	if receipt == "" {
		return fmt.Errorf("%w: empty receipt", queue.ErrInvalid)
	}
	if err := queue.CheckVisibility(visibility, true); err != nil {
		return err
	}
	_, err = q.client.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl:          u,
		ReceiptHandle:     aws.String(receipt),
		VisibilityTimeout: seconds(visibility),
	})
	if err != nil {
		return fmt.Errorf("sqsqueue: change visibility on %s: %w", name, mapReceiptErr(err))
	}
	return nil
}

// mapReceiptErr adds queue.ErrStaleReceipt to the errors by which SQS says a
// receipt no longer names an in-flight message, keeping the SDK error too.
func mapReceiptErr(err error) error {
	var invalid *types.ReceiptHandleIsInvalid
	var notInflight *types.MessageNotInflight
	if errors.As(err, &invalid) || errors.As(err, &notInflight) {
		return fmt.Errorf("%w: %w", queue.ErrStaleReceipt, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "ReceiptHandleIsInvalid", "MessageNotInflight", "AWS.SimpleQueueService.MessageNotInflight":
			return fmt.Errorf("%w: %w", queue.ErrStaleReceipt, err)
		}
	}
	return err
}
