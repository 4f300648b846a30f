package sqsqueue

import (
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"

	"github.com/paygate/paygate/shared/queue"
)

func TestEnvName(t *testing.T) {
	for name, want := range map[string]string{
		queue.Fulfilment:                "QUEUE_FULFILMENT_URL",
		queue.DLQName(queue.Webhooks):   "QUEUE_WEBHOOKS_DLQ_URL",
		queue.DLQName(queue.Fulfilment): "QUEUE_FULFILMENT_DLQ_URL",
		"some-other_queue":              "QUEUE_SOME_OTHER_QUEUE_URL",
	} {
		if got := EnvName(name); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestURLsFromEnv(t *testing.T) {
	env := map[string]string{
		"QUEUE_WEBHOOKS_URL":     "https://sqs/1/webhooks",
		"QUEUE_WEBHOOKS_DLQ_URL": "https://sqs/1/webhooks-dlq",
		"QUEUE_FULFILMENT_URL":   "",
		"QUEUE_OTHER_URL":        "https://sqs/1/other",
	}
	got := URLsFromEnv(func(k string) string { return env[k] })
	want := map[string]string{
		queue.Webhooks:                "https://sqs/1/webhooks",
		queue.DLQName(queue.Webhooks): "https://sqs/1/webhooks-dlq",
	}
	if !maps.Equal(got, want) {
		t.Fatalf("URLsFromEnv = %v, want %v", got, want)
	}
}

func TestUnconfiguredQueueIsInvalid(t *testing.T) {
	q := New(nil, map[string]string{queue.Webhooks: "https://sqs/1/webhooks"})
	if _, err := q.Send(t.Context(), queue.Fulfilment, []byte("{}"), 0); !errors.Is(err, queue.ErrInvalid) {
		t.Fatalf("Send to an unconfigured queue: %v, want ErrInvalid", err)
	}
}

func TestMapReceiptErr(t *testing.T) {
	stale := []error{
		&types.ReceiptHandleIsInvalid{Message: new(string)},
		&types.MessageNotInflight{},
		&smithy.GenericAPIError{Code: "AWS.SimpleQueueService.MessageNotInflight"},
		fmt.Errorf("wrapped: %w", &smithy.GenericAPIError{Code: "ReceiptHandleIsInvalid"}),
	}
	for _, err := range stale {
		got := mapReceiptErr(err)
		if !errors.Is(got, queue.ErrStaleReceipt) || !errors.Is(got, err) {
			t.Errorf("mapReceiptErr(%v) = %v, want ErrStaleReceipt wrapping it", err, got)
		}
	}
	other := &smithy.GenericAPIError{Code: "InternalError"}
	if got := mapReceiptErr(other); errors.Is(got, queue.ErrStaleReceipt) {
		t.Errorf("mapReceiptErr(%v) = %v, want it unchanged", other, got)
	}
}
