package adyen

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
)

// Adyen's standard notifications (webhooks), both ways: the service sends
// them to merchants whose endpoint takes Adyen's format
// (shared/console/webhooks/adyennotify), and receives them from Adyen for the
// payments an Adyen connector made (shared/pay/processornotices). One
// NotificationRequest carries items, each HMAC-signed as Adyen signs:
// HMAC-SHA256, keyed with the hex-decoded HMAC key, over
//
//	pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success
//
// in Base64, as additionalData.hmacSignature (Adyen's libraries verify it:
// Python's is_valid_hmac_notification, Java's HMACValidator). The receiver
// answers "[accepted]".

// Accepted is the body a receiver answers when it took the notification:
// Adyen counts a delivery done only on it.
const Accepted = "[accepted]"

// IsAccepted reports whether a receiver's answer body accepts the delivery
// (surrounding white space allowed, as receivers often add a newline).
func IsAccepted(body []byte) bool { return strings.TrimSpace(string(body)) == Accepted }

// Adyen's event codes, as this service sends or receives them.
const (
	EventAuthorisation           = "AUTHORISATION"
	EventAuthorisationAdjustment = "AUTHORISATION_ADJUSTMENT"
	EventCapture                 = "CAPTURE"
	EventCaptureFailed           = "CAPTURE_FAILED"
	EventCancellation            = "CANCELLATION"
	EventCancelOrRefund          = "CANCEL_OR_REFUND"
	EventTechnicalCancel         = "TECHNICAL_CANCEL"
	EventExpire                  = "EXPIRE"
	EventOfferClosed             = "OFFER_CLOSED"
	EventRefund                  = "REFUND"
	EventRefundFailed            = "REFUND_FAILED"
	EventChargeback              = "CHARGEBACK"
	EventChargebackReversed      = "CHARGEBACK_REVERSED"
)

// HMACSignature is the additionalData key of an item's signature.
const HMACSignature = "hmacSignature"

// NotificationRequestItem is Adyen's NotificationRequestItem. Every field of
// the signed string is always present ("" when it does not apply): Adyen's
// Python library joins str() of each, so a missing one must read as "" on
// both sides.
type NotificationRequestItem struct {
	AdditionalData      map[string]string `json:"additionalData" maxkey:"128" maxlen:"4096"`
	Amount              Amount            `json:"amount"`
	EventCode           string            `json:"eventCode" maxlen:"64"`
	EventDate           string            `json:"eventDate" maxlen:"64"`
	MerchantAccountCode string            `json:"merchantAccountCode" maxlen:"128"`
	MerchantReference   string            `json:"merchantReference" maxlen:"128"`
	OriginalReference   string            `json:"originalReference" maxlen:"128"`
	PaymentMethod       string            `json:"paymentMethod,omitempty" maxlen:"64"`
	PSPReference        string            `json:"pspReference" maxlen:"128"`
	Reason              string            `json:"reason,omitempty" maxlen:"1024"`
	Success             string            `json:"success" maxlen:"5"`
	Operations          []string          `json:"operations,omitempty" maxlen:"64"`
}

// NotificationRequest is Adyen's NotificationRequest. Live is "true" or
// "false", a string as Adyen sends it. The maxlen and maxkey tags are the
// receiving route's limits (shared/platform/httpapi's strict decoding).
type NotificationRequest struct {
	Live              string             `json:"live" maxlen:"5"`
	NotificationItems []NotificationItem `json:"notificationItems"`
}

// NotificationItem is one entry of notificationItems.
type NotificationItem struct {
	NotificationRequestItem NotificationRequestItem `json:"NotificationRequestItem"`
}

// ErrHMACKey is the error of a key that is not hex.
var ErrHMACKey = errors.New("adyen: the HMAC key is not hex")

// SigningString is Adyen's signed string of it.
func (it *NotificationRequestItem) SigningString() string {
	return strings.Join([]string{it.PSPReference, it.OriginalReference, it.MerchantAccountCode, it.MerchantReference,
		strconv.FormatInt(it.Amount.Value, 10), it.Amount.Currency, it.EventCode, it.Success}, ":")
}

// Signature is the Base64 HMAC-SHA256 of it's signing string under hexKey.
func (it *NotificationRequestItem) Signature(hexKey string) (string, error) {
	key, err := hex.DecodeString(hexKey)
	if err != nil || len(key) == 0 {
		return "", ErrHMACKey
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(it.SigningString()))
	return base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}

// Sign sets additionalData.hmacSignature.
func (it *NotificationRequestItem) Sign(hexKey string) error {
	sig, err := it.Signature(hexKey)
	if err != nil {
		return err
	}
	if it.AdditionalData == nil {
		it.AdditionalData = map[string]string{}
	}
	it.AdditionalData[HMACSignature] = sig
	return nil
}

// Valid reports whether it carries the signature hexKey gives it (what a
// receiver checks), compared in constant time. A missing signature, or a
// key that is not hex, is not valid.
func (it *NotificationRequestItem) Valid(hexKey string) bool {
	got := it.AdditionalData[HMACSignature]
	if got == "" {
		return false
	}
	want, err := it.Signature(hexKey)
	return err == nil && hmac.Equal([]byte(want), []byte(got))
}
