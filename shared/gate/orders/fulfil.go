package orders

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/paygate/paygate/shared/domain/supplier"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
)

// outcome is a definitive end of an order.
type outcome struct {
	status  Status // StatusCompleted or StatusFailed
	content map[string]string
	reason  string
	// idem is the keyed call that forces this outcome (a test helper): its
	// record joins the outcome's transaction. nil for the supplier's answers.
	idem *idempotency.Call
}

// finish moves a pending order to its outcome in one transaction with what
// must move with it: the event record, the pending index entry, and for a
// failure the refund of the charge. The order write is conditioned on the
// version read while pending, so of any number of concurrent or repeated
// finishes exactly one commits (store.Race), and the refund happens at most
// once. changed is false when the order was no longer pending (nothing was
// written).
func (s *Service) finish(ctx context.Context, cur *record, out outcome) (_ *record, changed bool, _ error) {
	race := store.Race{Op: "orders.finish", What: "order " + cur.ID}
	var done *record
	err := race.Run(ctx, func(n int) error {
		if n > 0 {
			var err error
			if cur, err = s.load(ctx, cur.AccountID, cur.ID); err != nil {
				return err
			}
		}
		if cur.Status != StatusPending {
			done = cur
			return nil
		}
		now := s.clock().UTC()
		next := *cur
		next.UpdatedAt = now
		next.Content = maps.Clone(cur.Content)
		if next.Content == nil {
			next.Content = map[string]string{}
		}
		if !CanTransition(cur.Status, out.status) {
			return apierr.Wrap("orders.finish", apierr.Internal, fmt.Errorf("no outcome %q", out.status))
		}
		ops := []store.Op{{}, pendingDelete(cur)}
		event := EventCompleted
		switch out.status {
		case StatusCompleted:
			next.Status, next.CompletedAt = StatusCompleted, &now
			maps.Copy(next.Content, out.content)
		default:
			next.Status, next.FailedAt, next.FailureReason, next.Refunded = StatusFailed, &now, out.reason, true
			event = EventFailed
			ops = append(ops, prepaid.RefundOp(cur.AccountID, cur.Currency, cur.Charged, now))
		}
		ev, err := eventOp(event, &next, now)
		if err != nil {
			return err
		}
		item, err := next.item()
		if err != nil {
			return err
		}
		ops[0] = store.Put(item, store.IfVersion(cur.version))
		ops = append(ops, ev)
		err = idempotency.Commit(ctx, s.st, out.idem, idempotency.Outcome{Kind: Kind, Value: next.View()}, ops...)
		switch {
		case err == nil:
			next.version = cur.version + 1
			if next.Status == StatusFailed {
				metrics.Count(metrics.OrdersFailed)
			}
			done, changed = &next, true
			return nil
		case idempotency.FromKey(err):
			return err // replay, in flight, or the key's other request
		}
		// The order changed since it was read: read it again and decide anew.
		return race.Settle(err)
	})
	if err != nil {
		return nil, false, err
	}
	return done, changed, nil
}

// load reads one order.
func (s *Service) load(ctx context.Context, accountID, id string) (*record, error) {
	it, err := s.st.Get(ctx, orderKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such order: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("orders.load", apierr.Unavailable, err)
	}
	r, err := decodeRecord(it)
	if err != nil {
		return nil, apierr.Wrap("orders.load", apierr.Internal, err)
	}
	return r, nil
}

// vendorFor routes an order: test orders to the test supplier, the rest to
// the live vendor (nil when none is configured).
func (s *Service) vendorFor(r *record) supplier.Supplier {
	if r.IsTest {
		return s.test
	}
	return s.live
}

func vendorRequest(r *record) supplier.Request {
	return supplier.Request{
		OrderID: r.ID, Quantity: r.Quantity, Amount: r.Charged, CustomerAccount: r.CustomerAccount, ExternalRef: r.ExternalRef,
		Product: supplier.Product{ID: r.ProductID, Slug: r.ProductSlug, Type: r.ProductType, Currency: r.Currency},
	}
}

// Fulfil asks the order's vendor and records the answer. It returns pending
// = true when the vendor is still working (ask again later). A pending order
// is a no-op when already completed or failed, so redelivered messages and
// duplicate re-queues change nothing.
func (s *Service) Fulfil(ctx context.Context, accountID, orderID string) (pending bool, err error) {
	rec, err := s.load(ctx, accountID, orderID)
	if err != nil {
		return false, err
	}
	if rec.Status != StatusPending {
		return false, nil
	}
	if s.clock().Sub(rec.CreatedAt) >= SupplierTimeout {
		_, _, err = s.expire(ctx, rec)
		return false, err
	}
	v := s.vendorFor(rec)
	if v == nil {
		_, _, err = s.finish(ctx, rec, outcome{status: StatusFailed, reason: "vendor_unavailable"})
		return false, err
	}
	res, err := v.Fulfil(ctx, vendorRequest(rec))
	if err == nil {
		err = res.Validate()
	}
	if err != nil {
		return false, apierr.Wrap("orders.vendor", apierr.Unavailable, err)
	}
	switch res.Status {
	case supplier.Completed:
		content := maps.Clone(res.Content)
		if res.VendorOrderID != "" {
			content["vendor_order_id"] = res.VendorOrderID
		}
		_, _, err = s.finish(ctx, rec, outcome{status: StatusCompleted, content: content})
		return false, err
	case supplier.Failed:
		_, _, err = s.finish(ctx, rec, outcome{status: StatusFailed, reason: res.Reason})
		return false, err
	}
	s.notePending(ctx, rec, res.VendorOrderID)
	return true, nil
}

// expire fails a pending order that outlived SupplierTimeout and refunds it,
// through finish: of any number of concurrent expiries and outcomes exactly
// one commits. changed is false when the order had already finished.
func (s *Service) expire(ctx context.Context, rec *record) (*record, bool, error) {
	done, changed, err := s.finish(ctx, rec, outcome{status: StatusFailed, reason: ReasonSupplierTimeout})
	if changed {
		s.log.Warn("order failed: no final answer from the supplier in time", "order_id", rec.ID,
			"timeout", SupplierTimeout.String())
	}
	return done, changed, err
}

// notePending records the vendor's order id on a still-pending order, once,
// so callers polling the order see order_content.vendor_order_id. Losing this
// write to a concurrent change is harmless: the next poll writes it.
func (s *Service) notePending(ctx context.Context, rec *record, vendorOrderID string) {
	if vendorOrderID == "" || rec.Content["vendor_order_id"] == vendorOrderID {
		return
	}
	next := *rec
	next.Content = map[string]string{"vendor_order_id": vendorOrderID}
	next.UpdatedAt = s.clock().UTC()
	item, err := next.item()
	if err == nil {
		err = s.st.Write(ctx, store.Put(item, store.IfVersion(rec.version)))
	}
	if err != nil {
		if _, ok := store.IsConditionFailed(err); !ok {
			s.log.Warn("recording vendor_order_id failed", "order_id", rec.ID, "error", err.Error())
		}
	}
}

// ForceOutcome is the test helper's transition: the same finish as the
// consumer's, with the test supplier's deliverable for a completion.
// ForceInput forces a pending test order's outcome (the test helpers).
type ForceInput struct {
	AccountID string
	OrderID   string
	Status    Status // StatusCompleted or StatusFailed
	Reason    string // for StatusFailed
	// Idem, when keyed, records the answer in the outcome's own transaction.
	Idem *idempotency.Call
}

// ForceOutcome completes or fails a pending order as its supplier would. It
// returns NotFound, Conflict (order_not_pending), or a *idempotency.Replayed.
func (s *Service) ForceOutcome(ctx context.Context, in ForceInput) (*Order, error) {
	rec, err := s.load(ctx, in.AccountID, in.OrderID)
	if err != nil {
		return nil, err
	}
	out := outcome{status: in.Status, reason: in.Reason, idem: in.Idem}
	if in.Status == StatusCompleted {
		out.content = s.test.Deliverable(vendorRequest(rec))
	}
	done, changed, err := s.finish(ctx, rec, out)
	if err != nil {
		return nil, err
	}
	if !changed {
		return nil, apierr.New(CodeNotPending, "the order is already %s", done.Status)
	}
	o := done.View()
	return &o, nil
}
