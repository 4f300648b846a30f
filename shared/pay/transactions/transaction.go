package transactions

import (
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
)

// Kind is the version-change kind of a transaction (the payment's: its
// changes, requires_action -> 3d before 2024-01-15 and no metadata before
// it, apply to every transaction route).
const Kind = payments.Kind

// Transaction is the Pay API representation of a payments.Payment, in
// snake_case (DESIGN.md "Names"): the provider's transaction fields.
type Transaction struct {
	ID                  string            `json:"id"`
	Type                payments.Type     `json:"type"`
	Status              payments.Status   `json:"status"`
	Amount              int64             `json:"amount"`           // authorised (a refund: refunded), minor units
	ProcessedAmount     int64             `json:"processed_amount"` // captured
	RefundedAmount      int64             `json:"refunded_amount"`
	Balance             int64             `json:"balance"`           // captured and not refunded: what a refund may take
	CapturableAmount    int64             `json:"capturable_amount"` // what a capture may still take
	Currency            string            `json:"currency"`
	PaymentMethod       string            `json:"payment_method"`
	Last4               string            `json:"last4,omitempty"`
	MerchantReference   string            `json:"merchant_reference"` // the order reference
	Description         string            `json:"description,omitempty"`
	Secure3D            bool              `json:"secure3d"`
	CaptureMode         string            `json:"capture_mode,omitempty"` // payments: automatic or manual
	ParentTransactionID string            `json:"parent_transaction_id,omitempty"`
	CustomerID          string            `json:"customer_id,omitempty"`
	CardTokenID         string            `json:"card_token_id,omitempty"`
	RecurringType       string            `json:"recurring_type,omitempty"` // a charge of a card token: subscription, unscheduled, card_on_file
	PaymentSessionID    string            `json:"payment_session_id,omitempty"`
	PaymentLinkID       string            `json:"payment_link_id,omitempty"`
	RefusalReason       string            `json:"refusal_reason,omitempty"`
	Livemode            bool              `json:"livemode"`
	CreatedAt           time.Time         `json:"created_at"`
	UpdatedAt           time.Time         `json:"updated_at"`
	AuthedAt            *time.Time        `json:"authed_at,omitempty"`
	CapturedAt          *time.Time        `json:"captured_at,omitempty"`
	ExpiresAt           *time.Time        `json:"authorization_expires_at,omitempty"` // while authorised: when the hold lapses
	Disputed            bool              `json:"disputed"`                           // a dispute was opened (from 2023-09-01)
	DisputeID           string            `json:"dispute_id,omitempty"`
	Metadata            map[string]string `json:"metadata"`
}

// View renders a payment record.
func View(p *payments.Payment) Transaction {
	t := Transaction{
		ID: p.ID, Type: p.Type, Status: p.Status, Amount: p.Amount, ProcessedAmount: p.ProcessedAmount,
		RefundedAmount: p.RefundedAmount, Balance: p.Balance(), Currency: p.Currency, PaymentMethod: p.PaymentMethod,
		Last4: p.Last4, MerchantReference: p.MerchantReference, Description: p.Description, Secure3D: p.Secure3D,
		ParentTransactionID: p.ParentTransactionID, CustomerID: p.CustomerID, CardTokenID: p.CardTokenID, RecurringType: p.RecurringType,
		PaymentSessionID: p.PaymentSessionID, PaymentLinkID: p.PaymentLinkID, RefusalReason: p.RefusalReason,
		CaptureMode: string(p.CaptureMode), Livemode: p.Livemode, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, AuthedAt: p.AuthedAt,
		CapturedAt: p.CapturedAt, Metadata: p.Metadata,
	}
	if p.Type == payments.TypePayment && (p.Status == payments.Authorized || p.Status == payments.Charged) {
		t.CapturableAmount = p.Capturable()
	}
	if p.Status == payments.Authorized {
		e := p.ExpiresAt()
		t.ExpiresAt = &e
	}
	if p.Dispute != nil {
		t.Disputed, t.DisputeID = true, p.Dispute.ID
	}
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	return t
}

// HistoryEntry is one status change of a transaction.
type HistoryEntry struct {
	From      payments.Status `json:"from,omitempty"` // absent on the first entry (created)
	To        payments.Status `json:"to"`
	Amount    int64           `json:"amount"` // the capture's or refund's amount; else the transaction's
	Reason    string          `json:"reason,omitempty"`
	At        time.Time       `json:"at"`
	RequestID string          `json:"request_id,omitempty"` // the API request that made the change, when one did
}

// History renders a payment's history, oldest first.
func History(p *payments.Payment) []HistoryEntry {
	out := make([]HistoryEntry, 0, len(p.History))
	prev := payments.Status("")
	for _, h := range p.History {
		from := h.From
		if from == "" {
			from = prev // entries written before From was kept
		}
		amount := h.Amount
		if amount == 0 {
			amount = p.Amount
		}
		out = append(out, HistoryEntry{From: from, To: h.Status, Amount: amount, Reason: h.Reason, At: h.At, RequestID: h.RequestID})
		prev = h.Status
	}
	return out
}
