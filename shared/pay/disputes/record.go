package disputes

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Key layout (table payments, beside the payments they dispute):
//
//   - dsp#<account> / <dispute id>: a dispute (UUIDv7: a descending query
//     lists newest first; the created range is a key range).
//   - dspdoc#<account>#<dispute id> / <document id>#<nnnn>: the chunks of an
//     evidence document's bytes, at most ChunkSize each (evidence.go).
//   - dspdue2#<shard> / <time>#<account>#<dispute id>: open disputes by the
//     time the sweeper must act on them (a dueindex): due_by while
//     needs_response, the end of the review while under_review; put and
//     removed with the status that needs it, in the same transaction.
//     Entries written before the one due-time index layout
//     (dspdue#<shard>, the time as 2006-01-02T15:04:05.000000000Z) are still
//     read by the sweeper, which drops them once their dispute has moved on.
//
// The payment carries the dispute's id and status (payments.DisputeMark),
// written in the same transactions.

func disputePK(accountID string) string { return "dsp#" + accountID }

func disputeKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: disputePK(accountID), SK: id}
}

func docPK(accountID, disputeID string) string { return "dspdoc#" + accountID + "#" + disputeID }

func chunkKey(accountID, disputeID, docID string, n int) store.Key {
	return store.Key{Table: store.TablePayments, PK: docPK(accountID, disputeID), SK: docID + "#" + chunkSuffix(n)}
}

func chunkSuffix(n int) string {
	s := strconv.Itoa(n)
	return strings.Repeat("0", 4-len(s)) + s
}

// dueIndex holds the open disputes by the time the sweeper must act.
var dueIndex = dueindex.Index{Table: store.TablePayments, Prefix: "dspdue2#",
	Legacy: &dueindex.Legacy{Prefix: "dspdue#", TimeLayout: "2006-01-02T15:04:05.000000000Z"}}

// storedDoc is a document as the record keeps it: the view and how many
// chunks hold its bytes.
type storedDoc struct {
	Document
	Chunks int `json:"chunks"`
}

// record is the stored dispute.
type record struct {
	ID                string            `json:"id"`
	AccountID         string            `json:"account_id"`
	TransactionID     string            `json:"transaction_id"`
	MerchantReference string            `json:"merchant_reference"`
	Livemode          bool              `json:"livemode"`
	Amount            int64             `json:"amount"`
	Fee               int64             `json:"fee"`
	Currency          string            `json:"currency"`
	Status            Status            `json:"status"`
	Reason            Reason            `json:"reason"`
	DueBy             time.Time         `json:"due_by"`
	Description       string            `json:"description,omitempty"`
	Docs              []storedDoc       `json:"documents,omitempty"`
	Metadata          map[string]string `json:"metadata,omitempty"`
	CreatedAt         time.Time         `json:"created_at"`
	UpdatedAt         time.Time         `json:"updated_at"`
	SubmittedAt       *time.Time        `json:"submitted_at,omitempty"`
	ClosedAt          *time.Time        `json:"closed_at,omitempty"`
	ClosedReason      ClosedReason      `json:"closed_reason,omitempty"`
	// ReviewEndsAt is when the sandbox's review of submitted evidence ends;
	// Decision is what it decided when the evidence was submitted (won or
	// lost), applied by the sweeper once the review ends.
	ReviewEndsAt *time.Time `json:"review_ends_at,omitempty"`
	Decision     Status     `json:"decision,omitempty"`
	// Covered is what the hold took from available (the rest was owed).
	Covered int64 `json:"covered"`

	version int64  // as read; 0 for a new record
	read    Status // status as read: the due entry to remove
	readDue time.Time
}

// decode reads a stored dispute.
func decode(it store.Item) (*record, error) {
	var r record
	if err := json.Unmarshal(it.Data, &r); err != nil {
		return nil, apierr.Wrap("disputes.decode", apierr.Internal, err)
	}
	r.version, r.read, r.readDue = it.Version, r.Status, r.dueAt()
	return &r, nil
}

// size is the bytes of every document.
func (r *record) size() int64 {
	var n int64
	for _, d := range r.Docs {
		n += d.Size
	}
	return n
}

// hasEvidence reports whether anything was sent.
func (r *record) hasEvidence() bool { return r.Description != "" || len(r.Docs) > 0 }

// dueAt is when the sweeper must act on the dispute in its status (zero
// when closed).
func (r *record) dueAt() time.Time {
	switch r.Status {
	case NeedsResponse:
		return r.DueBy
	case UnderReview:
		if r.ReviewEndsAt != nil {
			return *r.ReviewEndsAt
		}
	}
	return time.Time{}
}

// move changes the status, checking the state machine.
func (r *record) move(to Status, what string, now time.Time) error {
	if !CanTransition(r.Status, to) {
		return illegal(r, to, what)
	}
	r.Status, r.UpdatedAt = to, now.UTC()
	return nil
}

// close ends the dispute won or lost.
func (r *record) close(to Status, why ClosedReason, what string, now time.Time) error {
	if err := r.move(to, what, now); err != nil {
		return err
	}
	t := now.UTC()
	r.ClosedAt, r.ClosedReason = &t, why
	return nil
}

// view is the API representation.
func (r *record) view() Dispute {
	d := Dispute{ID: r.ID, Object: Kind, TransactionID: r.TransactionID, MerchantReference: r.MerchantReference,
		Amount: money.Amount{Value: r.Amount, Currency: r.Currency}, Fee: money.Amount{Value: r.Fee, Currency: r.Currency}, Status: r.Status, Reason: r.Reason,
		DueBy: r.DueBy, ClosedReason: r.ClosedReason, Livemode: r.Livemode, Metadata: r.Metadata,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, SubmittedAt: r.SubmittedAt, ClosedAt: r.ClosedAt,
		Evidence: Evidence{Description: r.Description, Documents: make([]Document, 0, len(r.Docs)), Size: r.size()}}
	for _, doc := range r.Docs {
		d.Evidence.Documents = append(d.Evidence.Documents, doc.Document)
	}
	if d.Metadata == nil {
		d.Metadata = map[string]string{}
	}
	return d
}

// ops are the writes that store r: the record (put-if-absent when new, else
// conditioned on the version read), its due entry moved with its status,
// its event, and the payment's mark of the dispute when pay is given
// (payments.Repo.SaveOps: conditioned on the payment's version).
func (r *record) ops(eventType string, payOps []store.Op) ([]store.Op, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, apierr.Wrap("disputes.ops", apierr.Internal, err)
	}
	cond := store.IfAbsent
	if r.version > 0 {
		cond = store.IfVersion(r.version)
	}
	ops := []store.Op{store.Put(store.Item{Key: disputeKey(r.AccountID, r.ID), Data: data}, cond)}
	ops = append(ops, dueIndex.Move(r.AccountID, r.ID, r.readDue, r.dueAt())...)
	if eventType != "" {
		ev, err := eventlog.Append(eventlog.Event{Type: eventType, Account: r.AccountID, Livemode: r.Livemode, At: r.UpdatedAt, Data: r.view()})
		if err != nil {
			return nil, err
		}
		ops = append(ops, ev)
	}
	return append(ops, payOps...), nil
}

// mark keeps the payment's record of the dispute in step with r.
func (r *record) mark(p *payments.Payment) {
	p.Dispute = &payments.DisputeMark{ID: r.ID, Status: string(r.Status)}
	p.UpdatedAt = r.UpdatedAt
}
