package connectortest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The two-gateway test (issue 32): gateway B plays Adyen (its /v2 face and
// its Adyen-format notifications); gateway A has an Adyen connector, set
// with the admin CLI, that points at B through a wire that checks every
// call against Adyen's v71 document and can fail. Payments made on A's API
// must end in the same state on A and on B.

// pair is A, B and the wire between them, ready.
type pair struct {
	a, b            *gateway
	keyA, keyB      string
	keySandbox      string // A's account without a connector: its sandbox
	merchantSandbox string
	accountA        string
	merchantA       string
	merchantB       string
	connector       string
	wire            *wire
	webhookEndpoint string // B's Adyen-format endpoint, to A
}

func randomKey(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// setUp starts B, configures A's account and connector with the admin CLI
// (A stopped, as the embedded store is one process's), points B's
// notifications at A's route, and starts A.
func setUp(t *testing.T) *pair {
	t.Helper()
	p := &pair{a: newGateway(t, "a"), b: newGateway(t, "b"), keyB: randomKey("sk_test_")}
	p.b.start(t, "SANDBOX_API_KEY="+p.keyB)
	st, me := call(t, p.b.url, p.keyB, "GET", "/v1/merchants/me", nil)
	require.Equal(t, http.StatusOK, st, "%v", me)
	p.merchantB = me["merchant_account"].(string)

	// B's notifications in Adyen's format, HMAC-signed with the key B shows
	// once; the URL names A's connector once it has an id.
	st, ep := call(t, p.b.url, p.keyB, "POST", "/v1/webhook-endpoints",
		map[string]any{"url": p.a.url + "/webhooks/adyen/pending", "format": "adyen", "enabled_events": []string{"*"}})
	require.Equal(t, http.StatusCreated, st, "%v", ep)
	p.webhookEndpoint = ep["id"].(string)
	hmacKey := ep["hmac_key"].(string)

	// B's card encryption key: A's connector encrypts card fields to it.
	st, keys := call(t, p.b.url, p.keyB, "GET", "/v1/payments/direct/keys", nil)
	require.Equal(t, http.StatusOK, st, "%v", keys)
	data := keys["data"].([]any)
	require.NotEmpty(t, data)
	keyFile := filepath.Join(t.TempDir(), "b-card-key.json")
	require.NoError(t, os.WriteFile(keyFile, []byte(jsonOf(t, data[0].(map[string]any)["jwk"])), 0o600))

	p.wire = newWire(t, p.b.url)
	acct := p.a.admin(t, nil, "accounts", "create", "--name", "Shop A", "--mode", "test")
	p.accountA = acct["account"].(map[string]any)["id"].(string)
	p.merchantA = acct["account"].(map[string]any)["merchant_account"].(string)
	p.keyA = acct["secret"].(string)
	plain := p.a.admin(t, nil, "accounts", "create", "--name", "Shop A sandbox", "--mode", "test")
	p.keySandbox = plain["secret"].(string)
	p.merchantSandbox = plain["account"].(map[string]any)["merchant_account"].(string)
	conn := p.a.admin(t, []string{"B_API_KEY=" + p.keyB, "B_HMAC_KEY=" + hmacKey},
		"connectors", "set", "--account", p.accountA, "--kind", "adyen", "--mode", "test",
		"--url", p.wire.srv.URL+"/v2", "--merchant-account", p.merchantB,
		"--api-key-env", "B_API_KEY", "--hmac-key-env", "B_HMAC_KEY", "--encryption-key-file", keyFile)
	p.connector = conn["connector"].(map[string]any)["id"].(string)
	require.NotEmpty(t, p.connector)

	st, ep = call(t, p.b.url, p.keyB, "POST", "/v1/webhook-endpoints/"+p.webhookEndpoint,
		map[string]any{"url": p.a.url + "/webhooks/adyen/" + p.connector})
	require.Equal(t, http.StatusOK, st, "%v", ep)
	p.a.start(t)
	return p
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := jsonMarshal(v)
	require.NoError(t, err)
	return string(b)
}

// onB is B's payment for A's payment id (A sends its id as the reference).
func (p *pair) onB(t *testing.T, aPayment string) map[string]any {
	t.Helper()
	st, list := call(t, p.b.url, p.keyB, "GET", "/v1/transactions?type=payment&order_reference="+aPayment, nil)
	require.Equal(t, http.StatusOK, st, "%v", list)
	data := list["data"].([]any)
	require.Len(t, data, 1, "B holds one payment for A's %s", aPayment)
	return data[0].(map[string]any)
}

func (p *pair) onA(t *testing.T, id string) map[string]any {
	t.Helper()
	st, tx := call(t, p.a.url, p.keyA, "GET", "/v1/transactions/"+id, nil)
	require.Equal(t, http.StatusOK, st, "%v", tx)
	return tx
}

// pay makes a card payment on A's /v2 face.
func (p *pair) pay(t *testing.T, number string, amount int64, extra map[string]any, idem string) (int, map[string]any) {
	t.Helper()
	body := map[string]any{
		"merchantAccount": p.merchantA, "amount": map[string]any{"value": amount, "currency": "EUR"},
		"reference": "order-" + randomKey(""), "returnUrl": "https://shop.example/return",
		"paymentMethod": map[string]any{"type": "scheme", "number": number, "expiryMonth": "03", "expiryYear": "2030",
			"cvc": "737", "holderName": "Aigerim Connector"},
	}
	for k, v := range extra {
		body[k] = v
	}
	if idem == "" {
		idem = randomKey("idem-")
	}
	return call(t, p.a.url, p.keyA, "POST", "/v2/payments", body, "Idempotency-Key", idem)
}

// sameState waits until B's payment for A's reaches A's state.
func (p *pair) sameState(t *testing.T, aPayment string) {
	t.Helper()
	var a, b map[string]any
	same := func() bool {
		a, b = p.onA(t, aPayment), p.onB(t, aPayment)
		return a["status"] == b["status"] && a["processed_amount"] == b["processed_amount"] &&
			a["refunded_amount"] == b["refunded_amount"] && a["amount"] == b["amount"]
	}
	for deadline := time.Now().Add(60 * time.Second); !same(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("B's payment never reached A's state:\nA: %v\nB: %v", a, b)
		}
	}
}

func TestAGatewayInFrontOfAnother(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two local gateways")
	}
	p := setUp(t)
	defer p.wire.check(t)

	t.Run("authorised", func(t *testing.T) {
		before := p.wire.count("POST /payments")
		st, r := p.pay(t, "4111111111111111", 1500, nil, "")
		assert.Equal(t, before+1, p.wire.count("POST /payments"), "one call to the provider")
		require.Equal(t, http.StatusOK, st, "%v", r)
		assert.Equal(t, "Authorised", r["resultCode"])
		p.sameState(t, r["pspReference"].(string))
		assert.Equal(t, "charged", p.onA(t, r["pspReference"].(string))["status"])
	})

	t.Run("A's books and events as for a sandbox payment", func(t *testing.T) {
		st, r := p.pay(t, "4111111111111111", 1500, nil, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		viaConnector := r["pspReference"].(string)
		st, r = call(t, p.a.url, p.keySandbox, "POST", "/v2/payments", map[string]any{
			"merchantAccount": p.merchantSandbox, "amount": map[string]any{"value": 1500, "currency": "EUR"},
			"reference": "sandbox-twin", "returnUrl": "https://shop.example/return",
			"paymentMethod": map[string]any{"type": "scheme", "number": "4111111111111111", "expiryMonth": "03",
				"expiryYear": "2030", "cvc": "737", "holderName": "Aigerim Connector"}}, "Idempotency-Key", randomKey("idem-"))
		require.Equal(t, http.StatusOK, st, "%v", r)
		viaSandbox := r["pspReference"].(string)
		p.sameState(t, viaConnector)
		assert.Equal(t, eventTypes(t, p.a.url, p.keySandbox, viaSandbox), eventTypes(t, p.a.url, p.keyA, viaConnector),
			"the same events, once each")
		assert.Equal(t, entryTypes(t, p.a.url, p.keySandbox, viaSandbox), entryTypes(t, p.a.url, p.keyA, viaConnector),
			"the same ledger entries")
		assert.NotEmpty(t, entryTypes(t, p.a.url, p.keyA, viaConnector))
	})

	t.Run("refused", func(t *testing.T) {
		st, r := p.pay(t, "4000000000000010", 1500, nil, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		assert.Equal(t, "Refused", r["resultCode"])
		assert.NotEmpty(t, r["refusalReason"])
		p.sameState(t, r["pspReference"].(string))
	})

	t.Run("partial capture, two refunds", func(t *testing.T) {
		st, r := p.pay(t, "5555555555554444", 10000, map[string]any{"additionalData": map[string]any{"manualCapture": "true"}}, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		id := r["pspReference"].(string)
		p.sameState(t, id)
		assert.Equal(t, "authorized", p.onB(t, id)["status"])
		st, c := call(t, p.a.url, p.keyA, "POST", "/v2/payments/"+id+"/captures",
			map[string]any{"merchantAccount": p.merchantA, "amount": map[string]any{"value": 6000, "currency": "EUR"}})
		require.Equal(t, http.StatusCreated, st, "%v", c)
		p.sameState(t, id)
		for _, amount := range []int{2000, 1000} {
			st, rf := call(t, p.a.url, p.keyA, "POST", "/v2/payments/"+id+"/refunds",
				map[string]any{"merchantAccount": p.merchantA, "amount": map[string]any{"value": amount, "currency": "EUR"}})
			require.Equal(t, http.StatusCreated, st, "%v", rf)
		}
		p.sameState(t, id)
		b := p.onB(t, id)
		assert.EqualValues(t, 6000, b["processed_amount"])
		assert.EqualValues(t, 3000, b["refunded_amount"])
	})

	t.Run("cancel", func(t *testing.T) {
		st, r := p.pay(t, "4111111111111111", 2500, map[string]any{"additionalData": map[string]any{"manualCapture": "true"}}, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		id := r["pspReference"].(string)
		st, c := call(t, p.a.url, p.keyA, "POST", "/v2/payments/"+id+"/cancels", map[string]any{"merchantAccount": p.merchantA})
		require.Equal(t, http.StatusCreated, st, "%v", c)
		p.sameState(t, id)
		assert.Equal(t, "cancelled", p.onB(t, id)["status"])
	})

	t.Run("a chargeback at B opens A's dispute", func(t *testing.T) {
		st, r := p.pay(t, "4111111111111111", 3000, nil, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		id := r["pspReference"].(string)
		p.sameState(t, id)
		onB := p.onB(t, id)["id"].(string)
		st, d := call(t, p.b.url, p.keyB, "POST", "/test-helpers/transactions/"+onB+"/dispute",
			map[string]any{"amount": 1200}, "Idempotency-Key", randomKey("idem-"))
		require.Equal(t, http.StatusCreated, st, "%v", d)
		eventually(t, "B's CHARGEBACK notification opens the dispute on A", func() bool {
			return p.onA(t, id)["disputed"] == true
		})
		a := p.onA(t, id)
		st, dispute := call(t, p.a.url, p.keyA, "GET", "/v1/disputes/"+a["dispute_id"].(string), nil)
		require.Equal(t, http.StatusOK, st, "%v", dispute)
		assert.EqualValues(t, 1200, dispute["amount"].(map[string]any)["value"])
		assert.Equal(t, []string{"dispute.created"}, eventTypesOf(t, p.a.url, p.keyA, a["dispute_id"].(string), "dispute."),
			"one dispute, one event, however often B notifies")
	})

	t.Run("3-D Secure challenge", func(t *testing.T) {
		st, r := p.pay(t, "5454545454545454", 4200, nil, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		id := r["pspReference"].(string)
		for _, want := range []string{"IdentifyShopper", "ChallengeShopper"} {
			require.Equal(t, want, r["resultCode"], "%v", r)
			action := r["action"].(map[string]any)
			assert.Equal(t, "threeDS2", action["type"])
			tok := action["authorisationToken"].(string)
			result := map[string]any{"authorisationToken": tok, "threeDSCompInd": "Y"}
			if want == "ChallengeShopper" {
				// B's issuer's challenge screen (the relayed token names it).
				raw, err := base64.StdEncoding.DecodeString(action["token"].(string))
				require.NoError(t, err)
				assert.Contains(t, string(raw), "acsURL")
				result = map[string]any{"authorisationToken": tok, "transStatus": "Y"}
			}
			st, r = call(t, p.a.url, p.keyA, "POST", "/v2/payments/details",
				map[string]any{"details": map[string]any{"threeDSResult": base64.StdEncoding.EncodeToString([]byte(jsonOf(t, result)))}})
			require.Equal(t, http.StatusOK, st, "%v", r)
		}
		assert.Equal(t, "Authorised", r["resultCode"])
		p.sameState(t, id)
		assert.Equal(t, true, p.onA(t, id)["secure3d"])
	})

	t.Run("a redirect to the issuer and back", func(t *testing.T) {
		st, r := p.pay(t, "4212345678901237", 2200, nil, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		require.Equal(t, "RedirectShopper", r["resultCode"], "%v", r)
		id := r["pspReference"].(string)
		action := r["action"].(map[string]any)
		require.Equal(t, "redirect", action["type"])
		// The issuer (B's) sends the shopper back to the merchant's
		// returnUrl with B's redirectResult, which the merchant sends A.
		back, err := url.Parse(action["url"].(string))
		require.NoError(t, err)
		result := back.Query().Get("redirectResult")
		require.NotEmpty(t, result, "%v", action["url"])
		for range 2 { // sent twice: the same answer
			st, r = call(t, p.a.url, p.keyA, "POST", "/v2/payments/details", map[string]any{"details": map[string]any{"redirectResult": result}})
			require.Equal(t, http.StatusOK, st, "%v", r)
			assert.Equal(t, "Authorised", r["resultCode"])
			assert.Equal(t, id, r["pspReference"])
		}
		p.sameState(t, id)
		st, r = call(t, p.a.url, p.keySandbox, "POST", "/v2/payments/details", map[string]any{"details": map[string]any{"redirectResult": result}})
		assert.Equal(t, http.StatusBadRequest, st, "another account (no connector) cannot use it: %v", r)
	})

	t.Run("3-D Secure challenge in the browser", p.challengeInTheBrowser)

	t.Run("a saved card charged by the merchant (ContAuth)", func(t *testing.T) {
		shopper := "shopper-" + randomKey("")
		st, r := p.pay(t, "4111111111111111", 900, map[string]any{"shopperReference": shopper, "storePaymentMethod": true,
			"recurringProcessingModel": "UnscheduledCardOnFile"}, "")
		require.Equal(t, http.StatusOK, st, "%v", r)
		token := r["additionalData"].(map[string]any)["recurring.recurringDetailReference"].(string)
		p.sameState(t, r["pspReference"].(string))
		st, r = call(t, p.a.url, p.keyA, "POST", "/v2/payments", map[string]any{
			"merchantAccount": p.merchantA, "amount": map[string]any{"value": 1900, "currency": "EUR"},
			"reference": "renewal-" + randomKey(""), "shopperReference": shopper, "shopperInteraction": "ContAuth", "returnUrl": "https://shop.example/return",
			"recurringProcessingModel": "UnscheduledCardOnFile",
			"paymentMethod":            map[string]any{"type": "scheme", "storedPaymentMethodId": token},
		}, "Idempotency-Key", randomKey("idem-"))
		require.Equal(t, http.StatusOK, st, "%v", r)
		assert.Equal(t, "Authorised", r["resultCode"])
		p.sameState(t, r["pspReference"].(string))
	})

	// Faults on the wire: A answers 503 and records nothing; the merchant's
	// retry with the same Idempotency-Key makes one payment on each side,
	// whether B never heard of the first try, or made it and its answer was
	// lost or came too late.
	for _, f := range []fault{down, lose, slow} {
		t.Run("fault "+string(f), func(t *testing.T) {
			idem := randomKey("idem-")
			ref := "faulty-" + randomKey("")
			p.wire.set(f)
			st, r := p.pay(t, "4111111111111111", 700, map[string]any{"reference": ref}, idem)
			p.wire.set(pass)
			require.Equal(t, http.StatusServiceUnavailable, st, "%v", r)
			st, list := call(t, p.a.url, p.keyA, "GET", "/v1/transactions?order_reference="+ref, nil)
			require.Equal(t, http.StatusOK, st)
			assert.Empty(t, list["data"], "A records nothing it was not answered")

			st, r = p.pay(t, "4111111111111111", 700, map[string]any{"reference": ref}, idem)
			require.Equal(t, http.StatusOK, st, "%v", r)
			assert.Equal(t, "Authorised", r["resultCode"])
			id := r["pspReference"].(string)
			p.sameState(t, id) // onB: exactly one payment on B
			st, list = call(t, p.a.url, p.keyA, "GET", "/v1/transactions?type=payment&order_reference="+ref, nil)
			require.Equal(t, http.StatusOK, st)
			assert.Len(t, list["data"], 1, "one payment on A")
		})
	}

	t.Run("A's ledger check", func(t *testing.T) {
		p.a.stop() // the admin CLI opens A's store: A stops first
		p.a.admin(t, nil, "ledger", "check")
	})

	t.Run("no card number in either log", func(t *testing.T) {
		for _, g := range []*gateway{p.a, p.b} {
			b, err := os.ReadFile(g.log)
			require.NoError(t, err)
			for _, n := range []string{"4111111111111111", "5555555555554444", "4000000000000010", "5454545454545454"} {
				assert.False(t, strings.Contains(string(b), n), "gateway %s logged a card number", g.name)
			}
		}
	})
	_ = fmt.Sprint
}

// eventTypes are the types of the events of account key about object id,
// sorted, each as often as it was sent.
func eventTypes(t *testing.T, base, key, id string) []string {
	t.Helper()
	var out []string
	eventually(t, "the payment's events", func() bool {
		st, list := call(t, base, key, "GET", "/v1/events?limit=100", nil)
		require.Equal(t, http.StatusOK, st, "%v", list)
		out = nil
		for _, ev := range list["data"].([]any) {
			if strings.Contains(jsonOf(t, ev.(map[string]any)["data"]), id) {
				out = append(out, ev.(map[string]any)["type"].(string))
			}
		}
		return len(out) > 0
	})
	slices.Sort(out)
	return out
}

// eventTypesOf are eventTypes of the types starting with prefix.
func eventTypesOf(t *testing.T, base, key, id, prefix string) []string {
	t.Helper()
	var out []string
	for _, ty := range eventTypes(t, base, key, id) {
		if strings.HasPrefix(ty, prefix) {
			out = append(out, ty)
		}
	}
	return out
}

// entryTypes are the ledger entries of account key that name id: type and
// amount, sorted.
func entryTypes(t *testing.T, base, key, id string) []string {
	t.Helper()
	st, list := call(t, base, key, "GET", "/v1/balance/entries?limit=100", nil)
	require.Equal(t, http.StatusOK, st, "%v", list)
	var out []string
	for _, e := range list["data"].([]any) {
		m := e.(map[string]any)
		if strings.Contains(jsonOf(t, m), id) {
			out = append(out, fmt.Sprintf("%v %v", m["type"], m["amount"]))
		}
	}
	slices.Sort(out)
	return out
}
