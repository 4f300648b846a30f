package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// adyenReceiver answers each notification with the body answer(n) gives the
// n-th (1-based), status 200.
type adyenReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func newAdyenReceiver(t *testing.T, answer func(n int) string) *adyenReceiver {
	rc := &adyenReceiver{}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.bodies = append(rc.bodies, b)
		n := len(rc.bodies)
		rc.mu.Unlock()
		_, _ = w.Write([]byte(answer(n)))
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *adyenReceiver) got() [][]byte {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([][]byte(nil), rc.bodies...)
}

// adyenEndpoint registers an Adyen-format endpoint and returns its id and
// HMAC key (the answer has no secret).
func (p *pipe) adyenEndpoint(t *testing.T, url string, evs []string) (string, string) {
	r := p.Do("POST", "/v1/webhook-endpoints", map[string]any{"url": url, "enabled_events": evs, "format": "adyen"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	m := r.Map(t)
	assert.Equal(t, "adyen", m["format"])
	assert.NotContains(t, m, "secret")
	assert.Regexp(t, `^[0-9A-F]{64}$`, m["hmac_key"])
	return m["id"].(string), m["hmac_key"].(string)
}

// publishCapture writes a payment.charged event (a capture of 400 of a
// 1000 EUR authorisation, as the payments package writes it) and hands it to
// the publisher.
func (p *pipe) publishCapture(t *testing.T) (eventID, paymentID string) {
	now := time.Now().UTC()
	pay := payments.New(payments.Payment{ID: "pay_" + t.Name()[len(t.Name())-8:], AccountID: p.Account.ID, Amount: 1000, Currency: "EUR",
		PaymentMethod: "mc", MerchantReference: "order-42", CaptureMode: payments.CaptureManual}, now)
	require.NoError(t, pay.Authorise("", now))
	amount := int64(400)
	require.NoError(t, pay.Capture(payments.Op{Amount: &amount, RequestID: "req_capture1"}, now))
	op, err := eventlog.Append(eventlog.Event{Type: "payment.charged", Account: p.Account.ID, At: now, Data: pay.Public()})
	require.NoError(t, err)
	require.NoError(t, p.Deps.Store.Write(context.Background(), op))
	it, err := p.Deps.Store.Get(context.Background(), eventlog.Key(p.Account.ID, op.Item.SK))
	require.NoError(t, err)
	_, err = p.pub.Publish(context.Background(), it)
	require.NoError(t, err)
	return op.Item.SK, pay.ID
}

// An Adyen-format endpoint gets Adyen's NotificationRequest, its item signed
// with the endpoint's HMAC key; a 200 without "[accepted]" is a failed
// attempt, retried until the receiver accepts.
func TestAdyenFormatDeliversSignedNotificationsUntilAccepted(t *testing.T) {
	bothPipes(t, fast, func(t *testing.T, p *pipe) {
		rc := newAdyenReceiver(t, func(n int) string {
			if n == 1 {
				return "ok" // a 2xx that does not accept
			}
			return "[accepted]"
		})
		ep, key := p.adyenEndpoint(t, rc.srv.URL+"/notifications", []string{"*"})
		_, payID := p.publishCapture(t)
		p.pump(t, liveness, func() bool { return len(p.attempts(t, ep)) == 2 })

		bodies := rc.got()
		require.Len(t, bodies, 2)
		for _, b := range bodies {
			var req adyen.NotificationRequest
			require.NoError(t, json.Unmarshal(b, &req))
			assert.Equal(t, "false", req.Live)
			require.Len(t, req.NotificationItems, 1)
			it := req.NotificationItems[0].NotificationRequestItem
			assert.True(t, it.Valid(key), "signed with the endpoint's key")
			assert.Equal(t, "CAPTURE", it.EventCode)
			assert.Equal(t, "req_capture1", it.PSPReference)
			assert.Equal(t, payID, it.OriginalReference)
			assert.Equal(t, p.Account.MerchantAccount, it.MerchantAccountCode)
			assert.Equal(t, adyen.Amount{Value: 400, Currency: "EUR"}, it.Amount)
			assert.Equal(t, "true", it.Success)
		}
		as := p.attempts(t, ep) // newest first
		assert.Equal(t, "succeeded", as[0]["status"])
		assert.Equal(t, "failed", as[1]["status"])
		assert.Equal(t, float64(200), as[1]["status_code"], "the answer's status is kept")
		assert.Contains(t, as[1]["error"], "[accepted]")
	})
}

// "*" on an Adyen-format endpoint means the types Adyen has a code for: an
// order event reaches the Paygate-format endpoint only.
func TestAdyenFormatSkipsEventsWithoutAnAdyenCode(t *testing.T) {
	p := newPipe(t, apitest.Options{}, fast)
	rc := newAdyenReceiver(t, func(int) string { return "[accepted]" })
	adyenEP, _ := p.adyenEndpoint(t, rc.srv.URL, []string{"*"})
	plain := newReceiver(t, always(200))
	plainEP, _ := p.endpoint(t, plain.srv.URL, []string{"*"}, nil)
	p.publish(t) // order.completed
	p.pump(t, liveness, func() bool { return len(p.attempts(t, plainEP)) == 1 })
	assert.Empty(t, p.attempts(t, adyenEP))
	assert.Empty(t, rc.got())

	// Resending that event to the Adyen-format endpoint is refused.
	evs := events(t, p.Env, p.Key, "type=order.completed")
	require.NotEmpty(t, evs.Data)
	r := p.Do("POST", "/v1/events/"+evs.Data[0]["id"].(string)+"/resend", map[string]any{"endpoint_id": adyenEP})
	assert.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "event_type_not_in_format", r.Err(t)["code"])
}

func TestAdyenFormatEndpointRules(t *testing.T) {
	e := apitest.New(t, buildEndpoints)
	for name, c := range map[string]struct {
		body        map[string]any
		code, param string
	}{
		"unknown format": {map[string]any{"format": "stripe"}, "parameter_invalid", "format"},
		"an order event": {map[string]any{"format": "adyen", "enabled_events": []any{"payment.charged", "order.completed"}},
			"event_type_not_in_format", "enabled_events"},
		"an api_version": {map[string]any{"format": "adyen", "api_version": "2024-01-15"}, "parameter_invalid", "api_version"},
	} {
		t.Run(name, func(t *testing.T) {
			body := map[string]any{"url": "https://hooks.example.com/adyen", "enabled_events": []any{"*"}}
			for k, v := range c.body {
				body[k] = v
			}
			r := e.Do("POST", "/v1/webhook-endpoints", body)
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, c.code, r.Err(t)["code"])
			assert.Equal(t, c.param, r.Err(t)["param"])
		})
	}

	r := e.Do("POST", "/v1/webhook-endpoints", map[string]any{"url": "https://hooks.example.com/adyen",
		"enabled_events": []any{"payment.authorised"}, "format": "adyen"})
	require.Equal(t, 201, r.Status, "%s", r.Body)
	created := r.Map(t)
	id, key := created["id"].(string), created["hmac_key"].(string)

	// Updating to a type without an Adyen code is refused; the format stays.
	r = e.Do("POST", "/v1/webhook-endpoints/"+id, map[string]any{"enabled_events": []any{"deposit.posted"}})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "event_type_not_in_format", r.Err(t)["code"])
	r = e.Do("POST", "/v1/webhook-endpoints/"+id, map[string]any{"format": "paygate"})
	assert.Equal(t, 400, r.Status, "the format is fixed at creation: %s", r.Body)

	// Rolling gives a new HMAC key, shown once, under its own name.
	r = e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 0})
	require.Equal(t, 200, r.Status, "%s", r.Body)
	rolled := r.Map(t)
	assert.Regexp(t, `^[0-9A-F]{64}$`, rolled["hmac_key"])
	assert.NotEqual(t, key, rolled["hmac_key"])
	assert.NotContains(t, rolled, "secret")

	// Reads show the format and never the key.
	r = e.Do("GET", "/v1/webhook-endpoints/"+id, nil)
	require.Equal(t, 200, r.Status)
	got := r.Map(t)
	assert.Equal(t, "adyen", got["format"])
	assert.NotContains(t, got, "hmac_key")
	r = e.Do("POST", "/v1/webhook-endpoints", map[string]any{"url": "https://hooks.example.com/x", "enabled_events": []any{"*"}})
	require.Equal(t, 201, r.Status)
	assert.Equal(t, "paygate", r.Map(t)["format"], "the default format")

	// The sender signs with the current key.
	svc := webhooks.New(e.Deps.Store, e.Deps.Clock)
	ep, err := svc.Get(context.Background(), e.Account.ID, id)
	require.NoError(t, err)
	ep, err = svc.Opened(context.Background(), ep) // stored sealed
	require.NoError(t, err)
	assert.Equal(t, rolled["hmac_key"], ep.Secret)
}
