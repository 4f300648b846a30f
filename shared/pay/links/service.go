package links

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Config builds a Service.
type Config struct {
	Store    store.Store
	Accounts *accounts.Repo   // the merchant's name, shown on the page
	Clock    func() time.Time // nil: time.Now
	Log      *slog.Logger     // nil: discard
	// PublicURL is the service's public address, the base of new links'
	// urls (PUBLIC_BASE_URL); "" takes the address each request came to.
	PublicURL string
}

// Service creates, reads and changes payment links.
type Service struct {
	st        store.Store
	accounts  *accounts.Repo
	clock     func() time.Time
	log       *slog.Logger
	publicURL string
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Accounts == nil {
		c.Accounts = accounts.NewRepo(c.Store, c.Clock)
	}
	return &Service{st: c.Store, accounts: c.Accounts, clock: c.Clock, log: c.Log, publicURL: strings.TrimRight(c.PublicURL, "/")}
}

// Caller is who calls an operation, typed and without HTTP.
type Caller struct {
	AccountID       string
	MerchantAccount string // the key's merchant account
	TestMode        bool
	Now             time.Time
	Idem            *idempotency.Call // nil without an Idempotency-Key
	BaseURL         string            // the service's public address: a new link's url is BaseURL/pay/<id>
	RequestID       string
	// Answer is the outcome recorded for the Idempotency-Key, so a retry
	// replays exactly what the first call answered (nil: the link in the
	// Pay API's shape, the /v1 answer). The Adyen face answers its own.
	Answer func(created bool, l Link) idempotency.Outcome
}

// outcome is what c's call answers with link l (created: a new link).
func (c Caller) outcome(created bool, l Link) idempotency.Outcome {
	if c.Answer != nil {
		return c.Answer(created, l)
	}
	return idempotency.Outcome{Created: created, Kind: Kind, Value: l}
}

// load reads link id; a missing one is NotFound. Errors: NotFound,
// Unavailable, Internal.
func (s *Service) load(ctx context.Context, id string) (*record, error) {
	if !ids.Valid(id) {
		return nil, apierr.NotFoundf("no such payment link: %s", id)
	}
	it, err := s.st.Get(ctx, recordKey(id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such payment link: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("links.load", apierr.Unavailable, err)
	}
	return decodeRecord(it)
}

// own reads one of the account's links: another account's is NotFound,
// exactly like a missing one.
func (s *Service) own(ctx context.Context, accountID, id string) (*record, error) {
	r, err := s.load(ctx, id)
	if err != nil {
		return nil, err
	}
	if r.AccountID != accountID {
		return nil, apierr.NotFoundf("no such payment link: %s", id)
	}
	return r, nil
}

// Get reads one of the account's links. Errors: NotFound (missing, or
// another account's), Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Link, error) {
	r, err := s.own(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := r.View(s.clock())
	return &v, nil
}

// Filter narrows a list; zero values do not filter.
type Filter struct {
	Status   Status
	From, To time.Time // created range, inclusive
}

// List returns the account's links newest first: one partition (the
// account's copies), the created range as a key range, the status applied
// to at most listing.DefaultBudget links per call (a filtered page may be
// short and still have has_more). A link past its expiry lists as expired.
// Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Link, string, error) {
	now := s.clock()
	q := store.Query{Table: store.TablePayments, PK: accountPK(accountID), Desc: true, Cursor: p.Cursor}
	if f.Status == "" {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Link, bool, error) {
		r, err := decodeRecord(it)
		if err != nil {
			return Link{}, false, err
		}
		v := r.View(now)
		return v, f.Status == "" || v.Status == f.Status, nil
	})
}

// ByOrderReference lists the links of one order reference, newest first:
// one Query of the reference's index, then a read per link. Errors: as
// List.
func (s *Service) ByOrderReference(ctx context.Context, accountID, ref string, p listing.Params) ([]Link, string, error) {
	now := s.clock()
	q := store.Query{Table: store.TablePayments, PK: refPK(accountID, ref), Desc: true, Cursor: p.Cursor, Limit: p.Limit + 1}
	return listing.Collect(ctx, s.st, q, p.Limit, p.Limit+1, func(it store.Item) (Link, bool, error) {
		r, err := s.own(ctx, accountID, it.SK)
		if apierr.Is(err, apierr.NotFound) {
			return Link{}, false, nil // the index is written with the link; one deleted by hand is skipped
		}
		if err != nil {
			return Link{}, false, err
		}
		return r.View(now), true, nil
	})
}

// changeAttempts bounds the re-reads when a link changes under a change
// (more than store.RaceAttempts: a link being paid takes many writes).
const changeAttempts = 20

// change is the one place the API changes a link: it reads the link, lets
// apply change it (or refuse), and writes it with its indexes, counters,
// event and the keyed call's record in one transaction conditioned on the
// version read. A lost race (a payment, the expirer, a twin request) reads
// again and decides anew (store.Race).
func (s *Service) change(ctx context.Context, c Caller, id string, apply func(r *record, now time.Time) error) (*Link, error) {
	var out *Link
	race := store.Race{Op: "links.change", What: "payment link " + id, Attempts: changeAttempts}
	err := race.Run(ctx, func(int) error {
		r, err := s.own(ctx, c.AccountID, id)
		if err != nil {
			return err
		}
		now := c.Now.UTC()
		if err := apply(r, now); err != nil {
			// A duplicate of a call that just won (same key) replays the
			// winner's answer rather than failing against its state.
			if settled := c.Idem.Settled(ctx); settled != nil {
				return settled
			}
			return err
		}
		ops, err := r.writeOps(now)
		if err != nil {
			return err
		}
		view := r.View(now)
		err = idempotency.Commit(ctx, s.st, c.Idem, c.outcome(false, view), ops...)
		switch {
		case err == nil:
			out = &view
			return nil
		case idempotency.FromKey(err):
			return err
		}
		return race.Settle(err)
	})
	return out, err
}

// Cancel cancels an active link: it takes no payment from then on. Errors:
// NotFound, Conflict (payment_link_paid, payment_link_cancelled,
// payment_link_expired; resource_busy), IdempotencyMismatch,
// Unavailable.
func (s *Service) Cancel(ctx context.Context, c Caller, id string) (*Link, error) {
	return s.change(ctx, c, id, func(r *record, now time.Time) error {
		return r.move(StatusCancelled, now)
	})
}

// UpdateExpiration moves an active link's expiry to expiresAt, which must
// be later than now and at most MaxExpiry from now. Errors: Invalid
// (expires_at), NotFound, Conflict (the link is not active),
// IdempotencyMismatch, Unavailable.
func (s *Service) UpdateExpiration(ctx context.Context, c Caller, id string, expiresAt time.Time) (*Link, error) {
	if err := checkExpiry(expiresAt, c.Now); err != nil {
		return nil, err
	}
	return s.change(ctx, c, id, func(r *record, now time.Time) error {
		if r.StatusAt(now) != StatusActive {
			return stateConflict(r, now)
		}
		r.ExpiresAt, r.UpdatedAt = expiresAt.UTC(), now
		return nil
	})
}
