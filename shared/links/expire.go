package links

import (
	"context"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
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

// Work per run: at most expirePerShard due entries per shard, in pages of
// expirePage; handled entries leave the index, so the next run starts with
// the ones left.
const (
	expirePage     = 50
	expirePerShard = 125
	expireAttempts = 3
)

// ExpireResult is what one run did.
type ExpireResult struct {
	Expired int  // links stored expired, each with its event
	Dropped int  // entries of links that had ended otherwise (or are gone)
	More    bool // a shard had more due entries than one run takes
}

// Expire handles the expiry entries due at the clock's now. Errors:
// Unavailable (the store); a link that changed meanwhile is read again, and
// one still changing is left to the next run.
func (s *Service) Expire(ctx context.Context) (ExpireResult, error) {
	res, err := s.expire(ctx, s.clock(), expirePage, expirePerShard)
	if res.Expired+res.Dropped > 0 || res.More || err != nil {
		s.log.Info("payment link expirer run", "expired", res.Expired, "dropped", res.Dropped, "more", res.More, "error", err)
	}
	return res, err
}

func (s *Service) expire(ctx context.Context, now time.Time, page, perShard int) (ExpireResult, error) {
	var res ExpireResult
	to := dueBy(now)
	for shard := range expiryShards {
		seen, cursor := 0, ""
		for seen < perShard {
			p, err := s.st.Query(ctx, store.Query{Table: store.TablePayments, PK: expiryPK(shard), To: to,
				Limit: min(page, perShard-seen), Cursor: cursor})
			if err != nil {
				return res, apierr.Wrap("links.Expire", apierr.Unavailable, err)
			}
			for _, it := range p.Items {
				seen++
				expired, dropped, err := s.expireOne(ctx, it.Key, now)
				if err != nil {
					return res, err
				}
				if expired {
					res.Expired++
				}
				if dropped {
					res.Dropped++
				}
			}
			if cursor = p.Next; cursor == "" {
				break
			}
		}
		if seen == perShard && cursor != "" {
			res.More = true
		}
	}
	return res, nil
}

// expireOne handles a due entry: an active link past its expiry is stored
// expired with its event; an entry that names no such link (ended
// otherwise, moved, gone) is removed.
func (s *Service) expireOne(ctx context.Context, entry store.Key, now time.Time) (expired, dropped bool, err error) {
	accountID, id, ok := parseExpirySK(entry.SK)
	drop := func() (bool, bool, error) {
		if err := s.st.Write(ctx, store.Delete(entry, store.Always)); err != nil {
			return false, false, apierr.Wrap("links.Expire", apierr.Unavailable, err)
		}
		return false, true, nil
	}
	if !ok {
		return drop()
	}
	for attempt := 1; ; attempt++ {
		r, err := s.load(ctx, id)
		if apierr.Is(err, apierr.NotFound) {
			return drop()
		}
		if apierr.Is(err, apierr.Internal) {
			s.log.Error("payment link expirer: link unreadable; entry left", "link", id, "error", err)
			return false, false, nil
		}
		if err != nil {
			return false, false, err
		}
		if r.AccountID != accountID || r.Status != StatusActive || expiryKey(r, r.ExpiresAt) != entry {
			return drop() // ended otherwise, or its expiry moved (its own entry is elsewhere)
		}
		if now.Before(r.ExpiresAt) {
			return false, false, nil
		}
		if err := r.move(StatusExpired, now); err != nil {
			return false, false, err
		}
		ops, err := r.writeOps(now)
		if err != nil {
			return false, false, err
		}
		err = s.st.Write(ctx, ops...)
		if err == nil {
			return true, false, nil
		}
		cf, isCond := store.IsConditionFailed(err)
		switch {
		case (isCond && cf.Index == 0 || apierr.Is(err, apierr.Conflict)) && attempt < expireAttempts:
			continue // changed meanwhile (a payment, a cancel, another run): read again
		case isCond && cf.Index == 0, apierr.Is(err, apierr.Conflict):
			return false, false, nil // still changing: the next run sees it again
		}
		return false, false, apierr.Wrap("links.Expire", apierr.Unavailable, err)
	}
}
