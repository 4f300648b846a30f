package payments

import (
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// AuthorizationTTL is how long an authorisation holds funds: one not
// captured (nor cancelled) this long after it was authorised is voided by
// the expirer (Cancelled, reason ReasonAuthorizationExpired).
const AuthorizationTTL = 7 * 24 * time.Hour

// ReasonAuthorizationExpired is the history reason of an expired hold.
const ReasonAuthorizationExpired = "authorization_expired"

// Op is what a capture, cancel or refund knows of its request.
type Op struct {
	Amount    *int64 // nil: all that is left
	Final     bool   // capture: no further capture, release the rest
	Reason    string // refund and cancel: the merchant's reason; capture: replaces the default history reason
	RequestID string // the API request, for the history
	Via       Via    // how the change was asked for, when not by its own operation
}

// ReasonAutomaticCapture is the history reason of the capture that follows
// an authorisation in automatic capture mode.
const ReasonAutomaticCapture = "automatic capture"

// Authorise records the processor's authorisation. In automatic capture
// mode the whole amount is captured at once, in the same change (and so in
// the same store write), with its own history entry and event: the payment
// ends charged, never left holding funds. A zero amount (a card
// validation) has nothing to capture and stays authorised. Errors: Conflict
// payment_state_conflict when the state machine refuses the move.
func (p *Payment) Authorise(requestID string, now time.Time) error {
	if err := p.move(Authorized, HistoryEntry{RequestID: requestID}, now); err != nil {
		return err
	}
	if p.CaptureMode != CaptureAutomatic || p.Amount == 0 {
		return nil
	}
	return p.Capture(Op{Reason: ReasonAutomaticCapture, RequestID: requestID}, now)
}

// Balance is the captured amount not refunded yet: what a refund may take.
func (p *Payment) Balance() int64 { return p.ProcessedAmount - p.RefundedAmount }

// Capturable is what a capture may still take: the authorised amount not yet
// captured, while capture is open.
func (p *Payment) Capturable() int64 {
	if p.CaptureClosed {
		return 0
	}
	return p.Amount - p.ProcessedAmount
}

// checkAmount refuses an amount out of (0, left]; nil means all of left.
func checkAmount(a *int64, left int64, code apierr.Code, what string) (int64, error) {
	if a == nil {
		return left, nil
	}
	if *a <= 0 {
		return 0, apierr.Invalidf("amount", "amount must be a positive integer in minor units")
	}
	if *a > left {
		return 0, apierr.New(code, "amount is more than %s (%d)", what, left)
	}
	return *a, nil
}

// Capture captures op.Amount (default: all that is capturable) of an
// authorised payment, or of a charged one whose capture is still open (a
// further partial capture). The capture closes when the whole amount is
// captured or op.Final is set; the rest of the hold is released. Errors:
// Conflict payment_state_conflict (any other status, or capture closed:
// the message names the status), Invalid amount (not positive, or above
// what is capturable: amount_exceeds_capturable).
func (p *Payment) Capture(op Op, now time.Time) error {
	if p.Type != TypePayment || (p.Status != Authorized && p.Status != Charged) {
		return illegal(p, Charged)
	}
	if p.CaptureClosed {
		return apierr.New(CodeStateConflict,
			"payment %s is %s and its capture is closed (%d of %d captured)", p.ID, p.Status, p.ProcessedAmount, p.Amount)
	}
	amount, err := checkAmount(op.Amount, p.Capturable(), CodeAmountExceedsCapturable, "the authorised amount not yet captured")
	if err != nil {
		return err
	}
	reason := "capture"
	p.ProcessedAmount += amount
	if op.Final || p.ProcessedAmount == p.Amount {
		p.CaptureClosed = true
		if p.ProcessedAmount < p.Amount {
			reason = "final capture; the rest of the hold released"
		}
	}
	if op.Reason != "" {
		reason = op.Reason
	}
	if err := p.move(Charged, HistoryEntry{Amount: amount, Reason: reason, RequestID: op.RequestID}, now); err != nil {
		return err
	}
	t := p.UpdatedAt
	p.CapturedAt = &t
	return nil
}

// Cancel voids an authorised payment not captured: the hold is released.
// Errors: Conflict payment_state_conflict naming the status (a payment
// captured even in part cannot be voided: refund it).
func (p *Payment) Cancel(op Op, now time.Time) error {
	if p.Status != Authorized || p.Type != TypePayment {
		return illegal(p, Cancelled)
	}
	reason := op.Reason
	if reason == "" {
		reason = "cancelled by the merchant"
	}
	p.CaptureClosed = true
	return p.move(Cancelled, HistoryEntry{Amount: p.Amount, Reason: reason, RequestID: op.RequestID, Via: op.Via}, now)
}

// Expire voids an authorisation older than AuthorizationTTL (the expirer's
// move): Cancelled with reason authorization_expired. Errors: Conflict when
// the payment is no longer authorised.
func (p *Payment) Expire(now time.Time) error {
	if p.Status != Authorized {
		return illegal(p, Cancelled)
	}
	p.CaptureClosed = true
	return p.move(Cancelled, HistoryEntry{Amount: p.Amount, Reason: ReasonAuthorizationExpired}, now)
}

// ExpiresAt is when an authorised payment's hold expires (zero if it was
// never authorised).
func (p *Payment) ExpiresAt() time.Time {
	if p.AuthedAt == nil {
		return time.Time{}
	}
	return p.AuthedAt.Add(AuthorizationTTL)
}

// Refund returns op.Amount (default: the whole balance) of a captured
// payment as a new record of type refund, with ParentTransactionID set,
// written by SaveOps with the payment. The payment becomes
// partially_refunded or refunded, and its capture closes. Errors: Conflict
// payment_state_conflict (not captured: the message names the status),
// Invalid amount (not positive, or above the balance: refund_exceeds_balance;
// a fully refunded payment has a balance of 0, so any refund of it is this
// 400), Conflict payment_disputed (a dispute open or lost: DisputeMark).
func (p *Payment) Refund(op Op, refundID string, now time.Time) (*Payment, error) {
	if p.Type != TypePayment || (p.Status != Charged && p.Status != PartiallyRefunded && p.Status != Refunded) {
		return nil, illegal(p, Refunded)
	}
	if p.Dispute != nil && p.Dispute.Status != DisputeWon {
		return nil, apierr.New(CodeDisputed,
			"payment %s is disputed (dispute %s is %s): the cardholder is paid back through the dispute, so it cannot be refunded", p.ID, p.Dispute.ID, p.Dispute.Status)
	}
	amount, err := checkAmount(op.Amount, p.Balance(), CodeRefundExceedsBalance, "the captured amount not yet refunded")
	if err != nil {
		return nil, err
	}
	p.RefundedAmount += amount
	p.CaptureClosed = true
	to := PartiallyRefunded
	if p.RefundedAmount == p.ProcessedAmount {
		to = Refunded
	}
	reason := op.Reason
	if reason == "" {
		reason = "refund"
	}
	if err := p.move(to, HistoryEntry{Amount: amount, Reason: reason, RequestID: op.RequestID, RefundID: refundID, Via: op.Via}, now); err != nil {
		return nil, err
	}
	now = now.UTC()
	r := &Payment{
		ID: refundID, AccountID: p.AccountID, Livemode: p.Livemode, Type: TypeRefund, Amount: amount,
		ProcessedAmount: amount, Currency: p.Currency, Status: Refunded, PaymentMethod: p.PaymentMethod, Last4: p.Last4,
		MerchantReference: p.MerchantReference, Description: op.Reason, PaymentSessionID: p.PaymentSessionID,
		CustomerID: p.CustomerID, CardTokenID: p.CardTokenID, PaymentLinkID: p.PaymentLinkID, ParentTransactionID: p.ID,
		CaptureClosed: true, CreatedAt: now, UpdatedAt: now, Metadata: map[string]string{},
		History: []HistoryEntry{
			{Status: Created, At: now},
			{From: Created, Status: Refunded, At: now, Amount: amount, Reason: reason, RequestID: op.RequestID},
		},
	}
	p.extra = append(p.extra, r)
	return r, nil
}

// EventAmountUpdated is the event of an amount update (UpdateAmount).
const EventAmountUpdated = "payment.amount_updated"

// UpdateAmount changes the authorised amount of a payment held for manual
// capture before anything is captured (Adyen's authorisation adjustment: a
// longer hotel stay, a smaller basket). The sandbox issuer approves every
// adjustment; the hold's expiry does not restart. The status stays
// authorized; the history entry's amount is the new amount and its reason
// names the old one. Errors: Conflict payment_state_conflict (not
// authorised, or already captured in part), Invalid amount (not positive).
func (p *Payment) UpdateAmount(amount int64, requestID string, now time.Time) error {
	if p.Type != TypePayment || p.Status != Authorized || p.ProcessedAmount > 0 || p.CaptureClosed {
		return apierr.New(CodeStateConflict,
			"payment %s is %s and its amount can no longer be updated (only an authorisation with nothing captured can)", p.ID, p.Status)
	}
	if amount <= 0 || amount > money.MaxMinor {
		return apierr.Invalidf("amount", "amount must be an integer from 1 to %d in minor units", money.MaxMinor)
	}
	if err := p.resplit(amount); err != nil {
		return err
	}
	old := p.Amount
	p.Amount = amount
	reason := "amount updated from " + strconv.FormatInt(old, 10)
	return p.moveAs(Authorized, EventAmountUpdated, HistoryEntry{Amount: amount, Reason: reason, RequestID: requestID}, now)
}
