package checkout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/store"
)

// A session's expiry is read, not written: StatusAt says expired once
// expiresAt passes. Its checkout.session.expired event needs a write, so the
// expirer (CheckoutSessionExpirerFunction, every ExpireInterval) stores the
// status: it finds sessions past their expiry in the expiry index, never by
// a Scan, and marks each one that is still open expired in one transaction
// with its event and the index entry's removal, conditioned on the version
// it read and on the live marker being gone. A payment completing the
// session needs the same version and the marker present, so a session gets
// exactly one of checkout.session.completed and checkout.session.expired,
// once, whatever runs concurrently (overlapping expirer runs included).
//
// The index holds one entry per session, written with the session
// (createOps). It is sharded like the orders pending index so no partition
// takes every session's write, and sorted by expiry so "expired by now" is a
// range. Sessions that ended otherwise (completed, refused, canceled) keep
// their entry until it falls due; the expirer then drops it without an
// event, which keeps the payment path's writes unchanged.
const expiryShards = 8

// ExpireInterval is how often the expirer runs: an expired event comes at
// most about this long after expiresAt.
const ExpireInterval = time.Minute

// Work per run: expirePerShard due entries per shard at most (pages of
// expirePage), each one read and one transaction, which fits the function's
// 30 s timeout. Handled entries leave the index, so the next run starts
// with the ones left; every shard gets its share each run.
const (
	expirePage     = 50
	expirePerShard = 125
)

// expireAttempts bounds re-reads after a session changed under the expirer.
const expireAttempts = 3

func expiryPK(shard int) string { return fmt.Sprintf("csexp#%d", shard) }

func expiryShard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % expiryShards)
}

// expirySKTime is a fixed-width, sortable expiry time.
const expirySKTime = "20060102T150405.000000000Z"

func expiryKey(s *Session) store.Key {
	return store.Key{Table: store.TableSessions, PK: expiryPK(expiryShard(s.ID)),
		SK: s.ExpiresAt.UTC().Format(expirySKTime) + "#" + s.ID}
}

// expiryItem is s's index entry. It outlives the session's expiry as long
// as the record does, so a late run still finds it.
func expiryItem(s *Session) store.Item {
	return store.Item{Key: expiryKey(s), Data: []byte("{}"), ExpiresAt: s.ExpiresAt.Add(ResultRetention)}
}

// dueBy is the inclusive upper bound of index keys expired at now (expiry
// <= now, i.e. before now plus a nanosecond).
func dueBy(now time.Time) string { return now.Add(time.Nanosecond).UTC().Format(expirySKTime) + "#" }

// Expirer marks expired sessions expired and writes their events. It needs
// the store only (no signing keys): its function holds no secret.
type Expirer struct {
	st    store.Store
	clock func() time.Time
	log   *slog.Logger
}

// NewExpirer builds the expirer; nil clock is time.Now, nil log discards.
func NewExpirer(st store.Store, clock func() time.Time, log *slog.Logger) *Expirer {
	if clock == nil {
		clock = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Expirer{st: st, clock: clock, log: log}
}

// ExpireResult is what one run did.
type ExpireResult struct {
	Expired int  // sessions marked expired, each with its event
	Dropped int  // entries of sessions that had ended otherwise (or are gone)
	More    bool // a shard had more due entries than one run takes
}

// Run handles the index entries due at the clock's now. Errors: Unavailable
// (the store); a session that changed meanwhile is re-read, not an error.
func (x *Expirer) Run(ctx context.Context) (ExpireResult, error) {
	res, err := x.run(ctx, x.clock(), expirePage, expirePerShard)
	if res.Expired+res.Dropped > 0 || res.More || err != nil {
		x.log.Info("session expirer run", "expired", res.Expired, "dropped", res.Dropped, "more", res.More, "error", err)
	}
	return res, err
}

func (x *Expirer) run(ctx context.Context, now time.Time, page, perShard int) (ExpireResult, error) {
	var res ExpireResult
	to := dueBy(now)
	for shard := range expiryShards {
		seen, cursor := 0, ""
		for seen < perShard {
			p, err := x.st.Query(ctx, store.Query{Table: store.TableSessions, PK: expiryPK(shard), To: to,
				Limit: min(page, perShard-seen), Cursor: cursor})
			if err != nil {
				return res, apierr.Wrap("checkout.Expirer", apierr.Unavailable, err)
			}
			for _, it := range p.Items {
				seen++
				out, err := x.one(ctx, it, now)
				if err != nil {
					return res, err
				}
				switch out {
				case expired:
					res.Expired++
				case dropped:
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

// outcome is what the expirer did with one entry.
type outcome int

const (
	left    outcome = iota // not yet: the next run sees it again
	expired                // the session is expired, with its event
	dropped                // the session ended otherwise (or is gone): entry removed
)

// one handles a due index entry: an open session is expired with its event;
// an ended or missing one only loses its entry. A session whose live marker
// the store still holds (clocks a little apart) is left for the next run.
func (x *Expirer) one(ctx context.Context, entry store.Item, now time.Time) (outcome, error) {
	id := entry.SK[strings.IndexByte(entry.SK, '#')+1:]
	for attempt := 1; ; attempt++ {
		s, err := x.load(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return dropped, x.drop(ctx, entry)
		}
		if apierr.Is(err, apierr.Internal) {
			// A record this code cannot read: logged, left, never blocking
			// the entries after it.
			x.log.Error("session expirer: session unreadable; entry left", "session", id, "error", err)
			return left, nil
		}
		if err != nil {
			return left, err
		}
		if s.Status != StatusActive && s.Status != StatusPaymentPending {
			return dropped, x.drop(ctx, entry)
		}
		if now.Before(s.ExpiresAt) {
			return left, nil // not due (an entry that does not match its session)
		}
		s.Status = StatusExpired
		s.events = append(s.events, pendingEvent{EventSessionExpired, now})
		ops, err := s.updateOps(false)
		if err != nil {
			return left, err
		}
		// ops[0] is the session at its version; the marker must be gone
		// (the store's own expiry, as the payment path sees it).
		ops = append(ops, store.Check(liveKey(s.ID), store.IfAbsent), store.Delete(entry.Key, store.Always))
		err = x.st.Write(ctx, ops...)
		if err == nil {
			return expired, nil
		}
		cf, ok := store.IsConditionFailed(err)
		switch {
		case ok && cf.Index == 0 && attempt < expireAttempts:
			continue // changed meanwhile (a payment, another run): read again
		case ok && cf.Index == 0:
			return left, nil // still changing: the next run sees it again
		case ok:
			return left, nil // the store holds the marker a little longer
		case apierr.Is(err, apierr.Conflict) && attempt < expireAttempts:
			continue // a transaction conflict the store could not retry away
		case apierr.Is(err, apierr.Conflict):
			return left, nil
		}
		return left, apierr.Wrap("checkout.Expirer", apierr.Unavailable, err)
	}
}

func (x *Expirer) load(ctx context.Context, id string) (*Session, error) {
	it, err := x.st.Get(ctx, sessionKey(id))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		return nil, apierr.Wrap("checkout.Expirer", apierr.Unavailable, err)
	}
	var s Session
	if err := json.Unmarshal(it.Data, &s); err != nil {
		return nil, apierr.Wrap("checkout.Expirer", apierr.Internal, err)
	}
	s.version = it.Version
	return &s, nil
}

func (x *Expirer) drop(ctx context.Context, entry store.Item) error {
	if err := x.st.Write(ctx, store.Delete(entry.Key, store.Always)); err != nil {
		return apierr.Wrap("checkout.Expirer", apierr.Unavailable, err)
	}
	return nil
}
