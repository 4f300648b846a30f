// Package adyennotify renders events as Adyen's standard notifications, for
// the webhook endpoints created with "format": "adyen": a merchant migrating
// from Adyen keeps its notification handler (Adyen's NotificationRequest,
// each NotificationRequestItem HMAC-signed, answered "[accepted]").
//
// One event is one NotificationRequest with one item. Payment and dispute
// events map to Adyen's event codes (Types lists them); other events have no
// Adyen equivalent and are not delivered in this format. The wire shapes and
// the signature (Adyen's HMAC-SHA256 over the item's signing string) are
// shared/pay/adyen's, which the receiving side (shared/pay/processornotices,
// notifications from an Adyen connector) verifies with.
package adyennotify

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
)

// Format is the endpoint format that delivers these notifications.
const Format = "adyen"

// KeyLen is the length of an HMAC key in hex characters (256 bits).
const KeyLen = 64

// NewKey is a new HMAC key: 32 random bytes in upper-case hex, as Adyen's
// Customer Area shows them.
func NewKey() string {
	b := make([]byte, KeyLen/2)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return strings.ToUpper(hex.EncodeToString(b))
}

// Types are the event types delivered in this format (what "*" means for an
// Adyen-format endpoint). CAPTURE_FAILED and REFUND_FAILED have no event: a
// capture or refund that cannot be made is refused in the answer to its
// request, and one the service accepted is not undone later.
var Types = []string{
	"payment.authorised", "payment.refused", "payment.failed", "payment.charged", "payment.amount_updated",
	"payment.cancelled", "payment.partially_refunded", "payment.refunded", "dispute.created", "dispute.closed",
}

// Delivers reports whether events of type t are delivered in this format.
func Delivers(t string) bool { return slices.Contains(Types, t) }

// Event is what rendering needs of an event record.
type Event struct {
	Type    string
	Created time.Time
	Live    bool
	Data    json.RawMessage
}

// Render is the NotificationRequest of ev for merchantAccount, its item
// signed with hexKey. Errors: the event's type has no Adyen equivalent, or
// its data is not the shape its type writes (neither happens to an event
// the sender was handed for an Adyen-format endpoint).
func Render(ev Event, merchantAccount, hexKey string) ([]byte, error) {
	it, err := item(ev)
	if err != nil {
		return nil, err
	}
	it.MerchantAccountCode = merchantAccount
	it.EventDate = ev.Created.Format("2006-01-02T15:04:05-07:00")
	if err := it.Sign(hexKey); err != nil {
		return nil, err
	}
	req := adyen.NotificationRequest{Live: strconv.FormatBool(ev.Live), NotificationItems: []adyen.NotificationItem{{NotificationRequestItem: it}}}
	return json.Marshal(req)
}

func item(ev Event) (adyen.NotificationRequestItem, error) {
	if strings.HasPrefix(ev.Type, "dispute.") {
		return disputeItem(ev)
	}
	if !Delivers(ev.Type) {
		return adyen.NotificationRequestItem{}, fmt.Errorf("adyennotify: %s has no Adyen event code", ev.Type)
	}
	var p payments.Payment
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		return adyen.NotificationRequestItem{}, fmt.Errorf("adyennotify: %s data: %w", ev.Type, err)
	}
	it := adyen.NotificationRequestItem{
		PSPReference: p.ID, MerchantReference: p.MerchantReference, PaymentMethod: p.PaymentMethod,
		Amount: adyen.Amount{Value: p.Amount, Currency: p.Currency}, Success: "true", AdditionalData: map[string]string{},
	}
	if p.Last4 != "" {
		it.AdditionalData["cardSummary"] = p.Last4
	}
	if p.CardTokenID != "" {
		it.AdditionalData["recurring.recurringDetailReference"] = p.CardTokenID
	}
	// A modification's own reference is the request that made it (what the
	// /v2 modification answered as pspReference), else the payment's.
	modification := func(s payments.Status) payments.HistoryEntry {
		e, _ := p.Last(s)
		it.OriginalReference = p.ID
		if e.RequestID != "" {
			it.PSPReference = e.RequestID
		}
		return e
	}
	switch ev.Type {
	case "payment.authorised":
		it.EventCode = adyen.EventAuthorisation
		it.Operations = []string{"CANCEL", "CAPTURE", "REFUND"}
	case "payment.refused", "payment.failed":
		it.EventCode, it.Success, it.Reason = adyen.EventAuthorisation, "false", p.RefusalReason
	case "payment.amount_updated":
		modification(payments.Authorized)
		it.EventCode = adyen.EventAuthorisationAdjustment
	case "payment.charged":
		e := modification(payments.Charged)
		it.EventCode = adyen.EventCapture
		if e.Amount > 0 {
			it.Amount.Value = e.Amount
		}
	case "payment.cancelled":
		e := modification(payments.Cancelled)
		it.EventCode, it.Reason = adyen.EventCancellation, e.Reason
		switch {
		case e.Reason == payments.ReasonAuthorizationExpired:
			it.EventCode = adyen.EventExpire
		case e.From == payments.Created || e.From == payments.RequiresAction:
			it.EventCode = adyen.EventOfferClosed // never authorised: the shopper left
		case e.Via == payments.ViaReversal:
			it.EventCode = adyen.EventCancelOrRefund
		case e.Via == payments.ViaReference:
			it.EventCode = adyen.EventTechnicalCancel
		}
	case "payment.partially_refunded", "payment.refunded":
		s := payments.PartiallyRefunded
		if ev.Type == "payment.refunded" {
			s = payments.Refunded
		}
		e := modification(s)
		it.EventCode, it.Amount.Value, it.Reason = adyen.EventRefund, e.Amount, e.Reason
		if e.RefundID != "" {
			it.PSPReference = e.RefundID // the refund's own record, as /v2/refunds answered
		}
		if e.Via == payments.ViaReversal {
			it.EventCode = adyen.EventCancelOrRefund
		}
	}
	return it, nil
}

// dispute is what a dispute event's data holds that a notification needs.
type dispute struct {
	ID                string       `json:"id"`
	TransactionID     string       `json:"transaction_id"`
	MerchantReference string       `json:"merchant_reference"`
	Amount            adyen.Amount `json:"amount"`
	Status            string       `json:"status"`
	Reason            string       `json:"reason"`
	ClosedReason      string       `json:"closed_reason"`
	DueBy             time.Time    `json:"due_by"`
}

// disputeStatus is Adyen's disputeStatus of a dispute's status.
var disputeStatus = map[string]string{"needs_response": "Undefended", "under_review": "Pending", "won": "Won", "lost": "Lost"}

// disputeItem: a dispute opens as Adyen's CHARGEBACK (the amount is held
// from the balance at once); one the merchant wins is CHARGEBACK_REVERSED,
// and one it loses a second CHARGEBACK with disputeStatus Lost (Accepted or
// Expired when the merchant accepted it or let it lapse), as Adyen reports a
// dispute's end. pspReference is the disputed payment's;
// additionalData.disputePspReference the dispute's own id.
func disputeItem(ev Event) (adyen.NotificationRequestItem, error) {
	var d dispute
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return adyen.NotificationRequestItem{}, fmt.Errorf("adyennotify: %s data: %w", ev.Type, err)
	}
	status := disputeStatus[d.Status]
	switch d.ClosedReason {
	case "accepted":
		status = "Accepted"
	case "expired":
		status = "Expired"
	}
	it := adyen.NotificationRequestItem{
		EventCode: adyen.EventChargeback, PSPReference: d.TransactionID, MerchantReference: d.MerchantReference, Amount: d.Amount,
		Success: "true", Reason: d.Reason,
		AdditionalData: map[string]string{"disputePspReference": d.ID, "disputeStatus": status},
	}
	switch ev.Type {
	case "dispute.created":
		it.AdditionalData["defensePeriodEndsAt"] = d.DueBy.Format("2006-01-02T15:04:05-07:00")
	case "dispute.closed":
		if d.Status == "won" {
			it.EventCode = adyen.EventChargebackReversed
		}
	default:
		return adyen.NotificationRequestItem{}, fmt.Errorf("adyennotify: %s has no Adyen event code", ev.Type)
	}
	return it, nil
}
