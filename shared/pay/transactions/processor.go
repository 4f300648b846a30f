package transactions

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// ResendAfter is how long after a change its modification's due entry
// falls due: the sweeper (Resend, in the authorisation expirer's run every
// ExpireInterval) sends what the change's own call did not deliver by then.
const ResendAfter = 30 * time.Second

// resendBudget bounds the due entries one run reads per shard.
const resendBudget = 1000

// send tells the processor of a committed modification and, once it has
// received it, deletes its due entry (entry at due). A call that fails
// leaves the entry for Resend; the merchant's answer is the committed
// change either way.
func (s *Service) send(ctx context.Context, m payments.Modification, due time.Time) {
	err := s.deliver(ctx, m)
	if err != nil {
		s.log.Warn("the card processor did not take a modification; the sweeper sends it again",
			"modification", m.ID, "kind", string(m.Kind), "error", err.Error())
		return
	}
	if err := s.st.Write(ctx, store.Delete(payments.ModificationIndex.Key(m.Account, m.ID, due), store.Always)); err != nil {
		// The entry stays: the sweeper sends it once more, which the
		// processor answers as a repeat.
		s.log.Warn("a sent modification's due entry was not deleted", "modification", m.ID, "error", err.Error())
	}
}

// deliver is the one call of the processor per modification kind, to the
// processor that authorised the payment (its connector, or the sandbox).
func (s *Service) deliver(ctx context.Context, m payments.Modification) error {
	proc, err := s.cards.Of(ctx, m.Account, m.Connector)
	if err != nil {
		return err
	}
	ref := m.ProcessorRef
	if ref == "" { // the sandbox knows the payment by our id
		ref = m.Payment
	}
	pm := cards.Modification{ID: m.ID, Payment: ref, Amount: m.Amount, Currency: m.Currency}
	switch m.Kind {
	case payments.ModificationCapture:
		return proc.Capture(ctx, pm)
	case payments.ModificationCancel:
		return proc.Cancel(ctx, pm)
	case payments.ModificationRefund:
		return proc.Refund(ctx, pm)
	}
	return fmt.Errorf("transactions: modification %s of unknown kind %q", m.ID, m.Kind)
}

// Resend sends the modifications whose due entry is due: those whose
// change's own call failed or never ran (the process died after the
// commit). An entry goes once the processor received its modification, or
// refused it (logged as an error for an operator: a refusal of a change
// already committed is a case for the processor's support, not a retry);
// while the processor is unavailable it stays for the next run. It returns
// how many modifications the processor received.
func (s *Service) Resend(ctx context.Context) (int, error) {
	now := s.clock().UTC()
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := payments.ModificationIndex.VisitShard(ctx, s.st, shard, time.Time{}, now, resendBudget, func(e dueindex.Entry) error {
			ok, err := s.resendOne(ctx, e)
			if err != nil && firstErr == nil {
				firstErr = err
			}
			if ok {
				n++
			}
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, firstErr
}

func (s *Service) resendOne(ctx context.Context, e dueindex.Entry) (bool, error) {
	drop := func() error { return s.st.Write(ctx, store.Delete(e.Key, store.Always)) }
	paymentID, n, ok := payments.ParseModificationID(e.ID)
	if !ok {
		s.log.Error("a modification due entry names no modification; dropped", "entry", e.String())
		return false, drop()
	}
	p, err := s.repo.Get(ctx, e.Account, paymentID)
	if apierr.Is(err, apierr.NotFound) {
		s.log.Error("a modification due entry names no payment; dropped", "entry", e.String())
		return false, drop()
	}
	if err != nil {
		return false, err
	}
	m, ok := p.ModificationAt(n)
	if !ok {
		s.log.Error("a modification due entry names a history entry that is no modification; dropped", "entry", e.String())
		return false, drop()
	}
	switch err := s.deliver(ctx, m); {
	case err == nil:
		return true, drop()
	case apierr.Is(err, apierr.Unavailable):
		s.log.Warn("the card processor is unavailable; the modification is sent again on the next run", "modification", m.ID, "error", err.Error())
		return false, nil
	default:
		s.log.Error("the card processor refused a committed modification: an operator must settle it with the processor",
			"modification", m.ID, "kind", string(m.Kind), "amount", m.Amount, "currency", m.Currency, "error", err.Error())
		return false, drop()
	}
}
