package ledger

import (
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
)

// Capture is one capture of a payment, as the record that captured knows it.
type Capture struct {
	AccountID string
	Currency  string
	Livemode  bool
	Source    Source // the transaction captured
	Amount    int64  // this capture
	// From is where the money came from (zero: Processor, a card or wallet
	// capture; Bank for a paid bank invoice) and Type the entry's type
	// (zero: EntryCapture; EntryInvoicePayment).
	From Account
	Type EntryType
	// Split, when the payment carries one: its progress is updated in place
	// (the caller stores it with the record). Authorised is the payment's
	// authorised amount and CapturedBefore what earlier captures took.
	Split          *Split
	Authorised     int64
	CapturedBefore int64
}

// Capture adds the entries of a capture: the capture (processor -> pending,
// the fee -> fees), the split's shares (pending -> each partner) when the
// payment carries a split, and the settlement of the merchant's share
// (pending -> available): in this batch when the policy settles at once,
// else scheduled for the settlement task at now + the delay. A capture with
// no split that settles at once is one entry, processor -> available (as a
// Stripe charge available at once is one balance transaction): a settlement
// entry in the same transaction would move the same amount through pending
// and back, one more item (two write units) in every capture.
func (b *Batch) Capture(pol Policy, c Capture, now time.Time) {
	if c.Amount <= 0 {
		return
	}
	now = now.UTC()
	sh := c.Split.captureShares(pol, c.Authorised, c.CapturedBefore, c.Amount)
	availableOn := now.Add(pol.SettlementDelay)
	from, typ := c.From, c.Type
	if from == "" {
		from = Processor
	}
	if typ == "" {
		typ = EntryCapture
	}
	settledWith := c.Split == nil && pol.SettlementDelay <= 0
	to := Pending
	if settledWith {
		to = Available
	}
	capture := Entry{ID: ids.NewAt(now), AccountID: c.AccountID, Type: typ, Currency: c.Currency, Source: c.Source,
		Livemode: c.Livemode, CreatedAt: now, AvailableOn: &availableOn,
		Postings: []Posting{{from, -c.Amount}, {to, c.Amount - sh.fee}}}
	if sh.fee > 0 {
		capture.Postings = append(capture.Postings, Posting{Fees, sh.fee})
	}
	if capture.Postings[1].Amount == 0 { // the fee took it all
		capture.Postings = append(capture.Postings[:1], capture.Postings[2:]...)
	}
	b.Add(capture)
	merchant := c.Amount - sh.fee
	if c.Split != nil {
		split := Entry{ID: ids.NewAt(now), AccountID: c.AccountID, Type: EntrySplit, Currency: c.Currency,
			Source: Source{Type: SourceSplitRequest, ID: c.Split.ID}, Parent: capture.ID, Livemode: c.Livemode, CreatedAt: now}
		var out int64
		for i := range c.Split.Parts {
			p := &c.Split.Parts[i]
			p.Captured += sh.gross[i]
			p.Fees += sh.fees[i]
			if net := sh.gross[i] - sh.fees[i]; net > 0 {
				split.Postings = append(split.Postings, Posting{Partner(p.Reference), net})
				out += net
			}
		}
		if out > 0 {
			split.Postings = append([]Posting{{Pending, -out}}, split.Postings...)
			b.Add(split)
			merchant -= out
		}
		if c.Split.AppliedAt == nil {
			c.Split.AppliedAt = &now
		}
		c.Split.UpdatedAt = now
	}
	if merchant <= 0 || settledWith {
		return
	}
	d := due{AccountID: c.AccountID, Currency: c.Currency, Amount: merchant, Source: c.Source, Parent: capture.ID,
		Livemode: c.Livemode, AvailableOn: availableOn}
	if pol.SettlementDelay <= 0 {
		b.Add(d.settlement(now))
		return
	}
	b.dues = append(b.dues, d)
}

// settlement is the entry that makes a due capture's funds available.
func (d due) settlement(now time.Time) Entry {
	return Entry{ID: ids.NewAt(now), AccountID: d.AccountID, Type: EntrySettlement, Currency: d.Currency, Source: d.Source,
		Parent: d.Parent, Livemode: d.Livemode, CreatedAt: now.UTC(),
		Postings: []Posting{{Pending, -d.Amount}, {Available, d.Amount}}}
}

// Refund is one refund of a captured payment.
type Refund struct {
	AccountID string
	Currency  string
	Livemode  bool
	Source    Source // the refund record (a card refund's own transaction, or the wallet transaction)
	Amount    int64
	// Split, when the payment carries one (updated in place: Reversed), with
	// the payment's captured amount and what earlier refunds returned.
	Split          *Split
	Captured       int64
	RefundedBefore int64
}

// Refund adds the entries of a refund: the refund (available -> processor)
// and, for a split payment, the partners' parts taken back in proportion
// (each partner -> available); the merchant's available balance bears the
// rest, and must cover it (insufficient_balance otherwise).
func (b *Batch) Refund(r Refund, now time.Time) {
	if r.Amount <= 0 {
		return
	}
	now = now.UTC()
	refund := Entry{ID: ids.NewAt(now), AccountID: r.AccountID, Type: EntryRefund, Currency: r.Currency, Source: r.Source,
		Livemode: r.Livemode, CreatedAt: now, Postings: []Posting{{Available, -r.Amount}, {Processor, r.Amount}}}
	b.Add(refund)
	if r.Split == nil || r.Captured <= 0 {
		return
	}
	back := r.Split.reversals(r.Captured, r.RefundedBefore, r.Amount)
	rev := Entry{ID: ids.NewAt(now), AccountID: r.AccountID, Type: EntrySplitReversal, Currency: r.Currency,
		Source: Source{Type: SourceSplitRequest, ID: r.Split.ID}, Parent: refund.ID, Livemode: r.Livemode, CreatedAt: now}
	var in int64
	for i := range r.Split.Parts {
		if back[i] > 0 {
			r.Split.Parts[i].Reversed += back[i]
			rev.Postings = append(rev.Postings, Posting{Partner(r.Split.Parts[i].Reference), -back[i]})
			in += back[i]
		}
	}
	if in > 0 {
		rev.Postings = append(rev.Postings, Posting{Available, in})
		b.Add(rev)
		r.Split.UpdatedAt = now
	}
}

// PayoutMove is a payout's money: reserved at request, then paid out or
// released.
type PayoutMove struct {
	AccountID string
	Currency  string
	Livemode  bool
	PayoutID  string
	Amount    int64
}

// Reserve adds the payout's reservation: available -> reserved (refused
// with insufficient_balance when available cannot cover it).
func (b *Batch) Reserve(m PayoutMove, now time.Time) {
	b.Add(m.entry(EntryPayout, Available, Reserved, now))
}

// PaidOut adds the payout's completion: reserved -> paid_out.
func (b *Batch) PaidOut(m PayoutMove, now time.Time) {
	b.Add(m.entry(EntryPayoutPaid, Reserved, PaidOut, now))
}

// Release adds a failed payout's release: reserved -> available.
func (b *Batch) Release(m PayoutMove, now time.Time) {
	b.Add(m.entry(EntryPayoutFailed, Reserved, Available, now))
}

// CancelPayout adds a cancelled payout's release: reserved -> available.
func (b *Batch) CancelPayout(m PayoutMove, now time.Time) {
	b.Add(m.entry(EntryPayoutCancelled, Reserved, Available, now))
}

func (m PayoutMove) entry(t EntryType, from, to Account, now time.Time) Entry {
	now = now.UTC()
	return Entry{ID: ids.NewAt(now), AccountID: m.AccountID, Type: t, Currency: m.Currency, Livemode: m.Livemode,
		Source: Source{Type: SourcePayout, ID: m.PayoutID}, CreatedAt: now,
		Postings: []Posting{{from, -m.Amount}, {to, m.Amount}}}
}
