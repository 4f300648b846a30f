package payments

import (
	"strconv"
	"strings"

	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// ModificationIndex holds the captures, cancels and refunds the card
// processor has not yet received, by when they are next due to be sent:
// an entry is put in the transaction that commits the change and deleted
// once the processor received it (shared/pay/transactions), so a change
// whose call failed, or whose process died after the commit, is found and
// sent again. Its entries' ids are ModificationIDs.
var ModificationIndex = dueindex.Index{Table: store.TablePayments, Prefix: "paymod#"}

// ModificationKind is what a modification asks of the processor.
type ModificationKind string

// The modifications a processor hears of.
const (
	ModificationCapture ModificationKind = "capture"
	ModificationCancel  ModificationKind = "cancel"
	ModificationRefund  ModificationKind = "refund"
)

// Modification is one change of a payment the card processor must hear
// of: history entry N of the payment.
type Modification struct {
	ID       string // ModificationID(Payment, N): stable, the processor's idempotency key
	Kind     ModificationKind
	Account  string
	Payment  string
	N        int
	Amount   int64
	Currency string
	// Connector and ProcessorRef are the payment's (Flow): who authorised
	// it, and its reference there.
	Connector    string
	ProcessorRef string
}

// ModificationID names the modification recorded by history entry n of
// payment id.
func ModificationID(paymentID string, n int) string { return paymentID + ".m" + strconv.Itoa(n) }

// ParseModificationID is ModificationID's inverse.
func ParseModificationID(id string) (paymentID string, n int, ok bool) {
	i := strings.LastIndex(id, ".m")
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(id[i+2:])
	if err != nil || n < 0 {
		return "", 0, false
	}
	return id[:i], n, true
}

// ModificationsSince lists the modifications among p's history entries
// from index from on (the history's length before a change): captures,
// cancels and refunds of a card payment. An expiry is none (the hold lapses
// at the issuer), nor is an amount update.
func (p *Payment) ModificationsSince(from int) []Modification {
	var out []Modification
	for n := from; n < len(p.History); n++ {
		if m, ok := p.modificationAt(n); ok {
			out = append(out, m)
		}
	}
	return out
}

// ModificationAt is the modification history entry n records, if it
// records one.
func (p *Payment) ModificationAt(n int) (Modification, bool) { return p.modificationAt(n) }

func (p *Payment) modificationAt(n int) (Modification, bool) {
	if p.Type != TypePayment || n < 0 || n >= len(p.History) {
		return Modification{}, false
	}
	e := p.History[n]
	var kind ModificationKind
	switch {
	case e.Status == Charged:
		kind = ModificationCapture
	case e.Status == Cancelled && e.From == Authorized && e.Reason != ReasonAuthorizationExpired:
		kind = ModificationCancel
	case e.Status == Refunded || e.Status == PartiallyRefunded:
		kind = ModificationRefund
	default:
		return Modification{}, false
	}
	return Modification{ID: ModificationID(p.ID, n), Kind: kind, Account: p.AccountID, Payment: p.ID, N: n,
		Amount: e.Amount, Currency: p.Currency, Connector: p.Flow.Connector, ProcessorRef: p.Flow.ProcessorRef}, true
}
