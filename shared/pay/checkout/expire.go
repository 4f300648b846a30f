package checkout

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
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
// The index (a dueindex) holds one entry per session, written with the
// session (createOps), sorted by expiry so "expired by now" is a range.
// Sessions that ended otherwise (completed, refused, canceled) keep their
// entry until it falls due; the expirer then drops it without an event,
// which keeps the payment path's writes unchanged.
var expiryIndex = dueindex.Index{Table: store.TableSessions, Prefix: "csexp#"}

// ExpireInterval is how often the expirer runs: an expired event comes at
// most about this long after expiresAt.
const ExpireInterval = time.Minute

// Work per run: expirePerShard due entries per shard at most, each one read
// and one transaction, which fits the function's 30 s timeout. Handled
// entries leave the index, so the next run starts with the ones left; every
// shard gets its share each run.
const expirePerShard = 125

// expireAttempts bounds re-reads after a session changed under the expirer.
const expireAttempts = 3

// expiryOp is s's index entry. It outlives the session's expiry as long as
// the record does, so a late run still finds it.
func expiryOp(s *Session) store.Op {
	op := expiryIndex.Put(s.AccountID, s.ID, s.ExpiresAt)
	op.Item.ExpiresAt = s.ExpiresAt.Add(ResultRetention)
	return op
}

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
	res, err := x.run(ctx, x.clock(), expirePerShard)
	if res.Expired+res.Dropped > 0 || res.More || err != nil {
		x.log.Info("session expirer run", "expired", res.Expired, "dropped", res.Dropped, "more", res.More, "error", err)
	}
	return res, err
}

func (x *Expirer) run(ctx context.Context, now time.Time, perShard int) (ExpireResult, error) {
	var res ExpireResult
	for shard := range dueindex.Shards {
		n, err := expiryIndex.VisitShard(ctx, x.st, shard, time.Time{}, now, perShard, func(e dueindex.Entry) error {
			out, err := x.one(ctx, e, now)
			switch out {
			case expired:
				res.Expired++
			case dropped:
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
func (x *Expirer) one(ctx context.Context, e dueindex.Entry, now time.Time) (out outcome, _ error) {
	race := store.Race{Op: "checkout.Expirer", What: "session " + e.ID, Attempts: expireAttempts}
	err := race.Run(ctx, func(int) error {
		out = left
		s, err := x.load(ctx, e.ID)
		if errors.Is(err, store.ErrNotFound) {
			out = dropped
			return x.drop(ctx, e.Key)
		}
		if apierr.Is(err, apierr.Internal) {
			// A record this code cannot read: logged, left, never blocking
			// the entries after it.
			x.log.Error("session expirer: session unreadable; entry left", "session", e.ID, "error", err)
			return nil
		}
		if err != nil {
			return err
		}
		if s.Status != StatusActive && s.Status != StatusPaymentPending {
			out = dropped
			return x.drop(ctx, e.Key)
		}
		if now.Before(s.ExpiresAt) {
			return nil // not due (an entry that does not match its session)
		}
		if err := s.move(StatusExpired); err != nil {
			return err
		}
		s.events = append(s.events, pendingEvent{EventSessionExpired, now})
		ops, err := s.updateOps(false)
		if err != nil {
			return err
		}
		// ops[0] is the session at its version; the marker must be gone
		// (the store's own expiry, as the payment path sees it).
		ops = append(ops, store.Check(liveKey(s.ID), store.IfAbsent), store.Delete(e.Key, store.Always))
		err = x.st.Write(ctx, ops...)
		if cf, ok := store.IsConditionFailed(err); ok && cf.Index != 0 {
			return nil // the store holds the marker a little longer: the next run
		}
		if err = race.Settle(err); err == nil {
			out = expired
		}
		return err
	})
	if apierr.HasCode(err, store.CodeBusy) {
		return left, nil // still changing (a payment, another run): the next run sees it again
	}
	return out, err
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

func (x *Expirer) drop(ctx context.Context, entry store.Key) error {
	if err := x.st.Write(ctx, store.Delete(entry, store.Always)); err != nil {
		return apierr.Wrap("checkout.Expirer", apierr.Unavailable, err)
	}
	return nil
}
