package ledger

import (
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
)

// Credit is one line of a distribution: an amount for a beneficiary.
type Credit struct {
	BeneficiaryID string
	Amount        int64
}

// DistributionMove names a distribution's money: whose, which currency, and
// the distribution record its entries point to.
type DistributionMove struct {
	AccountID      string
	Currency       string
	Livemode       bool
	DistributionID string
	// Parent is the distribution's first entry, which a later chunk's entry
	// follows from ("" for the first).
	Parent string
}

func (m DistributionMove) entry(t EntryType, now time.Time) Entry {
	now = now.UTC()
	return Entry{ID: ids.NewAt(now), AccountID: m.AccountID, Type: t, Currency: m.Currency, Livemode: m.Livemode,
		Source: Source{Type: SourceDistribution, ID: m.DistributionID}, Parent: m.Parent, CreatedAt: now}
}

// Distribute adds a distribution's first entry: available -> each credit
// (its first chunk of lines) and, when later chunks follow, their total
// (rest) -> distributing, so the whole distribution leaves available in
// this one entry, or not at all (insufficient_balance). It returns the
// entry's id (later chunks' parent).
func (b *Batch) Distribute(m DistributionMove, credits []Credit, rest int64, now time.Time) string {
	e := m.entry(EntryDistribution, now)
	e.Parent = ""
	var total int64
	for _, c := range credits {
		e.Postings = append(e.Postings, Posting{Beneficiary(c.BeneficiaryID), c.Amount})
		total += c.Amount
	}
	if rest > 0 {
		e.Postings = append(e.Postings, Posting{Distributing, rest})
		total += rest
	}
	e.Postings = append([]Posting{{Available, -total}}, e.Postings...)
	b.Add(e)
	return e.ID
}

// DistributeChunk adds a later chunk of a distribution: distributing ->
// each credit.
func (b *Batch) DistributeChunk(m DistributionMove, credits []Credit, now time.Time) {
	e := m.entry(EntryDistributionCredit, now)
	var total int64
	for _, c := range credits {
		e.Postings = append(e.Postings, Posting{Beneficiary(c.BeneficiaryID), c.Amount})
		total += c.Amount
	}
	e.Postings = append([]Posting{{Distributing, -total}}, e.Postings...)
	b.Add(e)
}

// BeneficiaryMove is an amount moving on a beneficiary's accounts, for the
// record (Source) that moves it.
type BeneficiaryMove struct {
	AccountID     string
	Currency      string
	Livemode      bool
	BeneficiaryID string
	Source        Source
	Amount        int64
}

func (m BeneficiaryMove) entry(t EntryType, from, to Account, now time.Time) Entry {
	now = now.UTC()
	return Entry{ID: ids.NewAt(now), AccountID: m.AccountID, Type: t, Currency: m.Currency, Livemode: m.Livemode,
		Source: m.Source, CreatedAt: now, Postings: []Posting{{from, -m.Amount}, {to, m.Amount}}}
}

// TransferToMerchant adds a beneficiary's transfer back to the merchant:
// beneficiary:<id> -> available (refused with insufficient_balance when the
// beneficiary holds less).
func (b *Batch) TransferToMerchant(m BeneficiaryMove, now time.Time) {
	b.Add(m.entry(EntryBeneficiaryTransfer, Beneficiary(m.BeneficiaryID), Available, now))
}

// ReserveForPaymentOrder adds a payment order's reservation:
// beneficiary:<id> -> beneficiary_reserved:<id>.
func (b *Batch) ReserveForPaymentOrder(m BeneficiaryMove, now time.Time) {
	b.Add(m.entry(EntryPaymentOrder, Beneficiary(m.BeneficiaryID), BeneficiaryReserved(m.BeneficiaryID), now))
}

// PaymentOrderPaid adds a paid payment order: beneficiary_reserved:<id> ->
// bank.
func (b *Batch) PaymentOrderPaid(m BeneficiaryMove, now time.Time) {
	b.Add(m.entry(EntryPaymentOrderPaid, BeneficiaryReserved(m.BeneficiaryID), Bank, now))
}

// PaymentOrderFailed adds a failed payment order's release:
// beneficiary_reserved:<id> -> beneficiary:<id>.
func (b *Batch) PaymentOrderFailed(m BeneficiaryMove, now time.Time) {
	b.Add(m.entry(EntryPaymentOrderFailed, BeneficiaryReserved(m.BeneficiaryID), Beneficiary(m.BeneficiaryID), now))
}

// InvoicePayment is a bank invoice the payer paid.
type InvoicePayment struct {
	AccountID string
	Currency  string
	Livemode  bool
	InvoiceID string
	Amount    int64
}

// InvoicePayment adds a paid invoice's entries, as a capture's: bank ->
// pending (the policy's fee -> fees), then the settlement to available, at
// once or when the settlement delay has passed (Settle).
func (b *Batch) InvoicePayment(pol Policy, p InvoicePayment, now time.Time) {
	b.Capture(pol, Capture{AccountID: p.AccountID, Currency: p.Currency, Livemode: p.Livemode,
		Source: Source{Type: SourceInvoice, ID: p.InvoiceID}, Amount: p.Amount, From: Bank, Type: EntryInvoicePayment}, now)
}
