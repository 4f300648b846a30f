package adyennotify_test

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
)

func TestNewKeyIs64UpperHexAndRandom(t *testing.T) {
	a, b := adyennotify.NewKey(), adyennotify.NewKey()
	assert.Regexp(t, regexp.MustCompile(`^[0-9A-F]{64}$`), a)
	assert.NotEqual(t, a, b)
}

// Every type the format delivers is in the catalogue.
func TestTypesAreCatalogued(t *testing.T) {
	for _, typ := range adyennotify.Types {
		assert.True(t, eventlog.Known(typ), typ)
	}
	assert.False(t, adyennotify.Delivers("order.completed"))
}

var at = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

const key = "0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0"

// render renders a payment's event as the sender would and returns its one
// item, checking the request's shape and the item's signature on the way.
func render(t *testing.T, typ string, data any, live bool) adyen.NotificationRequestItem {
	t.Helper()
	raw, err := json.Marshal(data)
	require.NoError(t, err)
	b, err := adyennotify.Render(adyennotify.Event{Type: typ, Created: at, Live: live, Data: raw}, "ShopNL", key)
	require.NoError(t, err)
	var req map[string]any
	require.NoError(t, json.Unmarshal(b, &req))
	assert.Equal(t, map[bool]string{true: "true", false: "false"}[live], req["live"], "live is a string, as Adyen sends it")
	var r adyen.NotificationRequest
	require.NoError(t, json.Unmarshal(b, &r))
	require.Len(t, r.NotificationItems, 1)
	it := r.NotificationItems[0].NotificationRequestItem
	assert.True(t, it.Valid(key), "the item is signed")
	assert.Equal(t, "ShopNL", it.MerchantAccountCode)
	assert.Equal(t, "2026-11-29T10:00:00+00:00", it.EventDate)
	// Each field of the signed string is present, "" when it does not apply.
	var items struct {
		NotificationItems []struct {
			NotificationRequestItem map[string]any
		} `json:"notificationItems"`
	}
	require.NoError(t, json.Unmarshal(b, &items))
	for _, f := range []string{"pspReference", "originalReference", "merchantAccountCode", "merchantReference", "amount", "eventCode", "success"} {
		assert.Contains(t, items.NotificationItems[0].NotificationRequestItem, f)
	}
	return it
}

func payment(t *testing.T, mode payments.CaptureMode) *payments.Payment {
	p := payments.New(payments.Payment{ID: "pay_1", AccountID: "acct", Amount: 1000, Currency: "EUR", PaymentMethod: "visa",
		Last4: "1111", MerchantReference: "order-7", CaptureMode: mode}, at)
	require.NoError(t, p.Authorise("req_auth", at))
	return p
}

func TestPaymentEventsMapToAdyenCodes(t *testing.T) {
	t.Run("authorisation", func(t *testing.T) {
		p := payment(t, payments.CaptureManual)
		it := render(t, "payment.authorised", p.Public(), false)
		assert.Equal(t, "AUTHORISATION", it.EventCode)
		assert.Equal(t, "true", it.Success)
		assert.Equal(t, "pay_1", it.PSPReference)
		assert.Equal(t, "", it.OriginalReference)
		assert.Equal(t, "order-7", it.MerchantReference)
		assert.Equal(t, adyen.Amount{Value: 1000, Currency: "EUR"}, it.Amount)
		assert.Equal(t, "visa", it.PaymentMethod)
		assert.Equal(t, "1111", it.AdditionalData["cardSummary"])
		assert.Equal(t, []string{"CANCEL", "CAPTURE", "REFUND"}, it.Operations)
	})
	t.Run("refused", func(t *testing.T) {
		p := payments.New(payments.Payment{ID: "pay_2", Amount: 500, Currency: "EUR", MerchantReference: "o"}, at)
		require.NoError(t, p.TransitionBecause(payments.Rejected, "Not enough balance", "issuer", at))
		it := render(t, "payment.refused", p.Public(), true)
		assert.Equal(t, "AUTHORISATION", it.EventCode)
		assert.Equal(t, "false", it.Success)
		assert.Equal(t, "Not enough balance", it.Reason)
	})
	t.Run("partial capture", func(t *testing.T) {
		p := payment(t, payments.CaptureManual)
		amount := int64(300)
		require.NoError(t, p.Capture(payments.Op{Amount: &amount, RequestID: "req_cap"}, at))
		it := render(t, "payment.charged", p.Public(), false)
		assert.Equal(t, "CAPTURE", it.EventCode)
		assert.Equal(t, "req_cap", it.PSPReference, "the capture's own reference, as /v2's capture answered")
		assert.Equal(t, "pay_1", it.OriginalReference)
		assert.Equal(t, int64(300), it.Amount.Value)
	})
	t.Run("refund", func(t *testing.T) {
		p := payment(t, payments.CaptureAutomatic)
		amount := int64(250)
		r, err := p.Refund(payments.Op{Amount: &amount, Reason: "RETURN", RequestID: "req_ref"}, "pay_refund", at)
		require.NoError(t, err)
		it := render(t, "payment.partially_refunded", p.Public(), false)
		assert.Equal(t, "REFUND", it.EventCode)
		assert.Equal(t, r.ID, it.PSPReference, "the refund's own record, as /v2's refund answered")
		assert.Equal(t, "pay_1", it.OriginalReference)
		assert.Equal(t, int64(250), it.Amount.Value)
		rest := int64(750)
		_, err = p.Refund(payments.Op{Amount: &rest}, "pay_refund2", at)
		require.NoError(t, err)
		it = render(t, "payment.refunded", p.Public(), false)
		assert.Equal(t, "pay_refund2", it.PSPReference)
		assert.Equal(t, int64(750), it.Amount.Value)
	})
	t.Run("cancel, expiry, reversal, technical cancel, abandoned", func(t *testing.T) {
		p := payment(t, payments.CaptureManual)
		require.NoError(t, p.Cancel(payments.Op{RequestID: "req_c"}, at))
		it := render(t, "payment.cancelled", p.Public(), false)
		assert.Equal(t, "CANCELLATION", it.EventCode)
		assert.Equal(t, "req_c", it.PSPReference)
		assert.Equal(t, "pay_1", it.OriginalReference)

		p = payment(t, payments.CaptureManual)
		require.NoError(t, p.Expire(at))
		assert.Equal(t, "EXPIRE", render(t, "payment.cancelled", p.Public(), false).EventCode)

		p = payment(t, payments.CaptureManual)
		require.NoError(t, p.Cancel(payments.Op{RequestID: "req_r", Via: payments.ViaReversal}, at))
		assert.Equal(t, "CANCEL_OR_REFUND", render(t, "payment.cancelled", p.Public(), false).EventCode)

		p = payment(t, payments.CaptureAutomatic)
		_, err := p.Refund(payments.Op{RequestID: "req_r", Via: payments.ViaReversal}, "pay_rev", at)
		require.NoError(t, err)
		it = render(t, "payment.refunded", p.Public(), false)
		assert.Equal(t, "CANCEL_OR_REFUND", it.EventCode)
		assert.Equal(t, "pay_rev", it.PSPReference)

		p = payment(t, payments.CaptureManual)
		require.NoError(t, p.Cancel(payments.Op{RequestID: "req_t", Via: payments.ViaReference}, at))
		assert.Equal(t, "TECHNICAL_CANCEL", render(t, "payment.cancelled", p.Public(), false).EventCode)

		p = payments.New(payments.Payment{ID: "pay_3", Amount: 500, Currency: "EUR"}, at)
		require.NoError(t, p.Transition(payments.Cancelled, "abandoned", at))
		assert.Equal(t, "OFFER_CLOSED", render(t, "payment.cancelled", p.Public(), false).EventCode)
	})
	t.Run("amount update", func(t *testing.T) {
		p := payment(t, payments.CaptureManual)
		require.NoError(t, p.UpdateAmount(1500, "req_upd", at))
		it := render(t, "payment.amount_updated", p.Public(), false)
		assert.Equal(t, "AUTHORISATION_ADJUSTMENT", it.EventCode)
		assert.Equal(t, "req_upd", it.PSPReference)
		assert.Equal(t, "pay_1", it.OriginalReference)
		assert.Equal(t, int64(1500), it.Amount.Value)
	})
}

func TestDisputeEventsAreChargebacks(t *testing.T) {
	d := map[string]any{"id": "dp_1", "object": "dispute", "transaction_id": "pay_1", "merchant_reference": "order-7",
		"amount": map[string]any{"value": 1000, "currency": "EUR"}, "status": "needs_response", "reason": "fraudulent",
		"due_by": "2026-12-20T00:00:00Z"}
	it := render(t, "dispute.created", d, false)
	assert.Equal(t, "CHARGEBACK", it.EventCode)
	assert.Equal(t, "pay_1", it.PSPReference)
	assert.Equal(t, "dp_1", it.AdditionalData["disputePspReference"])
	assert.Equal(t, "Undefended", it.AdditionalData["disputeStatus"])
	assert.Equal(t, "2026-12-20T00:00:00+00:00", it.AdditionalData["defensePeriodEndsAt"])

	d["status"] = "won"
	it = render(t, "dispute.closed", d, false)
	assert.Equal(t, "CHARGEBACK_REVERSED", it.EventCode)
	assert.Equal(t, "Won", it.AdditionalData["disputeStatus"])

	d["status"], d["closed_reason"] = "lost", "expired"
	it = render(t, "dispute.closed", d, false)
	assert.Equal(t, "CHARGEBACK", it.EventCode)
	assert.Equal(t, "Expired", it.AdditionalData["disputeStatus"])
}

func TestOtherEventsAreNotRendered(t *testing.T) {
	for _, typ := range []string{"order.completed", "dispute.updated", "payment.requires_action"} {
		_, err := adyennotify.Render(adyennotify.Event{Type: typ, Created: at, Data: json.RawMessage(`{}`)}, "ShopNL", key)
		assert.Error(t, err, typ)
	}
}
