package balance

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/queue"
)

// Consume is the payouts queue's consumer (SQS event source with
// ReportBatchItemFailures): each message names one payout. A payout the
// processor did not answer, or whose processing failed, is reported failed
// after its message's visibility is set to when to try again; after
// queue.MaxReceives receives it goes to the DLQ (alarmed), and the
// settlement task re-queues it while it is still pending
// (remittance.Flow.Consume).
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return s.flow.Consume(ctx, batch)
}

// SettleInterval is how often the settlement task runs (its Schedule).
const SettleInterval = time.Minute

// RequeueAge is how long a payout may stay pending before the settlement
// task sends its message again (a message lost between commit and send).
const RequeueAge = time.Minute

// requeueBatch bounds the messages one run re-sends per index shard.
const requeueBatch = 100

// Settle is the settlement task: it makes available the captured funds whose
// settlement delay has passed (ledger.Settle), and re-queues the payouts
// still pending RequeueAge after they were made (remittance.Flow.Requeue).
// It returns how many captures it settled and payouts it re-queued; errors
// are the first of either (the rest still ran).
func (s *Service) Settle(ctx context.Context) (settled, requeued int, err error) {
	now := s.clock().UTC()
	settled, err = ledger.Settle(ctx, s.st, now)
	requeued, qerr := s.flow.Requeue(ctx, now, RequeueAge, requeueBatch)
	if err == nil {
		err = qerr
	}
	return settled, requeued, err
}
