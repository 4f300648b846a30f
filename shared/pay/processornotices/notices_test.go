package processornotices

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, st func(testing.TB, func() time.Time) store.Store)) {
	t.Run("embedded", func(t *testing.T) {
		f(t, func(testing.TB, func() time.Time) store.Store { return nil })
	})
	t.Run("dynamodb", func(t *testing.T) {
		f(t, func(t testing.TB, now func() time.Time) store.Store { return dynamotest.New(t, now) })
	})
}

// connectorKeys is the connectors the tests configure: id -> account, key.
type connectorKeys struct {
	mu sync.Mutex
	m  map[string][2]string
}

func (k *connectorKeys) NotificationKey(_ context.Context, id string) (string, string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	v, ok := k.m[id]
	if !ok {
		return "", "", apierr.NotFoundf("no such connector: %s", id)
	}
	return v[0], v[1], nil
}

// counter records the alarm metrics counted.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *counter) count(name string) { c.mu.Lock(); c.n[name]++; c.mu.Unlock() }

func (c *counter) get(name string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[name] }

const hmacKey = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"

type env struct {
	*apitest.Env
	svc     *Service
	conn    string // the connector of the sandbox account
	keys    *connectorKeys
	counted *counter
}

func newEnv(t *testing.T, st func(testing.TB, func() time.Time) store.Store) *env {
	return newEnvWith(t, st, false)
}

// newEnvWith is newEnv; withDisputes opens chargebacks' disputes through
// the disputes area, as the function does.
func newEnvWith(t *testing.T, st func(testing.TB, func() time.Time) store.Store, withDisputes bool) *env {
	t.Helper()
	e := &env{conn: "conn_" + ids.New()[:8], keys: &connectorKeys{m: map[string][2]string{}}, counted: &counter{n: map[string]int{}}}
	clock := &apitest.Clock{}
	clock.Set(time.Now().UTC().Truncate(time.Millisecond))
	build := func(d *app.Deps) (httpapi.Group, error) {
		cfg := Config{Store: d.Store, Keys: e.keys, Clock: d.Clock, Log: d.Log, Count: e.counted.count}
		if withDisputes {
			cbs, err := disputes.FromDeps(d)
			if err != nil {
				return httpapi.Group{}, err
			}
			cfg.Chargebacks = cbs
		}
		e.svc = New(cfg)
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: st(t, clock.Now), Clock: clock}, build)
	e.keys.m[e.conn] = [2]string{e.Account.ID, hmacKey}
	return e
}

// payment stores a captured payment of account made through connector
// conn with the processor's reference ref, and returns it.
func (e *env) payment(account, conn, ref string) *payments.Payment {
	e.T.Helper()
	now := e.Clock.Now()
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: account, Amount: 1000, Currency: "EUR",
		PaymentMethod: "visa", MerchantReference: "order-" + ids.New()[:8]}, now)
	p.Flow.Connector, p.Flow.ProcessorRef = conn, ref
	require.NoError(e.T, p.Transition(payments.Authorized, "", now))
	captured := int64(1000)
	require.NoError(e.T, p.Capture(payments.Op{Amount: &captured}, now))
	require.NoError(e.T, payments.NewRepo(e.Deps.Store).Save(context.Background(), p))
	return e.readOf(account, p.ID)
}

func (e *env) read(id string) *payments.Payment { e.T.Helper(); return e.readOf(e.Account.ID, id) }

func (e *env) readOf(account, id string) *payments.Payment {
	e.T.Helper()
	p, err := payments.NewRepo(e.Deps.Store).Get(context.Background(), account, id)
	require.NoError(e.T, err)
	return p
}

// item is a signed item about payment id.
func item(code, psp, original, id, success string) adyen.NotificationRequestItem {
	it := adyen.NotificationRequestItem{EventCode: code, PSPReference: psp, OriginalReference: original,
		MerchantReference: id, MerchantAccountCode: "ShopNL", Amount: adyen.Amount{Value: 1000, Currency: "EUR"},
		Success: success, EventDate: "2026-11-29T10:00:00+01:00"}
	if err := it.Sign(hmacKey); err != nil {
		panic(err)
	}
	return it
}

func request(items ...adyen.NotificationRequestItem) adyen.NotificationRequest {
	req := adyen.NotificationRequest{Live: "false"}
	for _, it := range items {
		req.NotificationItems = append(req.NotificationItems, adyen.NotificationItem{NotificationRequestItem: it})
	}
	return req
}

func (e *env) post(conn string, body any) *apitest.Resp {
	e.T.Helper()
	return e.DoKey("", "POST", "/webhooks/adyen/"+conn, body)
}

func (e *env) accepted(conn string, body any) {
	e.T.Helper()
	r := e.post(conn, body)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	assert.Equal(e.T, adyen.Accepted, string(r.Body))
	assert.True(e.T, strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain"), r.Header.Get("Content-Type"))
}

// notice is the stored record of it, nil when none.
func (e *env) notice(conn string, it adyen.NotificationRequestItem) *record {
	e.T.Helper()
	got, err := e.Deps.Store.Get(context.Background(), noticeKey(conn, it))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	require.NoError(e.T, err)
	var r record
	require.NoError(e.T, json.Unmarshal(got.Data, &r))
	return &r
}

// logged reports whether the run's logs hold a line with every part.
func logged(parts ...string) bool {
	for _, line := range strings.Split(apitest.Logs.String(), "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(line, p)
		}
		if all {
			return true
		}
	}
	return false
}

// A successful CAPTURE confirms the capture once: the notice is recorded
// with the payment, the payment is marked and nothing else changes; the
// same notice again changes nothing and is accepted.
func TestCaptureIsAppliedOnceAndItsDuplicateChangesNothing(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-1")
		it := item(adyen.EventCapture, "PSP-CAP-1", "PSP-AUTH-1", p.ID, "true")
		e.accepted(e.conn, request(it))

		after := e.read(p.ID)
		assert.Equal(t, []string{"CAPTURE:PSP-CAP-1:true"}, after.Flow.ProcessorNotices)
		assert.Equal(t, p.Status, after.Status)
		assert.Equal(t, p.ProcessedAmount, after.ProcessedAmount)
		assert.Equal(t, p.RefundedAmount, after.RefundedAmount)
		assert.Equal(t, p.History, after.History)
		rec := e.notice(e.conn, it)
		require.NotNil(t, rec)
		assert.Equal(t, Confirmed, rec.Outcome)
		assert.Equal(t, p.ID, rec.PaymentID)
		assert.Equal(t, e.Account.ID, rec.AccountID)
		assert.Equal(t, "PSP-AUTH-1", rec.OriginalReference)

		e.accepted(e.conn, request(it)) // Adyen's resend
		again := e.read(p.ID)
		assert.Equal(t, after.Version(), again.Version(), "a duplicate writes nothing")
		assert.Equal(t, []string{"CAPTURE:PSP-CAP-1:true"}, again.Flow.ProcessorNotices)
		assert.Equal(t, 0, e.counted.get(metrics.ProcessorNoticesAlarmed)+e.counted.get(metrics.ProcessorNoticesUnmatched))

		// REFUND and CANCELLATION confirm the same way; one request may
		// carry several items.
		refund := item(adyen.EventRefund, "PSP-REF-1", "PSP-AUTH-1", p.ID, "true")
		cancel := item(adyen.EventCancellation, "PSP-CAN-1", "PSP-AUTH-1", p.ID, "true")
		e.accepted(e.conn, request(refund, cancel))
		assert.Equal(t, []string{"CAPTURE:PSP-CAP-1:true", "REFUND:PSP-REF-1:true", "CANCELLATION:PSP-CAN-1:true"},
			e.read(p.ID).Flow.ProcessorNotices)
		assert.Equal(t, Confirmed, e.notice(e.conn, refund).Outcome)
	})
}

// Concurrent deliveries of one notice record it once.
func TestConcurrentDuplicatesRecordOnce(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-2")
		it := item(adyen.EventCapture, "PSP-CAP-2", "PSP-AUTH-2", p.ID, "true")
		var wg sync.WaitGroup
		statuses := make([]int, 4)
		for i := range statuses {
			wg.Go(func() { statuses[i] = e.post(e.conn, request(it)).Status })
		}
		wg.Wait()
		assert.Equal(t, []int{200, 200, 200, 200}, statuses)
		assert.Equal(t, []string{"CAPTURE:PSP-CAP-2:true"}, e.read(p.ID).Flow.ProcessorNotices)
	})
}

// One item without a valid signature refuses the request: nothing of it
// is recorded, not even the items signed well.
func TestABadSignatureRecordsNothing(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-3")
		good := item(adyen.EventCapture, "PSP-CAP-3", "PSP-AUTH-3", p.ID, "true")
		tampered := item(adyen.EventRefund, "PSP-REF-3", "PSP-AUTH-3", p.ID, "true")
		tampered.Amount.Value = 999999 // signed for 1000
		unsigned := item(adyen.EventRefund, "PSP-REF-4", "PSP-AUTH-3", p.ID, "true")
		delete(unsigned.AdditionalData, adyen.HMACSignature)
		otherKey := item(adyen.EventRefund, "PSP-REF-5", "PSP-AUTH-3", p.ID, "true")
		require.NoError(t, otherKey.Sign("0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0"))
		for _, bad := range []adyen.NotificationRequestItem{tampered, unsigned, otherKey} {
			r := e.post(e.conn, request(good, bad))
			require.Equal(t, 401, r.Status, "%s", r.Body)
			assert.Equal(t, "invalid_hmac_signature", r.Err(t)["code"])
			assert.Nil(t, e.notice(e.conn, good))
			assert.Nil(t, e.notice(e.conn, bad))
		}
		assert.Equal(t, p.Version(), e.read(p.ID).Version(), "the payment is untouched")
		assert.Empty(t, e.read(p.ID).Flow.ProcessorNotices)
	})
}

// An unknown connector is the documented 404; a body that is not a
// NotificationRequest is a 400; neither records anything.
func TestUnknownConnectorAndMalformedBodies(t *testing.T) {
	e := newEnv(t, func(testing.TB, func() time.Time) store.Store { return nil })
	p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-4")
	it := item(adyen.EventCapture, "PSP-CAP-4", "PSP-AUTH-4", p.ID, "true")
	r := e.post("conn_nobody", request(it))
	require.Equal(t, 404, r.Status, "%s", r.Body)
	assert.Equal(t, "unknown_connector", r.Err(t)["code"])
	assert.Nil(t, e.notice("conn_nobody", it))

	type bad struct {
		body        any
		code, param string
	}
	const at = "notificationItems[0].NotificationRequestItem."
	for name, c := range map[string]bad{
		"not JSON":        {`{"live": "false", "notificationItems": [`, "body_invalid", ""},
		"two values":      {`{"live":"false","notificationItems":[]} {}`, "body_invalid", ""},
		"items null":      {request(), "parameter_invalid_type", "notificationItems"},
		"no items":        {`{"live":"false","notificationItems":[]}`, "invalid_notification", "notificationItems"},
		"unknown field":   {`{"live":"false","notificationItems":[],"extra":1}`, "parameter_unknown", "extra"},
		"live not a bool": {adyen.NotificationRequest{Live: "yes", NotificationItems: request(it).NotificationItems}, "invalid_notification", "live"},
		"amount a string": {`{"live":"false","notificationItems":[{"NotificationRequestItem":{"amount":{"value":"x"}}}]}`, "parameter_invalid_type", at + "amount.value"},
		"no eventCode":    {request(item("", "PSP-CAP-4", "PSP-AUTH-4", p.ID, "true")), "invalid_notification", at + "eventCode"},
		"no pspReference": {request(item(adyen.EventCapture, "", "PSP-AUTH-4", p.ID, "true")), "invalid_notification", at + "pspReference"},
		"success other":   {request(item(adyen.EventCapture, "PSP-CAP-4", "PSP-AUTH-4", p.ID, "TRUE")), "invalid_notification", at + "success"},
		"reference long":  {request(item(adyen.EventCapture, strings.Repeat("9", 129), "PSP-AUTH-4", p.ID, "true")), "", at + "pspReference"},
	} {
		r := e.post(e.conn, c.body)
		require.Equal(t, 400, r.Status, "%s: %s", name, r.Body)
		if c.code != "" {
			assert.Equal(t, c.code, r.Err(t)["code"], "%s: %s", name, r.Body)
		}
		if c.param != "" {
			assert.Equal(t, c.param, r.Err(t)["param"], "%s: %s", name, r.Body)
		}
	}
	// The service's own check holds for a caller without the HTTP layer.
	_, err := e.svc.Receive(t.Context(), e.conn, request(item(adyen.EventCapture, strings.Repeat("9", 129), "PSP-AUTH-4", p.ID, "true")))
	assert.True(t, apierr.HasCode(err, CodeInvalidNotification), "%v", err)
	assert.Nil(t, e.notice(e.conn, it))
	assert.Equal(t, p.Version(), e.read(p.ID).Version())
}

// A notice that matches no payment of the connector (unknown payment,
// another connector's, another processor reference, another account's) is
// recorded as unmatched, alarmed once and accepted.
func TestUnmatchedNoticesAreRecordedAndAlarmed(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		mine := e.payment(e.Account.ID, e.conn, "PSP-AUTH-5")
		others := e.payment(e.Account.ID, "conn_other", "PSP-AUTH-6")
		other, _ := e.NewAccount(accounts.Test)
		theirs := e.payment(other.ID, e.conn, "PSP-AUTH-7")
		items := []adyen.NotificationRequestItem{
			item(adyen.EventCapture, "PSP-CAP-5", "PSP-AUTH-5", ids.New(), "true"),        // no such payment
			item(adyen.EventCapture, "PSP-CAP-6", "PSP-AUTH-6", others.ID, "true"),        // another connector's
			item(adyen.EventCapture, "PSP-CAP-7", "PSP-AUTH-OTHER", mine.ID, "true"),      // another reference
			item(adyen.EventCapture, "PSP-CAP-8", "PSP-AUTH-7", theirs.ID, "true"),        // another account's
			item(adyen.EventAuthorisation, "PSP-AUTH-OTHER", "", mine.ID, "true"),         // AUTHORISATION names pspReference
			item(adyen.EventCapture, "PSP-CAP-9", "PSP-AUTH-5", "not/an\u00e9id", "true"), // not an id at all
		}
		e.accepted(e.conn, request(items...))
		for _, it := range items {
			rec := e.notice(e.conn, it)
			require.NotNil(t, rec, it.PSPReference)
			assert.Equal(t, Unmatched, rec.Outcome, it.PSPReference)
			assert.Empty(t, rec.PaymentID)
			assert.True(t, logged(`"level":"ERROR"`, "processor notice unmatched", it.PSPReference), it.PSPReference)
		}
		assert.Equal(t, len(items), e.counted.get(metrics.ProcessorNoticesUnmatched))
		assert.Empty(t, e.read(mine.ID).Flow.ProcessorNotices)
		assert.Empty(t, e.read(others.ID).Flow.ProcessorNotices)
		assert.Empty(t, e.readOf(other.ID, theirs.ID).Flow.ProcessorNotices)

		e.accepted(e.conn, request(items...)) // resent: no second alarm
		assert.Equal(t, len(items), e.counted.get(metrics.ProcessorNoticesUnmatched))
	})
}

// CAPTURE_FAILED, REFUND_FAILED and success=false are recorded, marked and
// alarmed for an operator; no amount changes.
func TestFailedModificationsAreRecordedAndAlarmed(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-8")
		items := []adyen.NotificationRequestItem{
			item(adyen.EventCaptureFailed, "PSP-CAP-10", "PSP-AUTH-8", p.ID, "true"),
			item(adyen.EventRefundFailed, "PSP-REF-10", "PSP-AUTH-8", p.ID, "true"),
			item(adyen.EventRefund, "PSP-REF-11", "PSP-AUTH-8", p.ID, "false"),
		}
		e.accepted(e.conn, request(items...))
		after := e.read(p.ID)
		assert.Equal(t, []string{"CAPTURE_FAILED:PSP-CAP-10:true", "REFUND_FAILED:PSP-REF-10:true", "REFUND:PSP-REF-11:false"},
			after.Flow.ProcessorNotices)
		assert.Equal(t, p.Status, after.Status)
		assert.Equal(t, p.ProcessedAmount, after.ProcessedAmount)
		assert.Equal(t, p.RefundedAmount, after.RefundedAmount)
		for _, it := range items {
			assert.Equal(t, Failed, e.notice(e.conn, it).Outcome)
			assert.True(t, logged(`"level":"ERROR"`, "needs an operator", "settle the difference by hand", it.PSPReference, p.ID))
		}
		assert.Equal(t, 3, e.counted.get(metrics.ProcessorNoticesAlarmed))
	})
}

// A CHARGEBACK names the payment by pspReference: recorded, marked and
// alarmed (no dispute is opened here, see the package doc).
func TestChargebackIsRecordedAndAlarmed(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnv(t, st)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-9")
		cb := item(adyen.EventChargeback, "PSP-AUTH-9", "", p.ID, "true")
		cb.AdditionalData = map[string]string{"disputePspReference": "DSP-1", "disputeStatus": "Undefended"}
		require.NoError(t, cb.Sign(hmacKey))
		auth := item(adyen.EventAuthorisation, "PSP-AUTH-9", "", p.ID, "true")
		e.accepted(e.conn, request(auth, cb))
		after := e.read(p.ID)
		assert.Equal(t, []string{"AUTHORISATION:PSP-AUTH-9:true", "CHARGEBACK:PSP-AUTH-9:true"}, after.Flow.ProcessorNotices)
		assert.Nil(t, after.Dispute)
		assert.Equal(t, p.Status, after.Status)
		assert.Equal(t, Recorded, e.notice(e.conn, auth).Outcome)
		assert.Equal(t, Chargeback, e.notice(e.conn, cb).Outcome)
		assert.True(t, logged(`"level":"ERROR"`, "chargeback", "PSP-AUTH-9", p.ID))
		assert.Equal(t, 1, e.counted.get(metrics.ProcessorNoticesAlarmed))
	})
}

// A chargeback opens the payment's dispute, once: the notice sent again,
// or twice at once, finds the dispute and opens no other.
func TestChargebackOpensThePaymentsDisputeOnce(t *testing.T) {
	stores(t, func(t *testing.T, st func(testing.TB, func() time.Time) store.Store) {
		e := newEnvWith(t, st, true)
		p := e.payment(e.Account.ID, e.conn, "PSP-AUTH-10")
		cb := item(adyen.EventChargeback, "PSP-AUTH-10", "", p.ID, "true")
		cb.Amount = adyen.Amount{Value: 400, Currency: "EUR"}
		require.NoError(t, cb.Sign(hmacKey))
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() { defer wg.Done(); e.accepted(e.conn, request(cb)) }()
		}
		wg.Wait()
		after := e.read(p.ID)
		require.NotNil(t, after.Dispute, "the chargeback opened the payment's dispute")
		rec := e.notice(e.conn, cb)
		assert.Equal(t, Chargeback, rec.Outcome)
		assert.Equal(t, after.Dispute.ID, rec.DisputeID)
		svc, err := disputes.FromDeps(e.Deps)
		require.NoError(t, err)
		d, err := svc.Get(context.Background(), e.Account.ID, after.Dispute.ID)
		require.NoError(t, err)
		assert.EqualValues(t, 400, d.Amount.Value, "the chargeback's amount")
		assert.Equal(t, []string{"CHARGEBACK:PSP-AUTH-10:true"}, after.Flow.ProcessorNotices, "recorded once")
		assert.Equal(t, 0, e.counted.get(metrics.ProcessorNoticesAlarmed), "a dispute opened needs no operator")
	})
}

// What the service's own Adyen face sends (shared/console/webhooks/
// adyennotify, signing with the shared algorithm) this route verifies and
// applies: the upstream payment's id is our payment's processor reference,
// its merchant reference our payment's id.
func TestWhatAdyennotifySignsIsVerifiedHere(t *testing.T) {
	e := newEnv(t, func(testing.TB, func() time.Time) store.Store { return nil })
	ours := e.payment(e.Account.ID, e.conn, ids.New())
	now := e.Clock.Now()
	upstream := payments.New(payments.Payment{ID: ours.Flow.ProcessorRef, AccountID: "upstream", Amount: 1000, Currency: "EUR",
		PaymentMethod: "visa", MerchantReference: ours.ID}, now)
	require.NoError(t, upstream.Transition(payments.Authorized, "", now))
	captured := int64(1000)
	require.NoError(t, upstream.Capture(payments.Op{Amount: &captured}, now))
	for _, typ := range []string{"payment.authorised", "payment.charged"} {
		data, err := json.Marshal(upstream)
		require.NoError(t, err)
		body, err := adyennotify.Render(adyennotify.Event{Type: typ, Created: now, Data: data}, "ShopNL", hmacKey)
		require.NoError(t, err)
		e.accepted(e.conn, body)
	}
	marks := e.read(ours.ID).Flow.ProcessorNotices
	require.Len(t, marks, 2)
	assert.Equal(t, "AUTHORISATION:"+upstream.ID+":true", marks[0])
	assert.True(t, strings.HasPrefix(marks[1], "CAPTURE:"), marks[1])

	// Signed with another key, the same body is refused.
	data, _ := json.Marshal(upstream)
	body, err := adyennotify.Render(adyennotify.Event{Type: "payment.refunded", Created: now, Data: data}, "ShopNL", adyennotify.NewKey())
	require.NoError(t, err)
	assert.Equal(t, 401, e.post(e.conn, body).Status)
}

// The function's builder reads a connector's HMAC key from its record,
// sealed by the secret box; without the secret box, every connector is
// unknown.
func TestTheBuilderReadsTheConnectorsRecord(t *testing.T) {
	e := apitest.New(t, BuildProcessorNotices)
	c, err := connectors.NewRepo(e.Deps.Store, e.Deps.Secrets, nil).Set(context.Background(), connectors.Connector{
		Account: e.Account.ID, Kind: "adyen", Mode: "test", URL: "https://checkout-test.adyen.com/v71", MerchantAccount: "ShopECOM",
	}, connectors.Keys{APIKey: "AQE-test-api-key", HMACKey: hmacKey})
	require.NoError(t, err)
	it := item(adyen.EventCapture, "PSP-CAP-20", "PSP-AUTH-20", ids.New(), "true")
	r := e.DoKey("", "POST", "/webhooks/adyen/"+c.ID, request(it))
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, adyen.Accepted, string(r.Body))
	assert.Equal(t, 404, e.DoKey("", "POST", "/webhooks/adyen/conn_other", request(it)).Status)

	d := *e.Deps
	d.Secrets = nil
	g, err := BuildProcessorNotices(&d)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/webhooks/adyen/"+c.ID, bytes.NewReader(mustJSON(t, request(it))))
	req.Header.Set("Content-Type", "application/json")
	d.Server(g).ServeHTTP(rec, req)
	assert.Equal(t, 404, rec.Code, "no secret box: no connector")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
