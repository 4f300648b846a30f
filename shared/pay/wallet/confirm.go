package wallet

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/consumer"
)

// toStatus is a mutation that moves an open transaction to status (with a
// failure reason), and changes nothing when it is already past NEW or
// PROCESSING: a redelivered message, or a shopper answering a cancelled
// transaction, changes nothing.
func toStatus(status Status, reason string) func(*record) error {
	return func(next *record) error {
		if !next.Status.Open() || next.Status == status {
			return errNoChange
		}
		next.Status, next.FailureReason = status, reason
		return nil
	}
}

// Advance moves one transaction on as the shopper's wallet answers: NEW to
// PROCESSING (the push is sent), then the shopper's answer as the
// provider reports it, or
// FAILED once the confirmation timeout has passed. It returns again > 0 when
// the answer is not due yet (ask again after that long). A transaction past
// NEW/PROCESSING is left as it is, so a message delivered twice changes the
// status once. Errors: NotFound, Unavailable.
func (s *Service) Advance(ctx context.Context, accountID, id string) (again time.Duration, err error) {
	cur, err := s.load(ctx, accountID, id)
	if err != nil || !cur.Status.Open() {
		return 0, err
	}
	age := s.clock().Sub(cur.CreatedAt)
	if age >= s.timeout {
		_, _, err = s.move(ctx, cur, nil, toStatus(StatusFailed, ReasonTimeout))
		return 0, err
	}
	if cur.Live {
		// No live wallet provider is configured: live keys are refused at
		// authorisation (live_mode_unavailable); a live transaction made
		// before that fails rather than wait for an answer that cannot come.
		_, _, err = s.move(ctx, cur, nil, toStatus(StatusFailed, ReasonUnavailable))
		return 0, err
	}
	if cur.Status == StatusNew {
		if cur, _, err = s.move(ctx, cur, nil, toStatus(StatusProcessing, "")); err != nil || !cur.Status.Open() {
			return 0, err
		}
	}
	answer, again := s.provider.Answer(cur.Phone, age)
	switch answer {
	case phonewallet.Approved:
		_, _, err = s.move(ctx, cur, nil, toStatus(StatusSuccess, ""))
	case phonewallet.Declined:
		_, _, err = s.move(ctx, cur, nil, toStatus(StatusFailed, ReasonDeclined))
	case phonewallet.InsufficientFunds:
		_, _, err = s.move(ctx, cur, nil, toStatus(StatusFailed, ReasonInsufficient))
	case phonewallet.Pending:
		// Not due yet, or nothing until a test helper or the expirer.
		return again, nil
	}
	return 0, err
}

// Consume is the confirmation consumer (SQS event source with
// ReportBatchItemFailures): each message names one transaction; a message
// whose answer is not due yet, or whose processing failed, is reported failed
// after its visibility is set to when to look again.
func (s *Service) Consume(ctx context.Context, batch []queue.Message) []string {
	return consumer.Record{Queue: queue.WalletConfirmations, Q: s.q, Log: s.log, What: "wallet transaction", IDField: "wallet_transaction_id", Step: s.Advance}.Consume(ctx, batch)
}

// ForceInput is a test helper's answer on the shopper's behalf.
type ForceInput struct {
	AccountID string
	ID        string
	Approve   bool
	Reason    string // a decline's failureReason (default declined_by_shopper)
	Idem      *idempotency.Call
}

// ForceOutcome confirms or declines a NEW or PROCESSING test transaction as
// the shopper would, through the same move as the consumer. Errors: NotFound,
// Conflict (wallet_transaction_state: the shopper can no longer answer).
func (s *Service) ForceOutcome(ctx context.Context, in ForceInput) (*Transaction, error) {
	cur, err := s.load(ctx, in.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	to, reason := StatusSuccess, ""
	if !in.Approve {
		to, reason = StatusFailed, in.Reason
		if reason == "" {
			reason = ReasonDeclined
		}
	}
	done, _, err := s.move(ctx, cur, in.Idem, func(next *record) error {
		if !next.Status.Open() {
			return illegal(next.Status, to)
		}
		next.Status, next.FailureReason = to, reason
		return nil
	})
	if err != nil {
		return nil, err
	}
	t := done.View()
	return &t, nil
}
