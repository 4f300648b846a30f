package orders

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// placeBudget bounds how long an order waits for its balance (lost races,
// the lease) before answering 409 balance_busy (retry with the same key).
// In Lambda the request's deadline (the function's Timeout) shortens it, so
// the answer is always a 409 rather than a timed-out invocation.
const (
	placeBudget    = 25 * time.Second
	deadlineMargin = 1500 * time.Millisecond
)

// placeDeadline is when place stops waiting for the balance.
func placeDeadline(ctx context.Context) time.Time {
	d := time.Now().Add(placeBudget)
	if dl, ok := ctx.Deadline(); ok && dl.Add(-deadlineMargin).Before(d) {
		d = dl.Add(-deadlineMargin)
	}
	return d
}

// Indexes of the business ops of the order transaction (idempotency.Commit
// puts the key's record before them and counts failures in these).
const (
	opOrder = iota
	opDebit
	opPending
	opProduct
)

// PlaceInput is what placing an order takes: typed, with no HTTP, so the
// handler, a queue consumer or the admin CLI place orders alike.
type PlaceInput struct {
	AccountID string
	// TestMode: the caller's key is a test key (the order is a test order,
	// fulfilled by the test supplier).
	TestMode bool
	Order    CreateOrder
	// Idem is the keyed call (httpapi.Request.Idem); its key is stored on the
	// order and its record written in the order's transaction. The key is
	// required: an order is placed exactly once per key.
	Idem *idempotency.Call
}

// Place validates, prices, charges and records one order in one store
// transaction (idempotency record + order + debit + pending index + product
// check). Errors: Invalid (bad input, product_inactive, ...),
// InsufficientFunds, NotFound (product), Conflict (balance_busy, key in
// flight), IdempotencyMismatch, Unavailable; a *idempotency.Replayed when
// the key already holds this order's result.
func (s *Service) Place(ctx context.Context, in PlaceInput) (*Order, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	if err := in.Order.validate(); err != nil {
		return nil, err
	}
	acct := in.AccountID
	deadline := placeDeadline(ctx)
	for {
		prod, prodVersion, err := s.products.get(ctx, acct, *in.Order.ProductID)
		if err != nil {
			return nil, err
		}
		pr, err := in.Order.price(prod)
		if err != nil {
			return nil, err
		}
		o, retry, err := s.commit(ctx, &in, prod, prodVersion, pr, deadline)
		if !retry {
			if apierr.Is(err, apierr.InsufficientFunds) {
				// A duplicate of this very call (same key) that won may be
				// what spent the balance: this copy replays its order
				// rather than failing against the balance it left.
				if settled := in.Idem.Settled(ctx); settled != nil {
					return nil, settled
				}
			}
			return o, err
		}
		// The product changed since it was cached: read it again.
		s.products.forget(acct, prod.ID)
		if time.Now().After(deadline) {
			return nil, busy
		}
	}
}

func insufficient(cur string) error {
	return &apierr.Error{Kind: apierr.InsufficientFunds, Param: "product_id",
		Message: "the " + cur + " balance cannot pay this order; wait for a deposit to post, then retry with the same Idempotency-Key"}
}

var busy = apierr.New(CodeBalanceBusy, "the balance is being changed by other orders; retry with the same Idempotency-Key")

// commit reads the balance and writes the order, retrying lost races on the
// balance version. retry asks the caller to re-read the product.
func (s *Service) commit(ctx context.Context, in *PlaceInput, prod *catalog.Product, prodVersion int64, pr priced,
	deadline time.Time) (_ *Order, retry bool, _ error) {
	acct, cur, now := in.AccountID, prod.CurrencyCode, s.clock().UTC()
	rec := &record{
		ID: ids.NewAt(now), AccountID: acct, ProductID: prod.ID, ProductSlug: prod.Slug, ProductType: prod.TypeCode,
		IdempotencyKey: in.Idem.Key(), Status: StatusPending, Currency: cur, Charged: pr.charge, Quantity: pr.quantity,
		UnitPrice: pr.unitPrice, IsTest: in.TestMode || in.Order.Test, Live: !in.TestMode, RegionCode: prod.RegionCode,
		CustomerAccount: pr.customerAccount, Metadata: in.Order.Metadata, CreatedAt: now, UpdatedAt: now,
	}
	if in.Order.ExternalRef != nil {
		rec.ExternalRef = *in.Order.ExternalRef
	}
	unlock := s.lockBalance(acct, cur)
	defer func() { unlock() }() // the latest unlock: the success path releases early
	bal, guessed := s.balances.get(acct, cur)
	if !guessed {
		var err error
		if bal, err = s.ledger.Balance(ctx, acct, cur); err != nil {
			return nil, false, err
		}
	}
	leased := false // this order holds the balance lease (see lease.go)
	defer func() {
		if leased {
			s.releaseLease(ctx, acct, cur)
		}
	}()
	for {
		if bal.Available < pr.charge {
			if !guessed {
				return nil, false, insufficient(cur)
			}
			// Refuse only on a fresh read: a deposit may have posted.
			guessed = false
			var err error
			if bal, err = s.ledger.Balance(ctx, acct, cur); err != nil {
				return nil, false, err
			}
			continue
		}
		rec.BalanceBefore, rec.BalanceAfter = bal.Available, bal.Available-pr.charge
		view := rec.View()
		item, err := rec.item()
		if err != nil {
			return nil, false, err
		}
		ops := []store.Op{
			store.Put(item, store.IfAbsent),
			prepaid.DebitOp(acct, cur, pr.charge, bal.Version, now),
			pendingPut(rec),
			store.Check(catalog.ProductKey(acct, prod.ID), store.IfVersion(prodVersion)),
		}
		if leased {
			ops = append(ops, store.Delete(leaseKey(acct, cur), store.Always))
		}
		st, pipelined, era := s.st, false, int64(0)
		if s.serial {
			era = s.balances.era(acct, cur)
			next := prepaid.Balance{Available: rec.BalanceAfter, Version: bal.Version + 1}
			st = handover{Store: s.st, submitted: func() {
				// Handed over, still under the lock: the next order of this
				// balance builds on this one's outcome and commits after it,
				// in the same batch, instead of waiting for this commit.
				pipelined = true
				s.balances.put(acct, cur, next)
				unlock()
				unlock = func() {}
			}}
		}
		err = idempotency.Commit(ctx, st, in.Idem, idempotency.Outcome{Created: true, Kind: Kind, Value: view}, ops...)
		if pipelined && err != nil {
			// The prediction did not come true: queue for the balance again.
			// Orders built on it fail their version condition and re-read.
			unlock = s.lockBalance(acct, cur)
		}
		if err == nil {
			leased = false  // released by the transaction
			if !pipelined { // else the prediction is cached already, and may be overtaken
				s.balances.put(acct, cur, prepaid.Balance{Available: rec.BalanceAfter, Version: bal.Version + 1})
			}
			metrics.Count(metrics.OrdersPlaced)
			metrics.BalanceDebit(cur, pr.charge)
			unlock()
			unlock = func() {}
			s.enqueue(ctx, rec)
			return &view, false, nil
		}
		if idempotency.FromKey(err) {
			// A duplicate won the race (a replay), is in flight, or the key
			// was used for another request.
			return nil, false, err
		}
		cf, isCF := store.IsConditionFailed(err)
		switch {
		case isCF && cf.Index == opDebit:
			// The failed condition returns the balance as it is now.
			lostRace := !guessed && !leased
			if cf.Current == nil {
				bal = prepaid.Balance{}
			} else {
				bal = prepaid.Balance{Available: cf.Current.N, Version: cf.Current.Version}
			}
			guessed = false // fresh from the store
			if pipelined {
				// Built on a prediction that an earlier order of this process
				// did not fulfil (its own write failed): not a race with
				// another process, so no lease; build on the chain as it
				// stands now (see balanceCache.broken).
				lostRace = false
				bal, guessed = s.balances.broken(acct, cur, era, bal)
			} else {
				s.balances.put(acct, cur, bal)
			}
			if !guessed && bal.Available < pr.charge {
				return nil, false, insufficient(cur)
			}
			if lostRace {
				// Another order took the balance between our fresh read and
				// our write: the balance is hot, so queue on its lease rather
				// than race again. A stale cached guess, or a holder outrun
				// by a newcomer's first try, retries at once instead.
				if bal, err = s.acquireLease(ctx, acct, cur, pr.charge, deadline); err != nil {
					return nil, false, err
				}
				leased = true
			}
		case isCF && cf.Index == opProduct:
			return nil, true, nil
		case apierr.KindOf(err) == apierr.Conflict:
			// The store gave up on transaction conflicts: the balance is hot.
			guessed = false
			if leased {
				bal, err = s.ledger.Balance(ctx, acct, cur)
			} else if bal, err = s.acquireLease(ctx, acct, cur, pr.charge, deadline); err == nil {
				leased = true
			}
			if err != nil {
				return nil, false, err
			}
		default:
			return nil, false, apierr.Wrap("orders.create", apierr.Unavailable, err)
		}
		if time.Now().After(deadline) {
			return nil, false, busy
		}
	}
}

// handover is the store as idempotency.Commit sees it for an order: where
// the store pipelines writes (store.Pipeliner: the embedded store's group
// commit, the DynamoDB adapter's combining of one balance's debits) the
// order's write is handed over, submitted is called, and only then is the
// verdict awaited. On another store it is the store itself.
type handover struct {
	store.Store
	submitted func()
}

func (h handover) Write(ctx context.Context, ops ...store.Op) error {
	p, ok := h.Store.(store.Pipeliner)
	if !ok {
		return h.Store.Write(ctx, ops...)
	}
	wait, err := p.Submit(ctx, ops...)
	if err != nil {
		return err
	}
	h.submitted()
	return wait()
}

// Message is the fulfilment queue's message body.
type Message struct {
	AccountID string `json:"account_id"`
	OrderID   string `json:"order_id"`
}

// enqueue hands a committed order to fulfilment. A failure is logged, not
// returned: the order exists and is charged, and the reconciler re-queues
// pending orders whose message never arrived.
func (s *Service) enqueue(ctx context.Context, r *record) {
	body, err := json.Marshal(Message{AccountID: r.AccountID, OrderID: r.ID})
	if err == nil {
		err = queue.SendAfterCommit(ctx, s.q, queue.Fulfilment, body, 0)
	}
	if err != nil {
		s.log.Warn("fulfilment enqueue failed; the reconciler will re-queue", "order_id", r.ID, "error", err.Error())
	}
}
