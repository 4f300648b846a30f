package queue

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/retry"
)

// A message about a record already committed (an order to fulfil, a payout
// to pay) is worth more tries than the SDK's own three before the record
// waits for its sweeper (a minute or two): make chaos showed network blips
// of a second or two leaving payouts pending for two minutes.
var afterCommit = retry.Backoff{Base: 200 * time.Millisecond, Max: time.Second, Jitter: retry.Equal}

// AfterCommitBudget bounds SendAfterCommit, tries and waits together: the
// request that committed is still waiting to answer.
const AfterCommitBudget = 4 * time.Second

// SendAfterCommit sends body about a committed record, detached from the
// request's cancellation (the record exists whatever the client does), and
// tries again within AfterCommitBudget. The error is the last send's: the
// caller logs it and leaves the record to its sweeper.
func SendAfterCommit(ctx context.Context, q Queue, queue string, body []byte, delay time.Duration) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AfterCommitBudget)
	defer cancel()
	for n := 0; ; n++ {
		_, err := q.Send(ctx, queue, body, delay)
		if err == nil {
			return nil
		}
		if afterCommit.Sleep(ctx, n) != nil {
			return err
		}
	}
}
