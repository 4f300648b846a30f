package ledger

import (
	"fmt"
	"math/bits"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Split is a split request as the payment it divides carries it: the parts,
// each resolved to its share of the authorised amount, and how much of each
// share captures and refunds have moved so far. The payment record holds it
// (so a capture needs no extra read to apply it), and every write of the
// payment writes it, conditioned on the payment's version.
type Split struct {
	ID        string            `json:"id"`
	Parts     []SplitPart       `json:"parts"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
	AppliedAt *time.Time        `json:"applied_at,omitempty"` // the first capture
}

// SplitPart is one partner's part.
type SplitPart struct {
	Reference  string `json:"reference"`
	Amount     *int64 `json:"amount,omitempty"`     // as requested: minor units of the payment's currency
	Percentage *int64 `json:"percentage,omitempty"` // as requested: whole percent of the payment's amount
	PaysFees   bool   `json:"pays_fees"`
	// Share is the part of the authorised amount: Amount, or Percentage of it
	// rounded down.
	Share int64 `json:"share"`
	// Captured is the part's gross share of the captures so far, Fees what
	// of the processing fee it bore, Reversed what refunds took back.
	Captured int64 `json:"captured"`
	Fees     int64 `json:"fees"`
	Reversed int64 `json:"reversed"`
}

// Credited is what the part's partner account received.
func (p SplitPart) Credited() int64 { return p.Captured - p.Fees }

// Applied reports whether a capture has applied the split (it can no longer
// change).
func (s *Split) Applied() bool { return s != nil && s.AppliedAt != nil }

// MaxSplitParts bounds the parts of one split: each is a posting of the
// capture's split entry and of each refund's reversal.
const MaxSplitParts = 20

// Check holds the parts to the rules that need no payment: 1 to
// MaxSplitParts parts, each naming a partner reference once, with an amount
// of at least 1 or a percentage from 1 to 100 (one of the two). Errors are a
// 400 naming the field (parts[i].amount, ...).
func (s *Split) Check() error {
	if len(s.Parts) == 0 || len(s.Parts) > MaxSplitParts {
		return apierr.Invalidf("parts", "parts must hold 1 to %d parts", MaxSplitParts)
	}
	seen := map[string]bool{}
	for i := range s.Parts {
		p := &s.Parts[i]
		at := func(f string) string { return fmt.Sprintf("parts[%d].%s", i, f) }
		if !ValidPartnerRef(p.Reference) {
			return apierr.Invalidf(at("reference"), "reference must be 1 to %d characters: letters, digits, '.', '_' or '-', starting with a letter or digit", MaxPartnerRef)
		}
		if seen[p.Reference] {
			return apierr.Invalidf(at("reference"), "reference %s appears twice; give each partner one part", p.Reference)
		}
		seen[p.Reference] = true
		switch {
		case p.Amount != nil && p.Percentage != nil:
			return apierr.Invalidf(at("percentage"), "a part has an amount or a percentage, not both")
		case p.Amount != nil:
			if *p.Amount < 1 {
				return apierr.Invalidf(at("amount"), "amount must be a positive integer in minor units")
			}
		case p.Percentage != nil:
			if *p.Percentage < 1 || *p.Percentage > 100 {
				return apierr.Invalidf(at("percentage"), "percentage must be a whole number from 1 to 100")
			}
		default:
			return apierr.Invalidf(at("amount"), "a part needs an amount or a percentage")
		}
	}
	return nil
}

// Resolve checks the parts (Check) against a payment of amount and sets
// each Share: an amount above the payment is a 400 naming it, and parts
// whose shares sum above the payment a 400 split_exceeds_payment naming
// parts.
func (s *Split) Resolve(amount int64) error {
	if err := s.Check(); err != nil {
		return err
	}
	var sum int64
	for i := range s.Parts {
		p := &s.Parts[i]
		if p.Amount != nil {
			if *p.Amount > amount {
				return apierr.Invalidf(fmt.Sprintf("parts[%d].amount", i), "amount must be from 1 to the payment's amount (%d) in minor units", amount)
			}
			p.Share = *p.Amount
		} else {
			p.Share = MulDiv(amount, *p.Percentage, 100)
		}
		sum += p.Share
	}
	if sum > amount {
		return apierr.New(CodeSplitExceedsPayment, "the parts sum to %d, more than the payment's amount (%d); the rest, if any, is the merchant's", sum, amount).
			WithParam("parts")
	}
	return nil
}

// shares are one capture's division: each part's gross share and the fee it
// bears, the merchant's fee, the whole fee.
type shares struct {
	gross, fees []int64
	merchantFee int64
	fee         int64
}

// captureShares divides a capture of amount, the authorised amount being
// authorised and before captured earlier. The parts and the merchant (whose
// share is what the parts leave) divide what has been captured so far by
// Jefferson's divisor method (D'Hondt), which is house-monotone: no party's
// cumulative share ever shrinks as more is captured, so each capture gives
// every party a share of zero or more and the shares sum to the capture
// exactly; and once all is captured each part holds exactly its Share. The
// fee goes first to the parts that pay fees (in their order, each up to its
// share of this capture), then to the merchant's share, then to the other
// parts: never more than a share.
func (s *Split) captureShares(pol Policy, authorised, before, amount int64) shares {
	sh := shares{fee: pol.Fee(amount)}
	var parts int64
	if s != nil {
		weights := make([]int64, len(s.Parts)+1)
		merchant := authorised
		for i, p := range s.Parts {
			weights[i] = p.Share
			merchant -= p.Share
		}
		weights[len(s.Parts)] = merchant
		now, was := apportion(weights, authorised, before+amount), apportion(weights, authorised, before)
		sh.gross, sh.fees = make([]int64, len(s.Parts)), make([]int64, len(s.Parts))
		for i := range s.Parts {
			sh.gross[i] = now[i] - was[i]
			parts += sh.gross[i]
		}
	}
	left := sh.fee
	take := func(room int64) int64 {
		t := max(0, min(left, room))
		left -= t
		return t
	}
	if s != nil {
		for i, p := range s.Parts {
			if p.PaysFees {
				sh.fees[i] = take(sh.gross[i])
			}
		}
	}
	sh.merchantFee = take(amount - parts)
	if s != nil {
		for i, p := range s.Parts {
			if !p.PaysFees {
				sh.fees[i] = take(sh.gross[i])
			}
		}
	}
	return sh
}

// apportion divides seats among parties of the given weights (summing to
// total, seats <= total) by Jefferson's method: each party first gets its
// quota rounded down, then the seats left (fewer than the parties) go one
// by one to the party of the highest weight / (seats + 1), ties to the
// first. That is the allocation floor(weight / d) for the largest divisor d
// that gives out every seat, and it never takes a seat back as seats grow.
func apportion(weights []int64, total, seats int64) []int64 {
	out := make([]int64, len(weights))
	if seats <= 0 || total <= 0 {
		return out
	}
	left := seats
	for i, w := range weights {
		out[i] = MulDiv(w, seats, total)
		left -= out[i]
	}
	for ; left > 0; left-- {
		best := -1
		for i, w := range weights {
			if w <= 0 {
				continue
			}
			// w_i / (a_i + 1) > w_best / (a_best + 1), on 128 bits.
			if best < 0 || greater(w, out[best]+1, weights[best], out[i]+1) {
				best = i
			}
		}
		out[best]++
	}
	return out
}

// greater reports whether a*b > c*d for non-negative int64s.
func greater(a, b, c, d int64) bool {
	h1, l1 := bits.Mul64(uint64(a), uint64(b))
	h2, l2 := bits.Mul64(uint64(c), uint64(d))
	return h1 > h2 || h1 == h2 && l1 > l2
}

// reversals are what each part gives back for a refund of amount, refunded
// before earlier, of captured: each part's cumulative reversal is what it
// was credited times the refunded fraction, rounded down (floor, monotone),
// so the full refund takes back exactly what it was credited and no refund
// takes more. The merchant bears the rest of the refund: the parts and the
// merchant's share sum to the refund exactly.
func (s *Split) reversals(captured, before, amount int64) []int64 {
	out := make([]int64, len(s.Parts))
	for i, p := range s.Parts {
		c := p.Credited()
		out[i] = MulDiv(c, before+amount, captured) - MulDiv(c, before, captured)
	}
	return out
}

// Clone is a deep copy (nil for nil): the payment's record keeps the split
// as read while its save computes the next state on the copy.
func (s *Split) Clone() *Split {
	if s == nil {
		return nil
	}
	c := *s
	c.Parts = make([]SplitPart, len(s.Parts))
	for i, p := range s.Parts {
		if p.Amount != nil {
			v := *p.Amount
			p.Amount = &v
		}
		if p.Percentage != nil {
			v := *p.Percentage
			p.Percentage = &v
		}
		c.Parts[i] = p
	}
	if s.Metadata != nil {
		c.Metadata = make(map[string]string, len(s.Metadata))
		for k, v := range s.Metadata {
			c.Metadata[k] = v
		}
	}
	if s.AppliedAt != nil {
		t := *s.AppliedAt
		c.AppliedAt = &t
	}
	return &c
}
