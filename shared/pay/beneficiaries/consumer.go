package beneficiaries

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Consume is the payment orders queue's consumer (SQS event source with
// ReportBatchItemFailures): each message names one order. An order the
// bank has not decided, or whose processing failed, is reported failed
// after its message's visibility is set to when to ask again; after
// queue.MaxReceives receives it goes to the DLQ (alarmed), and the
// settlement task re-queues it while it is still created
// (remittance.Flow.Consume).
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return s.flow.Consume(ctx, batch)
}

// RequeueAge is how long an order may stay created before the settlement
// task sends its message again (a message lost between commit and send). It
// is longer than the slow sandbox IBAN's SlowFor, so a slow order is not
// sent twice in the normal case (twice would still pay it once).
const RequeueAge = 2 * time.Minute

// ResumeAge is how long a distribution may stay processing before the
// settlement task resumes its credits (the request that made it died
// between chunks; it normally finishes them in milliseconds).
const ResumeAge = 30 * time.Second

// sweepBatch bounds the records one run handles per index shard.
const sweepBatch = 100

// SweepResult is what one run of Sweep did.
type SweepResult struct {
	Requeued int // payment orders whose message was sent again
	Resumed  int // distributions whose remaining chunks were credited
}

// Sweep is this package's part of the settlement task (SettlementFunction,
// every minute): it re-queues the payment orders still created RequeueAge
// after they were made (remittance.Flow.Requeue), and finishes the
// distributions still processing ResumeAge after they were made (each chunk
// once, whatever else runs; an entry whose distribution moved on is
// deleted). Errors are the first met; the rest still ran.
func (s *Service) Sweep(ctx context.Context) (SweepResult, error) {
	now := s.clock().UTC()
	var res SweepResult
	requeued, firstErr := s.flow.Requeue(ctx, now, RequeueAge, sweepBatch)
	res.Requeued = requeued
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := distOpen.VisitShard(ctx, s.st, shard, time.Time{}, now.Add(-ResumeAge), sweepBatch, func(e dueindex.Entry) error {
			d, err := s.loadDistribution(ctx, e.Account, e.ID)
			if apierr.Is(err, apierr.NotFound) || err == nil && d.Status != DistProcessing {
				// No distribution, or one that moved on: the entry is debris.
				if err := s.st.Write(ctx, store.Delete(e.Key, store.Always)); err != nil && firstErr == nil {
					firstErr = apierr.Wrap("beneficiaries.Sweep", apierr.Unavailable, err)
				}
				return nil
			}
			if err == nil {
				err = s.advance(ctx, d)
			}
			if err != nil {
				s.log.Warn("distribution resume failed; the next run tries again", "distribution_id", e.ID, "error", err.Error())
				if firstErr == nil {
					firstErr = err
				}
				return nil
			}
			res.Resumed++
			return nil
		})
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return res, firstErr
}
