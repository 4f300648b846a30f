package beneficiaries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// DistStatus is a distribution's state.
type DistStatus string

const (
	// DistProcessing: the whole amount left available and every beneficiary
	// was checked; later chunks of lines are being credited.
	DistProcessing DistStatus = "processing"
	// DistCompleted: every line is credited to its beneficiary.
	DistCompleted DistStatus = "completed"
)

// DistStatuses lists every status.
var DistStatuses = []DistStatus{DistProcessing, DistCompleted}

// distTransitions: a distribution is created processing or completed, and
// a processing one completes once.
var distTransitions = map[DistStatus][]DistStatus{DistProcessing: {DistCompleted}}

// CanTransition reports whether from -> to is allowed.
func (from DistStatus) CanTransition(to DistStatus) bool {
	return slices.Contains(distTransitions[from], to)
}

// Limits of a distribution.
const (
	MaxLines     = 500
	MaxReference = 128
	// ChunkLines is how many lines one transaction credits: the first chunk
	// rides in the distribution's own transaction (with the key's record,
	// the distribution, its open-index entry, the entry, available,
	// distributing, the aggregate and the check that nothing is owed
	// (ledger.DebtFree): 93 items at most, 91 with the event of a one-chunk
	// distribution), each later one in its own (the distribution at its
	// version, the entry, distributing, the aggregate, and with the last the
	// open entry's removal and the event: 91 at most). DynamoDB takes 100
	// (store.MaxTransactOps).
	ChunkLines = 85
)

// Line is one line of a distribution.
type Line struct {
	BeneficiaryID string       `json:"beneficiary_id"`
	Amount        money.Amount `json:"amount"`
}

// Distribution is a distribution as the API shows it.
type Distribution struct {
	ID        string       `json:"id"`
	Object    string       `json:"object"`
	Reference string       `json:"reference"`
	Amount    money.Amount `json:"amount"` // the lines' total
	LineCount int          `json:"line_count"`
	Lines     []Line       `json:"lines,omitempty"` // in a read of one distribution (and its create and event), not in lists
	Status    DistStatus   `json:"status"`
	// CreditedLines is how many lines are credited so far.
	CreditedLines int               `json:"credited_lines"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	CompletedAt   *time.Time        `json:"completed_at,omitempty"`
}

// distribution is the stored record.
type distribution struct {
	Distribution
	AccountID  string `json:"account_id"`
	ChunksDone int    `json:"chunks_done"`
	HeadEntry  string `json:"head_entry"` // the first entry, the later chunks' parent
	version    int64
}

func chunks(n int) int { return (n + ChunkLines - 1) / ChunkLines }

func (d *distribution) chunk(k int) []Line {
	return d.Lines[k*ChunkLines : min((k+1)*ChunkLines, len(d.Lines))]
}

func credits(lines []Line) []ledger.Credit {
	out := make([]ledger.Credit, len(lines))
	for i, l := range lines {
		out[i] = ledger.Credit{BeneficiaryID: l.BeneficiaryID, Amount: l.Amount.Value}
	}
	return out
}

func (d *distribution) view(withLines bool) Distribution {
	v := d.Distribution
	v.Object = KindDistribution
	v.CreditedLines = min(d.ChunksDone*ChunkLines, d.LineCount)
	if !withLines {
		v.Lines = nil
	}
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	return v
}

func (d *distribution) item() (store.Item, error) {
	data, err := json.Marshal(d)
	return store.Item{Key: distributionKey(d.AccountID, d.ID), Data: data}, err
}

// completed is the distribution.completed event of the distribution as it
// is now.
func (d *distribution) completed(now time.Time) eventlog.Event {
	return eventlog.Event{Type: EventDistributionCompleted, Account: d.AccountID, Livemode: d.Livemode, At: now, Data: d.view(true)}
}

func (d *distribution) move() ledger.DistributionMove {
	return ledger.DistributionMove{AccountID: d.AccountID, Currency: d.Amount.Currency, Livemode: d.Livemode,
		DistributionID: d.ID, Parent: d.HeadEntry}
}

func decodeDistribution(it store.Item) (*distribution, error) {
	var d distribution
	if err := json.Unmarshal(it.Data, &d); err != nil {
		return nil, apierr.Wrap("beneficiaries.decodeDistribution", apierr.Internal, err)
	}
	d.version = it.Version
	return &d, nil
}

// LineRequest is one line of a distribution's body.
type LineRequest struct {
	BeneficiaryID *string        `json:"beneficiary_id" maxlen:"36"`
	Amount        *AmountRequest `json:"amount"`
}

// DistributionRequest is the body of POST /v1/distributions.
type DistributionRequest struct {
	Reference *string           `json:"reference" maxlen:"128"`
	Lines     []LineRequest     `json:"lines"`
	Metadata  map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

func lineParam(i int, f string) string { return "lines[" + strconv.Itoa(i) + "]." + f }

// validate checks the body: a reference, 1 to MaxLines lines, each naming a
// beneficiary once with a positive amount, all in one currency, their total
// at most money.MaxMinor.
func (in *DistributionRequest) validate() (string, []Line, money.Amount, error) {
	if in.Reference == nil {
		return "", nil, money.Amount{}, apierr.Missing("reference")
	}
	if n := utf8.RuneCountInString(*in.Reference); n < 1 || n > MaxReference {
		return "", nil, money.Amount{}, apierr.Invalidf("reference", "reference must be 1 to %d characters", MaxReference)
	}
	if len(in.Lines) == 0 || len(in.Lines) > MaxLines {
		return "", nil, money.Amount{}, apierr.Invalidf("lines", "lines must hold 1 to %d lines", MaxLines)
	}
	lines := make([]Line, len(in.Lines))
	seen := make(map[string]int, len(in.Lines))
	var total money.Amount
	for i, l := range in.Lines {
		if l.BeneficiaryID == nil {
			return "", nil, money.Amount{}, apierr.Missing(lineParam(i, "beneficiary_id"))
		}
		if _, err := ids.ParseField(lineParam(i, "beneficiary_id"), *l.BeneficiaryID); err != nil {
			return "", nil, money.Amount{}, err
		}
		if j, dup := seen[*l.BeneficiaryID]; dup {
			return "", nil, money.Amount{}, apierr.New(CodeDuplicateBeneficiary,
				"beneficiary %s is on lines %d and %d: give each beneficiary one line", *l.BeneficiaryID, j, i).WithParam(lineParam(i, "beneficiary_id"))
		}
		seen[*l.BeneficiaryID] = i
		amt, err := l.Amount.check(lineParam(i, "amount"))
		if err != nil {
			return "", nil, money.Amount{}, err
		}
		if i == 0 {
			total.Currency = amt.Currency
		} else if amt.Currency != total.Currency {
			return "", nil, money.Amount{}, apierr.Invalidf(lineParam(i, "amount.currency"), "every line of a distribution is in one currency (line 0's: %s)", total.Currency)
		}
		total.Value += amt.Value // at most 500 * MaxMinor: no overflow
		lines[i] = Line{BeneficiaryID: *l.BeneficiaryID, Amount: amt}
	}
	if total.Value > money.MaxMinor {
		return "", nil, money.Amount{}, apierr.Invalidf("lines", "the lines total more than %d minor units", money.MaxMinor)
	}
	return *in.Reference, lines, total, metadata.Check(in.Metadata)
}

// DistributionInput is a distribution to make.
type DistributionInput struct {
	AccountID string
	Livemode  bool
	Request   DistributionRequest
	Idem      *idempotency.Call // required
}

// Distribute moves amounts of the merchant's available balance to its
// beneficiaries' balances, all lines or none.
//
// Every beneficiary is read first (16 reads in flight): one that is missing
// or another account's is a 404 naming its line, a disabled one a 409, and
// nothing moves. Then one transaction writes the distribution, the
// Idempotency-Key's record and the entry that takes the whole total from
// available at once: the first ChunkLines lines to their beneficiaries, the
// rest to distributing (available below the total: 400 insufficient_balance,
// nothing stored). A distribution of at most ChunkLines lines is completed
// by that one write. A longer one is answered processing, as recorded with
// the key, and its later chunks are credited from distributing right after,
// each in its own transaction conditioned on the distribution's version
// (which counts the chunks done), so each chunk is credited exactly once;
// a process that dies between chunks leaves an open-index entry, and the
// settlement task finishes the rest (Sweep). Errors: Invalid (naming the
// field), NotFound (lines[i].beneficiary_id), Conflict
// (beneficiary_disabled), InsufficientFunds, Unavailable; idempotency's.
func (s *Service) Distribute(ctx context.Context, in DistributionInput) (*Distribution, error) {
	if !in.Idem.Keyed() {
		return nil, idempotency.ValidateKey("")
	}
	ref, lines, total, err := in.Request.validate()
	if err != nil {
		return nil, err
	}
	if err := s.checkBeneficiaries(ctx, in.AccountID, lines); err != nil {
		return nil, err
	}
	now := s.clock().UTC()
	d := &distribution{Distribution: Distribution{ID: ids.NewAt(now), Reference: ref, Amount: total, LineCount: len(lines),
		Lines: lines, Status: DistProcessing, Livemode: in.Livemode, Metadata: in.Request.Metadata, CreatedAt: now, UpdatedAt: now},
		AccountID: in.AccountID, ChunksDone: 1}
	first := d.chunk(0)
	var rest int64
	for _, l := range lines[len(first):] {
		rest += l.Amount.Value
	}
	single := chunks(len(lines)) == 1
	if single {
		d.Status, d.CompletedAt = DistCompleted, &now
	}
	var ops []store.Op
	var view Distribution
	// Available goes to the beneficiaries only while the account owes
	// nothing from disputes (a debt is repaid from available first): the
	// write holds owed to what was read (ledger.DebtFree).
	err = ledger.WhileDebtFree(ctx, s.st, in.AccountID, total.Currency, func(f ledger.Funds) ([]store.Op, error) {
		var b ledger.Batch
		d.HeadEntry = b.Distribute(d.move(), credits(first), rest, now)
		if err := b.DebtFree(in.AccountID, total.Currency, f, "lines"); err != nil {
			return nil, err
		}
		it, err := d.item()
		if err != nil {
			return nil, apierr.Wrap("beneficiaries.Distribute", apierr.Internal, err)
		}
		ops = []store.Op{store.Put(it, store.IfAbsent)}
		if single {
			ev, err := eventlog.Append(d.completed(now))
			if err != nil {
				return nil, err
			}
			ops = append(ops, ev)
		} else {
			ops = append(ops, distOpen.Put(d.AccountID, d.ID, d.CreatedAt))
		}
		lops, err := b.Ops(now)
		if err != nil {
			return nil, err
		}
		ops = append(ops, lops...)
		view = d.view(true)
		return ops, idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: KindDistribution, Value: view}, ops...)
	})
	if err != nil {
		return nil, moneyErr("beneficiaries.Distribute", err, ops, "lines")
	}
	d.version = 1
	if !single {
		if err := s.advance(ctx, d); err != nil {
			s.log.Warn("distribution chunks interrupted; the settlement task will finish them", "distribution_id", d.ID, "error", err.Error())
		}
	}
	return &view, nil
}

// checkBeneficiaries reads every line's beneficiary (store.GetMany: one
// BatchGetItem per 100 on DynamoDB) and answers the first line, in line
// order, whose beneficiary is missing (or another account's: the key holds
// the account) or disabled.
func (s *Service) checkBeneficiaries(ctx context.Context, accountID string, lines []Line) error {
	keys := make([]store.Key, len(lines))
	for i, l := range lines {
		keys[i] = beneficiaryKey(accountID, l.BeneficiaryID)
	}
	found, err := store.GetMany(ctx, s.st, keys)
	if err != nil {
		return apierr.Wrap("beneficiaries.checkBeneficiaries", apierr.Unavailable, err)
	}
	for i, l := range lines {
		it, ok := found[keys[i]]
		if !ok {
			e := notFound(l.BeneficiaryID)
			e.Param = lineParam(i, "beneficiary_id")
			return e
		}
		b, err := decodeBeneficiary(it)
		if err != nil {
			return err
		}
		if b.Status != Active {
			return apierr.New(CodeBeneficiaryDisabled, "beneficiary %s is disabled: enable it or leave its line out", b.ID).
				WithParam(lineParam(i, "beneficiary_id"))
		}
	}
	return nil
}

// advance credits a processing distribution's remaining chunks, each in one
// transaction with the distribution (conditioned on the version read, so
// chunk k is written once whoever runs it): the chunk's entry (distributing
// -> its beneficiaries) and balances, and with the last the open entry's
// removal, the completed status and distribution.completed. A write lost to
// another runner re-reads and goes on from the chunks it finds done (a
// store.Race over the whole distribution: resource_busy after it lost
// store.RaceAttempts times).
func (s *Service) advance(ctx context.Context, d *distribution) error {
	race := store.Race{Op: "beneficiaries.advance", What: "distribution " + d.ID}
	return race.Run(ctx, func(n int) error {
		if n > 0 {
			var err error
			if d, err = s.loadDistribution(ctx, d.AccountID, d.ID); err != nil {
				return err
			}
		}
		for d.Status == DistProcessing {
			next, ops, err := s.nextChunk(d)
			if err != nil {
				return err
			}
			if err := race.Settle(s.st.Write(ctx, ops...)); err != nil {
				return err
			}
			d = next
		}
		return nil
	})
}

// nextChunk is the write of a processing distribution's next chunk, and the
// distribution as it writes it. Errors: Internal.
func (s *Service) nextChunk(d *distribution) (*distribution, []store.Op, error) {
	k := d.ChunksDone
	if k >= chunks(d.LineCount) { // cannot happen: the last chunk completes it
		return nil, nil, apierr.Wrap("beneficiaries.advance", apierr.Internal, fmt.Errorf("distribution %s: %d chunks done, still processing", d.ID, k))
	}
	now := s.clock().UTC()
	next := *d
	next.ChunksDone, next.UpdatedAt = k+1, now
	last := k+1 == chunks(d.LineCount)
	if last {
		next.Status, next.CompletedAt = DistCompleted, &now
	}
	var b ledger.Batch
	b.DistributeChunk(d.move(), credits(d.chunk(k)), now)
	it, err := next.item()
	if err != nil {
		return nil, nil, apierr.Wrap("beneficiaries.advance", apierr.Internal, err)
	}
	ops := []store.Op{store.Put(it, store.IfVersion(d.version))}
	if last {
		ev, err := eventlog.Append(next.completed(now))
		if err != nil {
			return nil, nil, err
		}
		ops = append(ops, distOpen.Delete(d.AccountID, d.ID, d.CreatedAt), ev)
	}
	lops, err := b.Ops(now)
	if err != nil {
		return nil, nil, err
	}
	next.version = d.version + 1
	return &next, append(ops, lops...), nil
}

func (s *Service) loadDistribution(ctx context.Context, accountID, id string) (*distribution, error) {
	it, err := s.st.Get(ctx, distributionKey(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such distribution: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("beneficiaries.loadDistribution", apierr.Unavailable, err)
	}
	return decodeDistribution(it)
}

// DistributionByID reads one of the account's distributions with its
// lines; another account's is NotFound. Errors: NotFound, Unavailable,
// Internal.
func (s *Service) DistributionByID(ctx context.Context, accountID, id string) (*Distribution, error) {
	d, err := s.loadDistribution(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	v := d.view(true)
	return &v, nil
}

// DistFilter narrows a distribution list; zero fields match everything.
type DistFilter struct {
	Status   string
	From, To time.Time
}

// Distributions pages the account's distributions newest first, without
// their lines (a page of 100 distributions of 500 lines would pass what
// one answer may carry). Errors: Invalid (cursor), Unavailable, Internal.
func (s *Service) Distributions(ctx context.Context, accountID string, f DistFilter, p listing.Params) ([]Distribution, string, error) {
	q := listQuery(distributionPK(accountID), f.Status == "", f.From, f.To, p)
	return listing.Collect(ctx, s.st, q, p.Limit, listing.DefaultBudget, func(it store.Item) (Distribution, bool, error) {
		d, err := decodeDistribution(it)
		if err != nil {
			return Distribution{}, false, err
		}
		ok := (f.Status == "" || string(d.Status) == f.Status) && inRange(d.CreatedAt, f.From, f.To)
		return d.view(false), ok, nil
	})
}

// HeldBalance is what the merchant's beneficiaries hold in a currency.
type HeldBalance struct {
	Available int64 `json:"available"` // every beneficiary:<id>
	Reserved  int64 `json:"reserved"`  // every beneficiary_reserved:<id>: payment orders on their way
}

// DistBalance is GET /v1/distributions/balance's row: what the merchant can
// distribute in a currency, what distributions are crediting, and what its
// beneficiaries hold.
type DistBalance struct {
	Currency      string      `json:"currency"`
	Available     int64       `json:"available"`    // the merchant's available balance: what it can distribute
	Distributing  int64       `json:"distributing"` // taken by distributions whose later chunks are being credited
	Beneficiaries HeldBalance `json:"beneficiaries"`
	UpdatedAt     time.Time   `json:"updated_at"`
}

// Balance is the distribution balance per currency the merchant ever held
// (one partition of the books: the beneficiaries' totals are aggregates
// kept beside the merchant's balances). Errors: Unavailable, Internal.
func (s *Service) Balance(ctx context.Context, accountID string) ([]DistBalance, error) {
	bs, err := ledger.Balances(ctx, s.st, accountID)
	if err != nil {
		return nil, err
	}
	var out []DistBalance
	for _, b := range bs {
		switch b.Account {
		case ledger.Available, ledger.Distributing, ledger.BeneficiariesHeld, ledger.BeneficiariesReserved:
		default:
			continue
		}
		if len(out) == 0 || out[len(out)-1].Currency != b.Currency {
			out = append(out, DistBalance{Currency: b.Currency})
		}
		row := &out[len(out)-1]
		switch b.Account {
		case ledger.Available:
			row.Available = b.Amount
		case ledger.Distributing:
			row.Distributing = b.Amount
		case ledger.BeneficiariesHeld:
			row.Beneficiaries.Available = b.Amount
		case ledger.BeneficiariesReserved:
			row.Beneficiaries.Reserved = b.Amount
		}
		if b.UpdatedAt.After(row.UpdatedAt) {
			row.UpdatedAt = b.UpdatedAt
		}
	}
	if out == nil {
		out = []DistBalance{}
	}
	return out, nil
}
