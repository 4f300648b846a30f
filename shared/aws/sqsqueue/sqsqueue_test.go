package sqsqueue_test

import (
	"testing"

	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/testkit/queuetest"
)

func TestContract(t *testing.T) {
	sqstest.Client(t) // skip (or fail) once, not in every subtest
	// SQS standard queues are documented as at-least-once.
	queuetest.RunWith(t, func(t *testing.T) (queue.Queue, string) {
		return sqstest.NewForTest(t, "contract"), "contract"
	}, queuetest.Options{AtLeastOnce: true})
}
