package links

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// A link's expiry is read, not written: StatusAt says expired once
// expires_at passes, and no payment is taken from then on (the page's hold
// refuses it, and its session ends no later than the link). The
// payment_link.expired event and the stored status need a write, so the
// expirer (PaymentLinkExpirerFunction, every ExpireInterval) finds the
// active links past their expiry in the expiry index (never a Scan) and
// stores each one's expiry with its event, counters and the entry's removal
// in one transaction conditioned on the version it read. A payment, a
// cancel or an expiration update racing it needs the same version, so a
// link ends exactly once, with one event.

// ExpireInterval is how often the expirer runs.
const ExpireInterval = time.Minute

// Work per run: at most expirePerShard due entries per shard; handled
// entries leave the index, so the next run starts with the ones left. A
// link that keeps changing under the expirer is tried expireAttempts times,
// then left to the next run.
const (
	expirePerShard = 125
	expireAttempts = 3
)

// ExpireResult is what one run did.
type ExpireResult struct {
	Expired int  // links stored expired, each with its event
	Dropped int  // entries of links that had ended otherwise (or are gone)
	More    bool // a shard's budget was used up: it may hold more due entries
}

// Expire handles the expiry entries due at the clock's now. Errors:
// Unavailable (the store); a link that changed meanwhile is read again, and
// one still changing is left to the next run.
func (s *Service) Expire(ctx context.Context) (ExpireResult, error) {
	res, err := s.expire(ctx, s.clock(), expirePerShard)
	if res.Expired+res.Dropped > 0 || res.More || err != nil {
		s.log.Info("payment link expirer run", "expired", res.Expired, "dropped", res.Dropped, "more", res.More, "error", err)
	}
	return res, err
}

func (s *Service) expire(ctx context.Context, now time.Time, perShard int) (ExpireResult, error) {
	var res ExpireResult
	for shard := range dueindex.Shards {
		n, err := expiryIndex.VisitShard(ctx, s.st, shard, time.Time{}, now, perShard, func(e dueindex.Entry) error {
			expired, dropped, err := s.expireOne(ctx, e, now)
			if expired {
				res.Expired++
			}
			if dropped {
				res.Dropped++
			}
			return err
		})
		if err != nil {
			return res, err
		}
		if n == perShard {
			res.More = true
		}
	}
	return res, nil
}

// expireOne handles a due entry: an active link past its expiry is stored
// expired with its event; an entry that names no such link (ended
// otherwise, moved, gone) is removed.
func (s *Service) expireOne(ctx context.Context, e dueindex.Entry, now time.Time) (expired, dropped bool, err error) {
	drop := func() error {
		if err := s.st.Write(ctx, store.Delete(e.Key, store.Always)); err != nil {
			return apierr.Wrap("links.Expire", apierr.Unavailable, err)
		}
		dropped = true
		return nil
	}
	race := store.Race{Op: "links.Expire", What: "payment link " + e.ID, Attempts: expireAttempts}
	err = race.Run(ctx, func(int) error {
		r, err := s.load(ctx, e.ID)
		if apierr.Is(err, apierr.NotFound) {
			return drop()
		}
		if apierr.Is(err, apierr.Internal) {
			s.log.Error("payment link expirer: link unreadable; entry left", "link", e.ID, "error", err)
			return nil
		}
		if err != nil {
			return err
		}
		if r.AccountID != e.Account || r.Status != StatusActive || expiryKey(r, r.ExpiresAt) != e.Key {
			return drop() // ended otherwise, or its expiry moved (its own entry is elsewhere)
		}
		if now.Before(r.ExpiresAt) {
			return nil
		}
		if err := r.move(StatusExpired, now); err != nil {
			return err
		}
		ops, err := r.writeOps(now)
		if err != nil {
			return err
		}
		if err = race.Settle(s.st.Write(ctx, ops...)); err == nil {
			expired = true
		}
		return err
	})
	if apierr.HasCode(err, store.CodeBusy) {
		return false, false, nil // still changing: the next run sees it again
	}
	return expired, dropped, err
}
