package transactions

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/openapitest"
)

// newAdyenEnv serves checkout's advanced flow, the Pay API transactions and
// their Adyen face, as the local gateway does.
func newAdyenEnv(t *testing.T, b backend) *env {
	t.Helper()
	return newEnv(t, b, checkout.BuildCheckoutPayments, func(d *app.Deps) (httpapi.Group, error) {
		return New(Config{Store: d.Store, Clock: d.Clock, Log: d.Log, Processor: cardprocessor.New()}).ModificationsGroup(), nil
	})
}

var (
	adyenOnce sync.Once
	adyenDoc  *openapitest.Validator
	adyenErr  error
)

// adyenValid checks a body against a schema of Adyen's own v71 document
// (the copy checkout's tests use), not only against ours.
func adyenValid(t *testing.T, schema string, body []byte) {
	t.Helper()
	adyenOnce.Do(func() {
		doc, err := os.ReadFile("../checkout/testdata/adyen-checkout-v71.json")
		if err != nil {
			adyenErr = err
			return
		}
		adyenDoc, adyenErr = openapitest.New("adyen", doc)
	})
	require.NoError(t, adyenErr)
	require.NoError(t, adyenDoc.ValidateSchema(schema, body), "%s: %s", schema, body)
}

// authorise pays with a sandbox card through checkout (manual: held for
// capture) and answers the pspReference.
func (e *env) authorise(t *testing.T, ref string, manual bool) string {
	t.Helper()
	var ad map[string]any
	if manual {
		ad = map[string]any{"manualCapture": "true"}
	}
	r := e.post("/v2/payments", cardPayment(ref, "4111111111111111", ad))
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, "Authorised", r.Map(t)["resultCode"])
	return r.Map(t)["pspReference"].(string)
}

// modify sends an Adyen modification with the account's merchantAccount.
func (e *env) modify(t *testing.T, path string, body map[string]any, headers ...string) *apitest.Resp {
	t.Helper()
	if _, ok := body["merchantAccount"]; !ok {
		body["merchantAccount"] = e.Account.MerchantAccount
	}
	return e.Do("POST", path, body, headers...)
}

func eur(v int64) map[string]any { return map[string]any{"value": v, "currency": "EUR"} }

// comparable drops what differs between two payments made the same way:
// ids, times, references.
func comparable(tx map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range tx {
		switch k {
		case "id", "created_at", "updated_at", "authed_at", "captured_at", "authorization_expires_at", "merchant_reference", "parent_transaction_id":
		default:
			out[k] = v
		}
	}
	return out
}

// TestAdyenFaceIsThePayAPI: a capture, a partial refund and a cancel made
// through the /v2 face show on /v1/transactions/{id} exactly as if made
// through /v1, and the other way round; each answer validates against
// Adyen's own schema.
func TestAdyenFaceIsThePayAPI(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newAdyenEnv(t, b)
		viaV2, viaV1 := e.authorise(t, "v2-1", true), e.authorise(t, "v1-1", true)

		r := e.modify(t, "/v2/payments/"+viaV2+"/captures", map[string]any{"amount": eur(6000), "reference": "cap-1"}, "Idempotency-Key", e.key())
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "PaymentCaptureResponse", r.Body)
		capture := r.Map(t)
		assert.Equal(t, "received", capture["status"])
		assert.Equal(t, viaV2, capture["paymentPspReference"])
		assert.Equal(t, "cap-1", capture["reference"])
		require.Equal(t, 200, e.post("/v1/transactions/"+viaV1+"/capture", map[string]any{"amount": 6000}).Status)

		r = e.modify(t, "/v2/payments/"+viaV2+"/refunds", map[string]any{"amount": eur(1000), "merchantRefundReason": "RETURN"}, "Idempotency-Key", e.key())
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "PaymentRefundResponse", r.Body)
		refund := r.Map(t)
		require.Equal(t, 200, e.post("/v1/transactions/"+viaV1+"/refund", map[string]any{"amount": 1000, "reason": "RETURN"}).Status)

		a, b1 := e.get(viaV2), e.get(viaV1)
		assert.Equal(t, comparable(b1), comparable(a), "the /v2 capture and refund read like the /v1 ones")
		assert.Equal(t, "partially_refunded", a["status"])
		assert.EqualValues(t, 6000, a["processed_amount"])
		assert.EqualValues(t, 1000, a["refunded_amount"])
		// The refund's pspReference is a /v1 transaction of type refund; the
		// capture's is the request that made it, in the history.
		rt := e.get(refund["pspReference"].(string))
		assert.Equal(t, "refund", rt["type"])
		assert.Equal(t, viaV2, rt["parent_transaction_id"])
		assert.Equal(t, "RETURN", rt["description"])
		var hist struct {
			Data []HistoryEntry `json:"data"`
		}
		e.Do("GET", "/v1/transactions/"+viaV2+"/history", nil).JSON(t, &hist)
		require.Len(t, hist.Data, 4)
		assert.Equal(t, capture["pspReference"], hist.Data[2].RequestID)
		assert.EqualValues(t, 6000, hist.Data[2].Amount)
		assert.Equal(t, []string{"payment.authorised", "payment.charged", "payment.partially_refunded"}, e.events(viaV2))
		assert.Equal(t, e.events(viaV1), e.events(viaV2))

		// The other way round: captured on /v1, refunded and reversed on /v2.
		mixed := e.authorise(t, "mixed-1", true)
		require.Equal(t, 200, e.post("/v1/transactions/"+mixed+"/capture", map[string]any{"amount": 4000, "final": true}).Status)
		r = e.modify(t, "/v2/payments/"+mixed+"/refunds", map[string]any{"amount": eur(1500)})
		require.Equal(t, 201, r.Status, string(r.Body)) // Idempotency-Key is optional, as at Adyen
		r = e.modify(t, "/v2/payments/"+mixed+"/reversals", map[string]any{})
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "PaymentReversalResponse", r.Body)
		tx := e.get(mixed)
		assert.Equal(t, "refunded", tx["status"])
		assert.EqualValues(t, 4000, tx["refunded_amount"])
		assert.EqualValues(t, 0, tx["balance"])
		assert.Equal(t, "refund", e.get(r.Map(t)["pspReference"].(string))["type"])

		// Cancels: on /v2 and on /v1, the same.
		c2, c1 := e.authorise(t, "cancel-2", true), e.authorise(t, "cancel-1", true)
		r = e.modify(t, "/v2/payments/"+c2+"/cancels", map[string]any{})
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "PaymentCancelResponse", r.Body)
		require.Equal(t, 200, e.post("/v1/transactions/"+c1+"/cancel", nil).Status)
		assert.Equal(t, comparable(e.get(c1)), comparable(e.get(c2)))
		assert.Equal(t, "cancelled", e.get(c2)["status"])
		assert.Equal(t, 0, e.expiryEntries(), "no hold left")
	})
}

// TestAdyenReversalOnce: a reversal of a captured payment refunds it once,
// however often it is retried with its key, also 20 copies at once; a
// reversal of a held payment cancels it.
func TestAdyenReversalOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newAdyenEnv(t, b)
		id := e.authorise(t, "rev-1", false) // captured with the authorisation
		key := e.key()
		var wg sync.WaitGroup
		bodies := make([]string, 20)
		for i := range bodies {
			wg.Go(func() {
				r := e.modify(t, "/v2/payments/"+id+"/reversals", map[string]any{"reference": "undo"}, "Idempotency-Key", key)
				bodies[i] = fmt.Sprint(r.Status, " ", string(r.Body))
			})
		}
		wg.Wait()
		for _, body := range bodies {
			assert.Equal(t, bodies[0], body, "every copy answers the one reversal")
		}
		for range 3 {
			r := e.modify(t, "/v2/payments/"+id+"/reversals", map[string]any{"reference": "undo"}, "Idempotency-Key", key)
			require.Equal(t, 201, r.Status, string(r.Body))
			assert.Equal(t, bodies[0], fmt.Sprint(r.Status, " ", string(r.Body)))
		}
		tx := e.get(id)
		assert.Equal(t, "refunded", tx["status"])
		assert.EqualValues(t, 10000, tx["refunded_amount"])
		refunds := 0
		for _, x := range e.list(t) {
			if x["type"] == "refund" {
				refunds++
				assert.EqualValues(t, 10000, x["amount"])
			}
		}
		assert.Equal(t, 1, refunds, "one refund")
		// A new key finds nothing left to reverse.
		r := e.modify(t, "/v2/payments/"+id+"/reversals", map[string]any{}, "Idempotency-Key", e.key())
		assert.Equal(t, 409, r.Status, string(r.Body))

		held := e.authorise(t, "rev-2", true)
		r = e.modify(t, "/v2/payments/"+held+"/reversals", map[string]any{})
		require.Equal(t, 201, r.Status, string(r.Body))
		assert.Equal(t, held, r.Map(t)["paymentPspReference"])
		assert.Equal(t, "cancelled", e.get(held)["status"])
	})
}

// TestAdyenAmountUpdateAndCancelByReference: amountUpdates on a held
// payment, and the standalone cancel by merchant reference.
func TestAdyenAmountUpdateAndCancelByReference(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newAdyenEnv(t, b)
		held := e.authorise(t, "hotel-1", true)
		expires := e.get(held)["authorization_expires_at"]
		r := e.modify(t, "/v2/payments/"+held+"/amountUpdates", map[string]any{"amount": eur(12500), "industryUsage": "delayedCharge"})
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "PaymentAmountUpdateResponse", r.Body)
		tx := e.get(held)
		assert.Equal(t, "authorized", tx["status"])
		assert.EqualValues(t, 12500, tx["amount"])
		assert.EqualValues(t, 12500, tx["capturable_amount"])
		assert.Equal(t, expires, tx["authorization_expires_at"], "the hold's expiry does not restart")
		assert.Equal(t, 1, e.expiryEntries())
		assert.Equal(t, []string{"payment.authorised", "payment.amount_updated"}, e.events(held))
		require.Equal(t, 200, e.post("/v1/transactions/"+held+"/capture", nil).Status)
		assert.EqualValues(t, 12500, e.get(held)["processed_amount"])
		r = e.modify(t, "/v2/payments/"+held+"/amountUpdates", map[string]any{"amount": eur(100)})
		assert.Equal(t, 409, r.Status, "a captured payment's amount is fixed: %s", r.Body)

		// Cancel by reference: the newest authorised payment of the reference.
		old := e.authorise(t, "order-77", false) // charged: not cancellable
		toCancel := e.authorise(t, "order-77", true)
		r = e.modify(t, "/v2/cancels", map[string]any{"paymentReference": "order-77", "reference": "timeout"})
		require.Equal(t, 201, r.Status, string(r.Body))
		adyenValid(t, "StandalonePaymentCancelResponse", r.Body)
		assert.Equal(t, "cancelled", e.get(toCancel)["status"])
		assert.Equal(t, "charged", e.get(old)["status"])
		r = e.modify(t, "/v2/cancels", map[string]any{"paymentReference": "order-77"})
		assert.Equal(t, 409, r.Status, "nothing authorised is left: %s", r.Body)
		r = e.modify(t, "/v2/cancels", map[string]any{"paymentReference": "no-such-order"})
		assert.Equal(t, 404, r.Status, string(r.Body))
	})
}

// TestAdyenBadInput: each bad request is a 4xx naming the field, and
// changes nothing; another account's payment is a 404 on every route.
func TestAdyenBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newAdyenEnv(t, b)
		held := e.authorise(t, "bad-1", true)
		charged := e.authorise(t, "bad-2", false)
		cases := []struct {
			name, path string
			body       map[string]any
			status     int
			param      string
		}{
			{"capture without amount", "/v2/payments/" + held + "/captures", map[string]any{}, 400, "amount"},
			{"capture above the hold", "/v2/payments/" + held + "/captures", map[string]any{"amount": eur(10001)}, 400, "amount.value"},
			{"capture of zero", "/v2/payments/" + held + "/captures", map[string]any{"amount": eur(0)}, 400, "amount.value"},
			{"capture in another currency", "/v2/payments/" + held + "/captures", map[string]any{"amount": map[string]any{"value": 100, "currency": "USD"}}, 400, "amount.currency"},
			{"refund above what is left", "/v2/payments/" + charged + "/refunds", map[string]any{"amount": eur(10001)}, 400, "amount.value"},
			{"refund of a held payment", "/v2/payments/" + held + "/refunds", map[string]any{"amount": eur(100)}, 409, ""},
			{"refund reason not Adyen's", "/v2/payments/" + charged + "/refunds", map[string]any{"amount": eur(100), "merchantRefundReason": "BORED"}, 400, "merchantRefundReason"},
			{"cancel of a captured payment", "/v2/payments/" + charged + "/cancels", map[string]any{}, 409, ""},
			{"another merchant account", "/v2/payments/" + held + "/cancels", map[string]any{"merchantAccount": "SomeoneElse"}, 400, "merchantAccount"},
			{"no merchant account", "/v2/payments/" + held + "/cancels", map[string]any{"merchantAccount": ""}, 400, "merchantAccount"},
			{"pspReference not a UUID", "/v2/payments/ABC123/captures", map[string]any{"amount": eur(100)}, 400, "paymentPspReference"},
			{"unknown field", "/v2/payments/" + held + "/captures", map[string]any{"amount": eur(100), "splits": []any{}}, 400, "splits"},
			{"cancel by reference without one", "/v2/cancels", map[string]any{}, 400, "paymentReference"},
			{"amount update past the maximum", "/v2/payments/" + held + "/amountUpdates", map[string]any{"amount": eur(1_000_000_000_000_001)}, 400, "amount.value"},
			{"amount update of a captured payment", "/v2/payments/" + charged + "/amountUpdates", map[string]any{"amount": eur(500)}, 409, ""},
		}
		before := e.list(t)
		for _, c := range cases {
			r := e.modify(t, c.path, c.body, "Idempotency-Key", e.key())
			require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
			if c.param != "" {
				_, param, _ := errParam(t, r)
				assert.Equal(t, c.param, param, c.name)
			}
		}
		assert.Equal(t, before, e.list(t), "nothing changed")

		other, otherKey := e.NewAccount(accounts.Test)
		for _, route := range []string{"captures", "refunds", "cancels", "reversals", "amountUpdates"} {
			r := e.DoKey(otherKey, "POST", "/v2/payments/"+held+"/"+route,
				map[string]any{"merchantAccount": other.MerchantAccount, "amount": eur(100)}, "Idempotency-Key", e.key())
			if route == "cancels" || route == "reversals" {
				r = e.DoKey(otherKey, "POST", "/v2/payments/"+held+"/"+route, map[string]any{"merchantAccount": other.MerchantAccount}, "Idempotency-Key", e.key())
			}
			assert.Equal(t, 404, r.Status, "%s: %s", route, r.Body)
		}
		r := e.DoKey(otherKey, "POST", "/v2/cancels", map[string]any{"merchantAccount": other.MerchantAccount, "paymentReference": "bad-1"})
		assert.Equal(t, 404, r.Status, string(r.Body))
		assert.Equal(t, before, e.list(t), "nothing changed")
	})
}
