package orders

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/queue"
)

// Backoff of a message whose order is still pending at the vendor, or whose
// processing failed: 2 s, 4 s, 8 s... by receive count, at most a minute.
const (
	retryBase = 2 * time.Second
	retryMax  = time.Minute
)

// pendingReceives is how many receives a still-pending order's message gets
// before it is acknowledged and left to the reconciler, which re-queues
// pending orders every minute (and fails them after SupplierTimeout); so a
// slow vendor never sends the message to the dead-letter queue
// (queue.MaxReceives).
const pendingReceives = queue.MaxReceives - 1

// Consume is the fulfilment consumer (SQS event source with
// ReportBatchItemFailures): each message names one order; only messages that
// must be seen again are reported as failures, after their visibility is set
// to the backoff.
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return queue.Each(s.handleMessage)(ctx, batch)
}

// handleMessage processes one message; false means "deliver it again".
func (s *Service) handleMessage(ctx context.Context, m queue.Message) bool {
	var msg Message
	if err := json.Unmarshal(m.Body, &msg); err != nil || msg.AccountID == "" || !ids.Valid(msg.OrderID) {
		// A malformed message can never succeed: drop it, loudly.
		s.log.Error("fulfilment message malformed; dropped", "message_id", m.ID)
		return true
	}
	receives := m.ReceiveCount
	pending, err := s.Fulfil(ctx, msg.AccountID, msg.OrderID)
	switch {
	case apierr.Is(err, apierr.NotFound):
		s.log.Error("fulfilment message names no order; dropped", "message_id", m.ID, "order_id", msg.OrderID)
		return true
	case err != nil:
		s.log.Warn("fulfilment failed; will retry", "order_id", msg.OrderID, "receives", receives, "error", err.Error())
	case !pending:
		return true
	case receives >= pendingReceives:
		s.log.Info("order still pending at the vendor; left to the reconciler", "order_id", msg.OrderID)
		return true
	}
	s.backoff(ctx, m, receives)
	return false
}

func (s *Service) backoff(ctx context.Context, m queue.Message, receives int) {
	d := retry.Backoff{Base: retryBase, Max: retryMax, Jitter: retry.None}.Delay(max(receives-1, 0))
	if err := s.q.ChangeVisibility(ctx, queue.Fulfilment, m.Receipt, d); err != nil {
		// The queue's own visibility timeout then decides when it returns.
		s.log.Warn("fulfilment backoff not set", "message_id", m.ID, "error", err.Error())
	}
}
