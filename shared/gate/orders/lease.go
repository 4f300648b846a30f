package orders

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/store"
)

// The balance lease is traffic control for a hot balance, never a guarantee:
// the debit's version condition alone keeps balance_before/balance_after
// exact and the balance non-negative. An order takes the lease only after it
// lost a race on the balance version with a fresh value, so racers (one per
// Lambda instance) queue on the lease with cheap single-item writes instead of
// failing each other's transactions; the holder's order transaction deletes
// the lease, so a leased order still commits in one transaction.
const (
	// leaseTTL frees the lease of a holder that died: far above the two
	// round trips a holder needs, far below the request budget.
	leaseTTL = 3 * time.Second
	// A waiter polls after a random wait in a window that doubles from
	// leasePollStart on every failed poll up to leasePollCap: one or two
	// waiters take a released lease within milliseconds, and 200 spread to a
	// few hundred polls per second in all (measured best on DynamoDB Local).
	leasePollStart = 8 * time.Millisecond
	leasePollCap   = time.Second
	// leaseRefreshEvery: a waiter reads the balance every other failed poll,
	// so once the balance cannot pay, waiters are refused without queueing.
	leaseRefreshEvery = 2
)

// leasePoll is the waiters' polling backoff (full jitter, see above).
var leasePoll = retry.Backoff{Base: leasePollStart, Max: leasePollCap, Jitter: retry.Full}

// leaseKey lives in the orders table, the one the orders function writes
// and deletes in; it never shares a partition with an account's orders.
func leaseKey(accountID, currency string) store.Key {
	return store.Key{Table: store.TableOrders, PK: "lease#" + accountID, SK: currency}
}

// acquireLease waits for the balance's lease and returns the balance read
// just after taking it. It refuses (insufficient_balance) as soon as a fresh
// read shows the balance cannot pay, and gives up (balance_busy) at deadline.
func (s *Service) acquireLease(ctx context.Context, acct, cur string, charge int64, deadline time.Time) (prepaid.Balance, error) {
	// The lease names its holder, so a put that committed and was sent
	// again (its answer lost: the SDK retries) finds its own lease instead
	// of waiting it out (found by make chaos).
	holder := fmt.Appendf(nil, `{"holder":%q}`, rand.Text())
	for attempt := 0; ; attempt++ {
		lease := store.Item{Key: leaseKey(acct, cur), Data: holder, ExpiresAt: s.clock().Add(leaseTTL)}
		err := s.st.Write(ctx, store.Put(lease, store.IfAbsent))
		if cf, taken := store.IsConditionFailed(err); taken && cf.Current != nil && bytes.Equal(cf.Current.Data, holder) {
			err = nil
		}
		if err == nil {
			bal, err := s.ledger.Balance(ctx, acct, cur)
			if err == nil && bal.Available < charge {
				err = insufficient(cur)
			}
			if err != nil {
				s.releaseLease(ctx, acct, cur)
			}
			return bal, err
		}
		// Taken (a failed condition), or the store gave up on a conflict:
		// both mean "wait"; anything else is a store failure.
		if _, taken := store.IsConditionFailed(err); !taken && apierr.KindOf(err) != apierr.Conflict {
			return prepaid.Balance{}, apierr.Wrap("orders.create", apierr.Unavailable, err)
		}
		if attempt%leaseRefreshEvery == leaseRefreshEvery-1 {
			bal, err := s.ledger.Balance(ctx, acct, cur)
			if err != nil {
				return prepaid.Balance{}, err
			}
			if bal.Available < charge {
				return prepaid.Balance{}, insufficient(cur)
			}
		}
		if time.Now().After(deadline) {
			return prepaid.Balance{}, busy
		}
		if err := leasePoll.Sleep(ctx, attempt); err != nil {
			return prepaid.Balance{}, apierr.Wrap("orders.create", apierr.Unavailable, err)
		}
	}
}

// releaseLease frees the lease when the holder ends without committing. A
// failure only delays the other waiters until the lease expires.
func (s *Service) releaseLease(ctx context.Context, acct, cur string) {
	if err := s.st.Write(context.WithoutCancel(ctx), store.Delete(leaseKey(acct, cur), store.Always)); err != nil {
		s.log.Warn("balance lease not released; it expires", "error", err.Error())
	}
}
