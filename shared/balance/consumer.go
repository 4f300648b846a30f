package balance

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/ledger"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/consumer"
	"github.com/paygate/paygate/shared/store"
)

// Consume is the payouts queue's consumer (SQS event source with
// ReportBatchItemFailures): each message names one payout. A payout the
// processor did not answer, or whose processing failed, is reported failed
// after its message's visibility is set to when to try again; after
// queue.MaxReceives receives it goes to the DLQ (alarmed), and the
// settlement task re-queues it while it is still pending.
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return consumer.Record{Queue: queue.Payouts, Q: s.q, Log: s.log, What: "payout", IDField: "payout_id", Step: s.Process}.Consume(ctx, batch)
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
// still pending RequeueAge after they were made. It returns how many
// captures it settled and payouts it re-queued; errors are the first of
// either (the rest still ran).
func (s *Service) Settle(ctx context.Context) (settled, requeued int, err error) {
	now := s.clock().UTC()
	settled, err = ledger.Settle(ctx, s.st, now)
	for shard := 0; shard < openShards; shard++ {
		page, qerr := s.st.Query(ctx, store.Query{Table: store.TableLedger, PK: openPK(shard),
			To: now.Add(-RequeueAge).Format(openSKTime) + "#", Limit: requeueBatch})
		if qerr != nil {
			if err == nil {
				err = apierr.Wrap("balance.Settle", apierr.Unavailable, qerr)
			}
			continue
		}
		for _, it := range page.Items {
			var ref openRef
			if json.Unmarshal(it.Data, &ref) != nil || !ids.Valid(ref.ID) {
				_ = s.st.Write(ctx, store.Delete(it.Key, store.Always))
				continue
			}
			s.enqueue(ctx, ref.AccountID, ref.ID)
			requeued++
		}
	}
	return settled, requeued, err
}
