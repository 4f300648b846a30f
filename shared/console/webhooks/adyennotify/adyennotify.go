// Package adyennotify renders events as Adyen's standard notifications, for
// the webhook endpoints created with "format": "adyen": a merchant migrating
// from Adyen keeps its notification handler (Adyen's NotificationRequest,
// each NotificationRequestItem HMAC-signed, answered "[accepted]").
//
// One event is one NotificationRequest with one item. Payment and dispute
// events map to Adyen's event codes (Types lists them); other events have no
// Adyen equivalent and are not delivered in this format. The item is signed
// as Adyen signs: HMAC-SHA256, keyed with the hex-decoded HMAC key, over
//
//	pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success
//
// in Base64, as additionalData.hmacSignature (Adyen's libraries verify it:
// Python's is_valid_hmac_notification, Java's HMACValidator).
package adyennotify

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/payments"
)

// Format is the endpoint format that delivers these notifications.
const Format = "adyen"

// Accepted is the body a receiver answers when it took the notification:
// Adyen counts a delivery done only on it, and so does the sender.
const Accepted = "[accepted]"

// IsAccepted reports whether a receiver's answer body accepts the delivery
// (surrounding white space allowed, as receivers often add a newline).
func IsAccepted(body []byte) bool { return strings.TrimSpace(string(body)) == Accepted }

// KeyLen is the length of an HMAC key in hex characters (256 bits).
const KeyLen = 64

// NewKey is a new HMAC key: 32 random bytes in upper-case hex, as Adyen's
// Customer Area shows them.
func NewKey() string {
	b := make([]byte, KeyLen/2)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return strings.ToUpper(hex.EncodeToString(b))
}

// Adyen's event codes sent here.
const (
	Authorisation           = "AUTHORISATION"
	AuthorisationAdjustment = "AUTHORISATION_ADJUSTMENT"
	Capture                 = "CAPTURE"
	Cancellation            = "CANCELLATION"
	CancelOrRefund          = "CANCEL_OR_REFUND"
	TechnicalCancel         = "TECHNICAL_CANCEL"
	Expire                  = "EXPIRE"
	OfferClosed             = "OFFER_CLOSED"
	Refund                  = "REFUND"
	Chargeback              = "CHARGEBACK"
	ChargebackReversed      = "CHARGEBACK_REVERSED"
)

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

// Amount is Adyen's notification amount.
type Amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency"`
}

// Item is Adyen's NotificationRequestItem. Every field of the signed string
// is always present ("" when it does not apply): Adyen's Python library joins
// str() of each, so a missing one must read as "" on both sides.
type Item struct {
	AdditionalData      map[string]string `json:"additionalData"`
	Amount              Amount            `json:"amount"`
	EventCode           string            `json:"eventCode"`
	EventDate           string            `json:"eventDate"`
	MerchantAccountCode string            `json:"merchantAccountCode"`
	MerchantReference   string            `json:"merchantReference"`
	OriginalReference   string            `json:"originalReference"`
	PaymentMethod       string            `json:"paymentMethod,omitempty"`
	PSPReference        string            `json:"pspReference"`
	Reason              string            `json:"reason,omitempty"`
	Success             string            `json:"success"`
	Operations          []string          `json:"operations,omitempty"`
}

// Request is Adyen's NotificationRequest.
type Request struct {
	Live              string    `json:"live"`
	NotificationItems []Wrapped `json:"notificationItems"`
}

// Wrapped is one entry of notificationItems.
type Wrapped struct {
	NotificationRequestItem Item `json:"NotificationRequestItem"`
}

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
	req := Request{Live: strconv.FormatBool(ev.Live), NotificationItems: []Wrapped{{NotificationRequestItem: it}}}
	return json.Marshal(req)
}

// SigningString is Adyen's signed string of it.
func (it *Item) SigningString() string {
	return strings.Join([]string{it.PSPReference, it.OriginalReference, it.MerchantAccountCode, it.MerchantReference,
		strconv.FormatInt(it.Amount.Value, 10), it.Amount.Currency, it.EventCode, it.Success}, ":")
}

// Signature is the Base64 HMAC-SHA256 of it's signing string under hexKey.
func (it *Item) Signature(hexKey string) (string, error) {
	key, err := hex.DecodeString(hexKey)
	if err != nil || len(key) == 0 {
		return "", fmt.Errorf("adyennotify: the HMAC key is not hex")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(it.SigningString()))
	return base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Sign sets additionalData.hmacSignature.
func (it *Item) Sign(hexKey string) error {
	sig, err := it.Signature(hexKey)
	if err != nil {
		return err
	}
	if it.AdditionalData == nil {
		it.AdditionalData = map[string]string{}
	}
	it.AdditionalData["hmacSignature"] = sig
	return nil
}

// Valid reports whether it carries the signature hexKey gives it (what a
// receiver checks; the tests' own check beside Adyen's libraries).
func (it *Item) Valid(hexKey string) bool {
	want, err := it.Signature(hexKey)
	return err == nil && hmac.Equal([]byte(want), []byte(it.AdditionalData["hmacSignature"]))
}

func item(ev Event) (Item, error) {
	if strings.HasPrefix(ev.Type, "dispute.") {
		return disputeItem(ev)
	}
	if !Delivers(ev.Type) {
		return Item{}, fmt.Errorf("adyennotify: %s has no Adyen event code", ev.Type)
	}
	var p payments.Payment
	if err := json.Unmarshal(ev.Data, &p); err != nil {
		return Item{}, fmt.Errorf("adyennotify: %s data: %w", ev.Type, err)
	}
	it := Item{
		PSPReference: p.ID, MerchantReference: p.MerchantReference, PaymentMethod: p.PaymentMethod,
		Amount: Amount{Value: p.Amount, Currency: p.Currency}, Success: "true", AdditionalData: map[string]string{},
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
		it.EventCode = Authorisation
		it.Operations = []string{"CANCEL", "CAPTURE", "REFUND"}
	case "payment.refused", "payment.failed":
		it.EventCode, it.Success, it.Reason = Authorisation, "false", p.RefusalReason
	case "payment.amount_updated":
		modification(payments.Authorized)
		it.EventCode = AuthorisationAdjustment
	case "payment.charged":
		e := modification(payments.Charged)
		it.EventCode = Capture
		if e.Amount > 0 {
			it.Amount.Value = e.Amount
		}
	case "payment.cancelled":
		e := modification(payments.Cancelled)
		it.EventCode, it.Reason = Cancellation, e.Reason
		switch {
		case e.Reason == payments.ReasonAuthorizationExpired:
			it.EventCode = Expire
		case e.From == payments.Created || e.From == payments.RequiresAction:
			it.EventCode = OfferClosed // never authorised: the shopper left
		case e.Via == payments.ViaReversal:
			it.EventCode = CancelOrRefund
		case e.Via == payments.ViaReference:
			it.EventCode = TechnicalCancel
		}
	case "payment.partially_refunded", "payment.refunded":
		s := payments.PartiallyRefunded
		if ev.Type == "payment.refunded" {
			s = payments.Refunded
		}
		e := modification(s)
		it.EventCode, it.Amount.Value, it.Reason = Refund, e.Amount, e.Reason
		if e.RefundID != "" {
			it.PSPReference = e.RefundID // the refund's own record, as /v2/refunds answered
		}
		if e.Via == payments.ViaReversal {
			it.EventCode = CancelOrRefund
		}
	}
	return it, nil
}

// dispute is what a dispute event's data holds that a notification needs.
type dispute struct {
	ID                string    `json:"id"`
	TransactionID     string    `json:"transaction_id"`
	MerchantReference string    `json:"merchant_reference"`
	Amount            Amount    `json:"amount"`
	Status            string    `json:"status"`
	Reason            string    `json:"reason"`
	ClosedReason      string    `json:"closed_reason"`
	DueBy             time.Time `json:"due_by"`
}

// disputeStatus is Adyen's disputeStatus of a dispute's status.
var disputeStatus = map[string]string{"needs_response": "Undefended", "under_review": "Pending", "won": "Won", "lost": "Lost"}

// disputeItem: a dispute opens as Adyen's CHARGEBACK (the amount is held
// from the balance at once); one the merchant wins is CHARGEBACK_REVERSED,
// and one it loses a second CHARGEBACK with disputeStatus Lost (Accepted or
// Expired when the merchant accepted it or let it lapse), as Adyen reports a
// dispute's end. pspReference is the disputed payment's;
// additionalData.disputePspReference the dispute's own id.
func disputeItem(ev Event) (Item, error) {
	var d dispute
	if err := json.Unmarshal(ev.Data, &d); err != nil {
		return Item{}, fmt.Errorf("adyennotify: %s data: %w", ev.Type, err)
	}
	status := disputeStatus[d.Status]
	switch d.ClosedReason {
	case "accepted":
		status = "Accepted"
	case "expired":
		status = "Expired"
	}
	it := Item{
		EventCode: Chargeback, PSPReference: d.TransactionID, MerchantReference: d.MerchantReference, Amount: d.Amount,
		Success: "true", Reason: d.Reason,
		AdditionalData: map[string]string{"disputePspReference": d.ID, "disputeStatus": status},
	}
	switch ev.Type {
	case "dispute.created":
		it.AdditionalData["defensePeriodEndsAt"] = d.DueBy.Format("2006-01-02T15:04:05-07:00")
	case "dispute.closed":
		if d.Status == "won" {
			it.EventCode = ChargebackReversed
		}
	default:
		return Item{}, fmt.Errorf("adyennotify: %s has no Adyen event code", ev.Type)
	}
	return it, nil
}
