package disputes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/disputedesk"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Response window: how long a merchant has to answer a dispute.
const (
	DefaultResponseWindow = 7 * 24 * time.Hour
	MaxResponseWindow     = 30 * 24 * time.Hour
)

// DefaultFee is the dispute fee in major units of the payment's currency
// (DISPUTE_FEE overrides it): 15.00 EUR, 15 JPY, 15.000 KWD.
const DefaultFee = 15

// FeeFromEnv reads DISPUTE_FEE: the dispute fee in whole major units of the
// disputed payment's currency, 0 to 1000 (default DefaultFee).
func FeeFromEnv(getenv func(string) string) (int64, error) {
	if getenv == nil {
		return DefaultFee, nil
	}
	s := getenv("DISPUTE_FEE")
	if s == "" {
		return DefaultFee, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1000 || strconv.FormatInt(n, 10) != s {
		return 0, fmt.Errorf("DISPUTE_FEE must be a whole number of major units from 0 to 1000, not %q", s)
	}
	return n, nil
}

// Config builds a Service.
type Config struct {
	Store store.Store
	Clock func() time.Time // nil: time.Now
	Log   *slog.Logger     // nil: discard
	// Fee is the dispute fee in major units (FeeFromEnv); negative: none.
	Fee int64
	// Desk is the card issuer's dispute desk test keys' disputes go to
	// (required: the wiring chooses it).
	Desk disputedesk.Desk
}

// Service manages disputes.
type Service struct {
	st    store.Store
	repo  *payments.Repo
	clock func() time.Time
	log   *slog.Logger
	fee   int64
	desk  disputedesk.Desk
}

// New builds the service.
func New(c Config) *Service {
	if c.Clock == nil {
		c.Clock = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Desk == nil {
		panic("disputes: Config.Desk is required (the wiring chooses it)")
	}
	return &Service{st: c.Store, repo: payments.NewRepo(c.Store), clock: c.Clock, log: c.Log, fee: max(c.Fee, 0), desk: c.Desk}
}

// feeOf is the dispute fee in minor units of currency.
func (s *Service) feeOf(currency string) int64 {
	c, err := money.ParseCurrency(currency)
	if err != nil {
		return 0
	}
	f := s.fee
	for range c.Exponent() {
		f *= 10
	}
	return f
}

// get reads one of the account's disputes; another account's is NotFound.
func (s *Service) get(ctx context.Context, accountID, id string) (*record, error) {
	it, err := s.st.Get(ctx, disputeKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such dispute: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("disputes.get", apierr.Unavailable, err)
	}
	return decode(it)
}

// Get reads one of the account's disputes. Errors: NotFound (missing, or
// another account's), Unavailable, Internal.
func (s *Service) Get(ctx context.Context, accountID, id string) (*Dispute, error) {
	r, err := s.get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := r.view()
	return &v, nil
}

// Filter narrows a list; zero values do not filter.
type Filter struct {
	Status        Status
	TransactionID string
	From, To      time.Time // created range, inclusive
}

// List returns the account's disputes newest first: one partition, the
// created range as a key range (ids are UUIDv7), the status and transaction
// filters applied to at most listing.DefaultBudget records per call.
// Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) List(ctx context.Context, accountID string, f Filter, p listing.Params) ([]Dispute, string, error) {
	q := store.Query{Table: store.TablePayments, PK: disputePK(accountID), Desc: true, Cursor: p.Cursor}
	if f.Status == "" && f.TransactionID == "" {
		q.Limit = p.Limit + 1
	}
	if !f.From.IsZero() {
		q.From = ids.Bound(f.From, false)
	}
	if !f.To.IsZero() {
		q.To = ids.Bound(f.To, true)
	}
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Dispute, bool, error) {
		r, err := decode(it)
		if err != nil {
			return Dispute{}, false, err
		}
		ok := (f.Status == "" || r.Status == f.Status) && (f.TransactionID == "" || r.TransactionID == f.TransactionID) &&
			(f.From.IsZero() || !r.CreatedAt.Before(f.From)) && (f.To.IsZero() || !r.CreatedAt.After(f.To))
		return r.view(), ok, nil
	})
}

// changeAttempts bounds the re-reads when the dispute, its payment or the
// balances change under a write (more than store.RaceAttempts: three
// records race); the last ones take nothing from (and give nothing to) the
// debt's guard, so they cannot fail on the balances.
const changeAttempts = 30

// step is one attempt's change: the dispute, its payment when its status
// changes (the payment's mark), the money moved and the event to write.
type step struct {
	rec   *record
	pay   *payments.Payment
	batch ledger.Batch
	event string
	last  bool // the final attempts: no read funds (a hold owes all, a release repays nothing)
}

func (c *step) move() ledger.DisputeMove {
	r := c.rec
	return ledger.DisputeMove{AccountID: r.AccountID, Currency: r.Currency, Livemode: r.Livemode, DisputeID: r.ID,
		Amount: r.Amount, Fee: r.Fee}
}

// funds reads the balances a hold or a release is decided against (none on
// the last attempts).
func (s *Service) funds(ctx context.Context, c *step) (ledger.Funds, error) {
	if c.last {
		return ledger.Funds{}, nil
	}
	return ledger.ReadFunds(ctx, s.st, c.rec.AccountID, c.rec.Currency)
}

// closeAs closes the dispute won or lost: its status, the ledger's release
// (won) or loss (lost), and the closed event.
func (s *Service) closeAs(ctx context.Context, c *step, to Status, why ClosedReason, what string, now time.Time) error {
	if err := c.rec.close(to, why, what, now); err != nil {
		return err
	}
	if to == Won {
		f, err := s.funds(ctx, c)
		if err != nil {
			return err
		}
		c.batch.DisputeRelease(c.move(), f, now)
	} else {
		c.batch.DisputeLoss(c.move(), now)
	}
	c.event = EventClosed
	return nil
}

// commit writes one attempt's change with the keyed call's record:
// the dispute, its due entry and event, the payment's mark when the status
// changed, and the ledger's entries. It answers store.Lost when the write
// lost a race (any condition: the dispute's version, the payment's, a
// balance's), to run again from fresh reads (store.Race).
func (s *Service) commit(ctx context.Context, c *step, idem *idempotency.Call, created bool) (view Dispute, err error) {
	var payOps []store.Op
	if c.rec.Status != c.rec.read || c.rec.version == 0 {
		if c.pay == nil {
			if c.pay, err = s.repo.Get(ctx, c.rec.AccountID, c.rec.TransactionID); err != nil {
				return view, apierr.Wrap("disputes.commit", apierr.Internal, err)
			}
		}
		c.rec.mark(c.pay)
		if payOps, err = s.repo.SaveOps(c.pay); err != nil {
			return view, err
		}
	}
	ops, err := c.rec.ops(c.event, payOps)
	if err != nil {
		return view, err
	}
	lops, err := c.batch.Ops(c.rec.UpdatedAt)
	if err != nil {
		return view, err
	}
	ops = append(ops, lops...)
	view = c.rec.view()
	err = idempotency.Commit(ctx, s.st, idem, idempotency.Outcome{Created: created, Kind: Kind, Value: view}, ops...)
	switch {
	case err == nil:
		return view, nil
	case idempotency.FromKey(err):
		return view, err
	}
	if _, ok := store.IsConditionFailed(err); ok {
		return view, store.Lost()
	}
	return view, apierr.Wrap("disputes.commit", apierr.Unavailable, err)
}

// change reads the dispute and applies a change to it (apply, which may
// refuse), then commits it; a lost race reads again and applies anew, so of
// concurrent changes one wins per version and the others are judged
// against the winner's state (a 409 naming the status). A dispute whose
// due_by passed while it needed a response is closed as lost (expired) in
// a write of its own first, and the call is a 409 dispute_expired: the
// sweeper would close it within a minute, this makes it exact.
func (s *Service) change(ctx context.Context, accountID, id string, idem *idempotency.Call, apply func(c *step, now time.Time) error) (*Dispute, error) {
	return s.changeFrom(ctx, accountID, id, idem, nil, apply)
}

// changeFrom is change with the dispute already read for the first attempt
// (nil: read it).
func (s *Service) changeFrom(ctx context.Context, accountID, id string, idem *idempotency.Call, first *record, apply func(c *step, now time.Time) error) (*Dispute, error) {
	if !idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	var out *Dispute
	race := store.Race{Op: "disputes.change", What: "dispute " + id, Attempts: changeAttempts}
	err := race.Run(ctx, func(attempt int) error {
		r, err := first, error(nil)
		if first = nil; r == nil {
			r, err = s.get(ctx, accountID, id)
		}
		if err != nil {
			return err
		}
		now := s.clock().UTC()
		c := &step{rec: r, last: attempt >= changeAttempts-2}
		if r.Status == NeedsResponse && !now.Before(r.DueBy) {
			err = s.expire(ctx, c, now)
		} else {
			err = apply(c, now)
		}
		if err != nil {
			if errors.Is(err, store.Lost()) {
				return err
			}
			if settled := idem.Settled(ctx); settled != nil {
				return settled // a duplicate of this call won: its answer
			}
			return err
		}
		view, err := s.commit(ctx, c, idem, false)
		if err == nil {
			out = &view
		}
		return err
	})
	return out, err
}

// expire closes a dispute whose due_by passed without a response, in its
// own write (no Idempotency-Key: the caller's call did not happen), and
// answers the 409 the caller gets. A lost race (the sweeper closed it, or a
// submit read before due_by committed first) answers again: the caller
// reads it anew and is judged against the winner's state, so a call never
// hears "expired" about a dispute that is under review.
func (s *Service) expire(ctx context.Context, c *step, now time.Time) error {
	due := c.rec.DueBy
	if err := s.closeAs(ctx, c, Lost, ClosedExpired, "changed", now); err != nil {
		return err
	}
	if _, err := s.commit(ctx, c, nil, false); err != nil {
		return err // store.Lost: read again and judge against the winner
	}
	return apierr.New(CodeExpired, "dispute %s was due by %s and is lost: no evidence was submitted in time",
		c.rec.ID, due.Format(time.RFC3339))
}

// ActionInput is an accept or a submit of one dispute.
type ActionInput struct {
	AccountID string
	ID        string
	Idem      *idempotency.Call
}

// Accept concedes a dispute that needs a response: it is lost at once
// (closed_reason accepted), the amount goes back to the cardholder and the
// fee is charged. Answers the dispute. Errors: NotFound, Conflict
// (dispute_state_conflict or dispute_closed naming the status;
// dispute_expired; resource_busy), IdempotencyMismatch, Unavailable.
func (s *Service) Accept(ctx context.Context, in ActionInput) (*Dispute, error) {
	return s.change(ctx, in.AccountID, in.ID, in.Idem, func(c *step, now time.Time) error {
		if c.rec.Status != NeedsResponse { // under review, the issuer decides
			return illegal(c.rec, Lost, "accepted")
		}
		return s.closeAs(ctx, c, Lost, ClosedAccepted, "accepted", now)
	})
}

// Submit sends the evidence to the issuer: the dispute is under_review
// until the issuer decides (its desk decides, and the sweeper applies the
// decision when the review ends: the sandbox's decides at once and reviews
// for 15 s). Submitting twice is a
// 409. Errors: Invalid evidence_missing (nothing to submit), and as Accept.
func (s *Service) Submit(ctx context.Context, in ActionInput) (*Dispute, error) {
	return s.change(ctx, in.AccountID, in.ID, in.Idem, func(c *step, now time.Time) error {
		r := c.rec
		if err := r.move(UnderReview, "submitted", now); err != nil {
			return err
		}
		if !r.hasEvidence() {
			return apierr.New(CodeEvidenceMissing, "dispute %s has no evidence: add a description or documents first (POST /v1/disputes/%s/evidence), or accept it", r.ID, r.ID)
		}
		decision, err := s.desk.Submit(ctx, evidence(ctx, s.st, r), now)
		if err != nil {
			return err
		}
		r.SubmittedAt, r.ReviewEndsAt, r.Decision = &now, &decision.ReviewEnds, Lost
		if decision.Won {
			r.Decision = Won
		}
		c.event = EventUpdated
		return nil
	})
}

// EvidenceInput adds evidence to a dispute that needs a response.
type EvidenceInput struct {
	AccountID   string
	ID          string
	Description *string           // replaces the description when sent
	Documents   []DocumentRequest // added to the documents sent before
	Metadata    map[string]string // replaces the metadata when non-nil
	Idem        *idempotency.Call
}

// AddEvidence adds documents and sets the description (and metadata) of a
// dispute that needs a response; the documents' bytes are stored apart
// first (evidence.go). Answers the dispute. Errors: Invalid (a document:
// documents[i].<field>; description; metadata; too_many_documents naming
// documents; evidence_missing when the call holds nothing), TooLarge
// evidence_too_large (the dispute's documents would pass MaxEvidenceSize),
// and as Accept.
func (s *Service) AddEvidence(ctx context.Context, in EvidenceInput) (*Dispute, error) {
	if in.Description != nil && utf8.RuneCountInString(*in.Description) > MaxDescription {
		return nil, apierr.Invalidf("description", "description must have at most %d characters", MaxDescription)
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return nil, err
	}
	docs, err := checkDocuments(in.Documents)
	if err != nil {
		return nil, err
	}
	if in.Description == nil && len(docs) == 0 && in.Metadata == nil {
		return nil, apierr.New(CodeEvidenceMissing, "send a description, documents or metadata")
	}
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	r, err := s.get(ctx, in.AccountID, in.ID)
	if err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	if r.Status == NeedsResponse && !now.Before(r.DueBy) {
		// Too late: change closes it as expired and answers the 409.
		return s.change(ctx, in.AccountID, in.ID, in.Idem, func(c *step, _ time.Time) error {
			return illegal(c.rec, NeedsResponse, "given evidence") // closed by someone else meanwhile
		})
	}
	// Refuse before storing bytes what the dispute as read refuses anyway
	// (unless a duplicate of this very call just won: its answer).
	if err := admit(r, docs); err != nil {
		if settled := in.Idem.Settled(ctx); settled != nil {
			return nil, settled
		}
		return nil, err
	}
	for i := range docs {
		docs[i].ID, docs[i].CreatedAt = docID(in.AccountID, in.ID, in.Idem.Key(), i, docs[i].SHA256), now
	}
	if err := writeChunks(ctx, s.st, in.AccountID, in.ID, docs); err != nil {
		return nil, err
	}
	d, err := s.changeFrom(ctx, in.AccountID, in.ID, in.Idem, r, func(c *step, now time.Time) error {
		r := c.rec
		if err := r.move(NeedsResponse, "given evidence", now); err != nil {
			return err
		}
		if err := admit(r, docs); err != nil {
			return err
		}
		if in.Description != nil {
			r.Description = *in.Description
		}
		if in.Metadata != nil {
			r.Metadata = in.Metadata
		}
		for _, d := range docs {
			r.Docs = append(r.Docs, d.storedDoc)
		}
		c.event = EventUpdated
		return nil
	})
	if err != nil {
		if refusedForGood(err) {
			// The chunks the dispute does not name go (a duplicate of this
			// call that won names them, and they stay).
			// Unread, the dispute is not judged: they stay, unread.
			if cur, gerr := s.get(context.WithoutCancel(ctx), in.AccountID, in.ID); gerr == nil {
				dropChunks(context.WithoutCancel(ctx), s.st, in.AccountID, in.ID, cur, docs)
			}
		}
		return nil, err
	}
	return d, nil
}

// admit checks that docs fit the dispute r: in a status that takes
// evidence, within MaxDocuments and MaxEvidenceSize.
func admit(r *record, docs []newDoc) error {
	if !CanTransition(r.Status, NeedsResponse) {
		return illegal(r, NeedsResponse, "given evidence")
	}
	if len(r.Docs)+len(docs) > MaxDocuments {
		return apierr.New(CodeTooManyDocuments, "a dispute holds at most %d documents; it has %d", MaxDocuments, len(r.Docs))
	}
	var add int64
	for _, d := range docs {
		add += d.Size
	}
	if r.size()+add > MaxEvidenceSize {
		return apierr.New(CodeEvidenceTooLarge, "a dispute's documents hold at most %d bytes (5 MiB); it has %d and these add %d", MaxEvidenceSize, r.size(), add)
	}
	return nil
}

// Document reads one evidence document's bytes (checked against its
// SHA-256). Errors: NotFound (dispute or document), Unavailable, Internal.
func (s *Service) Document(ctx context.Context, accountID, disputeID, docID string) (Document, []byte, error) {
	r, err := s.get(ctx, accountID, disputeID)
	if err != nil {
		return Document{}, nil, err
	}
	for _, d := range r.Docs {
		if d.ID == docID {
			data, err := readDocument(ctx, s.st, r, d)
			return d.Document, data, err
		}
	}
	return Document{}, nil, apierr.NotFoundf("dispute %s has no document %s", disputeID, docID)
}
