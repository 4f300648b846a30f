package beneficiaries

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/consumer"
	"github.com/paygate/paygate/shared/store"
)

// Consume is the payment orders queue's consumer (SQS event source with
// ReportBatchItemFailures): each message names one order. An order the
// bank has not decided, or whose processing failed, is reported failed
// after its message's visibility is set to when to ask again; after
// queue.MaxReceives receives it goes to the DLQ (alarmed), and the
// settlement task re-queues it while it is still created.
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return consumer.Record{Queue: queue.PaymentOrders, Q: s.q, Log: s.log, What: "payment order", IDField: "payment_order_id", Step: s.Process}.Consume(ctx, batch)
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
// after they were made, and finishes the distributions still processing
// ResumeAge after they were made (each chunk once, whatever else runs).
// Errors are the first met; the rest still ran.
func (s *Service) Sweep(ctx context.Context) (SweepResult, error) {
	now := s.clock().UTC()
	var res SweepResult
	var firstErr error
	fail := func(err error) {
		if firstErr == nil {
			firstErr = err
		}
	}
	for shard := 0; shard < openShards; shard++ {
		refs, err := s.due(ctx, orderOpenPK(shard), now.Add(-RequeueAge))
		if err != nil {
			fail(err)
		}
		for _, r := range refs {
			s.enqueue(ctx, r.AccountID, r.ID)
			res.Requeued++
		}
		refs, err = s.due(ctx, distOpenPK(shard), now.Add(-ResumeAge))
		if err != nil {
			fail(err)
		}
		for _, r := range refs {
			d, err := s.loadDistribution(ctx, r.AccountID, r.ID)
			if err == nil {
				err = s.advance(ctx, d)
			}
			if err != nil {
				s.log.Warn("distribution resume failed; the next run tries again", "distribution_id", r.ID, "error", err.Error())
				fail(err)
				continue
			}
			res.Resumed++
		}
	}
	return res, firstErr
}

// due reads an open index shard's entries made before by. A malformed
// entry is dropped.
func (s *Service) due(ctx context.Context, pk string, by time.Time) ([]openRef, error) {
	page, err := s.st.Query(ctx, store.Query{Table: store.TableLedger, PK: pk, To: by.Format(openSKTime) + "#", Limit: sweepBatch})
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.Sweep", apierr.Unavailable, err)
	}
	var out []openRef
	for _, it := range page.Items {
		var ref openRef
		if json.Unmarshal(it.Data, &ref) != nil || !ids.Valid(ref.ID) || ref.AccountID == "" {
			_ = s.st.Write(ctx, store.Delete(it.Key, store.Always))
			continue
		}
		out = append(out, ref)
	}
	return out, nil
}
