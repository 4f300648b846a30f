package payments

import (
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// The merchant's books (shared/domain/ledger) hear of every capture and refund
// here, and nowhere else: SaveOps derives the entries from what the record's
// money moves changed since it was read (ProcessedAmount up: a capture; a
// refund record among the new ones: a refund), so whatever path captures or
// refunds (the transactions routes, checkout, a scheduled task) posts them
// in the same transaction as the change, with no code of its own. A split
// request attached to the payment (Split) is applied by the capture and
// reversed in proportion by each refund, in those same entries.

// readMoney is what the record held when it was read (or last saved).
type readMoney struct {
	processed, refunded int64
	splitID             string
	splitApplied        bool
}

// markRead remembers the money fields as stored.
func (p *Payment) markRead() {
	p.read = readMoney{processed: p.ProcessedAmount, refunded: p.RefundedAmount}
	if p.Split != nil {
		p.read.splitID, p.read.splitApplied = p.Split.ID, p.Split.Applied()
	}
}

// KindSplitRequest is the resource kind of a split request.
const KindSplitRequest = "split_request"

// EventSplitApplied is written when a capture applies a payment's split.
const EventSplitApplied = "split_request.applied"

// SplitPK is the partition of an account's split requests: a copy of each
// payment's split, written with the payment (SaveOps), so the split routes
// read and list them without reading the payments.
func SplitPK(accountID string) string { return "spl#" + accountID }

// SplitKey addresses one split request's copy.
func SplitKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: SplitPK(accountID), SK: id}
}

// SplitStatus is a split request's state: pending until a capture applies
// it (it may be changed or deleted until then), then applied.
type SplitStatus string

const (
	SplitPending SplitStatus = "pending"
	SplitApplied SplitStatus = "applied"
)

// SplitRequest is a split request as the API shows it.
type SplitRequest struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	TransactionID  string            `json:"transaction_id"`
	OrderReference string            `json:"order_reference"`
	Amount         int64             `json:"amount"` // the payment's authorised amount
	Currency       string            `json:"currency"`
	Status         SplitStatus       `json:"status"`
	Parts          []SplitPartView   `json:"parts"`
	MerchantShare  int64             `json:"merchant_share"` // the amount less the parts' shares
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
	CreatedAt      time.Time         `json:"created_at"`
	UpdatedAt      time.Time         `json:"updated_at"`
	AppliedAt      *time.Time        `json:"applied_at,omitempty"`
}

// SplitPartView is one part as the API shows it.
type SplitPartView struct {
	Reference      string `json:"reference"`
	Amount         *int64 `json:"amount,omitempty"`
	Percentage     *int64 `json:"percentage,omitempty"`
	PaysFees       bool   `json:"pays_fees"`
	Share          int64  `json:"share"`           // of the authorised amount
	AppliedAmount  int64  `json:"applied_amount"`  // gross share of the captures so far
	FeeAmount      int64  `json:"fee_amount"`      // processing fee the part bore
	ReversedAmount int64  `json:"reversed_amount"` // taken back by refunds
}

// resplit resolves the payment's split request, if any, against a new
// authorised amount (an amount update: percentages follow it, amounts stay),
// refusing an amount its parts would exceed. Errors: Invalid
// split_exceeds_payment naming amount.
func (p *Payment) resplit(amount int64) error {
	if p.Split == nil {
		return nil
	}
	next := p.Split.Clone()
	if err := next.Resolve(amount); err != nil {
		return apierr.New(ledger.CodeSplitExceedsPayment, "split request %s divides more than this amount; change or delete it first", p.Split.ID).WithParam("amount")
	}
	p.Split = next
	return nil
}

// SplitView is the split request p carries, as the API shows it.
func SplitView(p *Payment) SplitRequest { return splitView(p, p.Split) }

func splitView(p *Payment, s *ledger.Split) SplitRequest {
	v := SplitRequest{ID: s.ID, Object: KindSplitRequest, TransactionID: p.ID, OrderReference: p.MerchantReference,
		Amount: p.Amount, Currency: p.Currency, Status: SplitPending, Livemode: p.Livemode, Metadata: s.Metadata,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, AppliedAt: s.AppliedAt, MerchantShare: p.Amount}
	if s.Applied() {
		v.Status = SplitApplied
	}
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	for _, pt := range s.Parts {
		v.Parts = append(v.Parts, SplitPartView{Reference: pt.Reference, Amount: pt.Amount, Percentage: pt.Percentage,
			PaysFees: pt.PaysFees, Share: pt.Share, AppliedAmount: pt.Captured, FeeAmount: pt.Fees, ReversedAmount: pt.Reversed})
		v.MerchantShare -= pt.Share
	}
	return v
}

// ledgerOps are the writes of the money p moved since it was read: the
// ledger entries and balances, the split request's copy (or its removal)
// and its applied event; split is the payment's split as it is to be stored
// (a capture applies it, a refund reverses some of it). p itself is left
// unchanged, so building the ops again gives the same writes.
func (p *Payment) ledgerOps(pol ledger.Policy) (_ []store.Op, split *ledger.Split, _ error) {
	split = p.Split.Clone()
	if p.Type != TypePayment {
		return nil, split, nil
	}
	now := p.UpdatedAt
	var b ledger.Batch
	if captured := p.ProcessedAmount - p.read.processed; captured > 0 {
		b.Capture(pol, ledger.Capture{AccountID: p.AccountID, Currency: p.Currency, Livemode: p.Livemode,
			Source: ledger.Source{Type: ledger.SourceTransaction, ID: p.ID}, Amount: captured,
			Split: split, Authorised: p.Amount, CapturedBefore: p.read.processed}, now)
	}
	refunded := p.read.refunded
	for _, x := range p.extra {
		if x.Type != TypeRefund {
			continue
		}
		b.Refund(ledger.Refund{AccountID: p.AccountID, Currency: p.Currency, Livemode: p.Livemode,
			Source: ledger.Source{Type: ledger.SourceRefund, ID: x.ID}, Amount: x.Amount,
			Split: split, Captured: p.ProcessedAmount, RefundedBefore: refunded}, x.CreatedAt)
		refunded += x.Amount
	}
	ops, err := b.Ops(now)
	if err != nil {
		return nil, nil, err
	}
	if p.read.splitID != "" && (split == nil || split.ID != p.read.splitID) {
		ops = append(ops, store.Delete(SplitKey(p.AccountID, p.read.splitID), store.Always))
	}
	if split == nil {
		return ops, nil, nil
	}
	view := splitView(p, split)
	data, err := json.Marshal(splitCopy{PaymentID: p.ID, View: view})
	if err != nil {
		return nil, nil, apierr.Wrap("payments.ledgerOps", apierr.Internal, err)
	}
	ops = append(ops, store.Put(store.Item{Key: SplitKey(p.AccountID, split.ID), Data: data}, store.Always))
	if split.Applied() && !p.read.splitApplied {
		ev, err := eventlog.Append(eventlog.Event{Type: EventSplitApplied, Account: p.AccountID, Livemode: p.Livemode, At: now, Data: view})
		if err != nil {
			return nil, nil, err
		}
		ops = append(ops, ev)
	}
	return ops, split, nil
}

// splitCopy is the stored copy of a payment's split request.
type splitCopy struct {
	PaymentID string       `json:"payment_id"`
	View      SplitRequest `json:"view"`
}

// DecodeSplit reads a split request's copy: its view and its payment's id.
func DecodeSplit(it store.Item) (SplitRequest, string, error) {
	var c splitCopy
	if err := json.Unmarshal(it.Data, &c); err != nil {
		return SplitRequest{}, "", apierr.Wrap("payments.DecodeSplit", apierr.Internal, err)
	}
	return c.View, c.PaymentID, nil
}
