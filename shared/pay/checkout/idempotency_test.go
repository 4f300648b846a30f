package checkout_test

import (
	"context"
	"testing"

	"github.com/paygate/paygate/shared/domain/connectors"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// backends runs f on the embedded store and on DynamoDB Local.
func backends(t *testing.T, f func(t *testing.T, e *apitest.Env)) {
	t.Run("embedded", func(t *testing.T) { f(t, newEnv(t)) })
	t.Run("dynamodb", func(t *testing.T) {
		clock := &apitest.Clock{}
		f(t, apitest.NewWith(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Clock: clock}, builders...))
	})
}

// TestClientAndSecretKeysAreSeparateIdempotencyNamespaces: a shopper's
// browser (client key) sending a merchant's Idempotency-Key neither burns it
// nor gets the merchant's result; each key kind replays its own.
func TestClientAndSecretKeysAreSeparateIdempotencyNamespaces(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"reference": "ns-session"})
		const key = "shared-key-1"

		shopper := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments",
			map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")}, "Idempotency-Key", key)
		require.Equal(t, 200, shopper.Status, "%s", shopper.Body)
		assert.Equal(t, "Authorised", shopper.Map(t)["resultCode"])

		merchant := e.Do("POST", "/v2/payments", paymentBody("ns-advanced", card("5555555555554444")), "Idempotency-Key", key)
		require.Equal(t, 200, merchant.Status, "the merchant's key is not burnt by the shopper's use: %s", merchant.Body)
		assert.Empty(t, merchant.Header.Get("Idempotent-Replayed"))
		assert.NotEqual(t, shopper.Map(t)["pspReference"], merchant.Map(t)["pspReference"])

		again := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments",
			map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")}, "Idempotency-Key", key)
		require.Equal(t, 200, again.Status, "%s", again.Body)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, shopper.Body, again.Body)
		again = e.Do("POST", "/v2/payments", paymentBody("ns-advanced", card("5555555555554444")), "Idempotency-Key", key)
		require.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, merchant.Body, again.Body)

		// A merchant's session created with a key first: the shopper's
		// browser reusing that key on its own call runs its own request.
		keyed := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"reference": "ns-keyed"}), "Idempotency-Key", "merchant-first")
		require.Equal(t, 201, keyed.Status)
		var s2 struct {
			ID          string `json:"id"`
			SessionData string `json:"sessionData"`
		}
		keyed.JSON(t, &s2)
		r := clientDo(e, ck, "/v2/client/sessions/"+s2.ID+"/payments",
			map[string]any{"sessionData": s2.SessionData, "paymentMethod": card("4111111111111111")}, "Idempotency-Key", "merchant-first")
		require.Equal(t, 200, r.Status, "not 422: the client key has its own namespace: %s", r.Body)
		assert.Equal(t, 3, countAuthorised(storedPayments(t, e, e.Account.ID)), "three payments, each once")
	})
}

// TestServicesWithoutHTTP: the checkout service runs from typed input, as a
// queue consumer or the admin CLI would call it, with no HTTP request.
func TestServicesWithoutHTTP(t *testing.T) {
	e := newEnv(t)
	svc, err := checkout.FromDeps(e.Deps, connectors.Set{Cards: cardprocessor.New()})
	require.NoError(t, err)
	ctx := context.Background()
	c := checkout.Caller{AccountID: e.Account.ID, MerchantAccount: e.Account.MerchantAccount, TestMode: true, Now: e.Clock.Now()}
	s, err := svc.CreateSession(ctx, c, checkout.CreateSessionRequest{Amount: &checkout.Amount{Value: 500, Currency: "EUR"},
		Reference: "no-http", ReturnURL: "https://shop.example.com/r"})
	require.NoError(t, err)
	require.NotEmpty(t, s.ID)
	p, err := svc.Pay(ctx, c, checkout.PaymentRequest{Amount: &checkout.Amount{Value: 500, Currency: "EUR"}, Reference: "no-http",
		ReturnURL: "https://shop.example.com/r", PaymentMethod: &checkout.MethodDetails{Type: "scheme", Number: "4111111111111111",
			ExpiryMonth: "03", ExpiryYear: "2030", CVC: "737"}})
	require.NoError(t, err)
	assert.Equal(t, "Authorised", p.ResultCode)
	stored, err := e.Deps.Store.Get(ctx, store.Key{Table: store.TablePayments, PK: "pay#" + e.Account.ID, SK: p.PSPReference})
	require.NoError(t, err)
	assert.NotEmpty(t, stored.Data)
	_, err = svc.Pay(ctx, c, checkout.PaymentRequest{Reference: "no-http"})
	require.Error(t, err, "validation errors come back kinded")
}

// TestDetailsKeyedInline: /payments/details writes its record in the
// payment's transaction; a retry replays; the answer for a payment already
// decided is recorded alone; another body with the key is a 422.
func TestDetailsKeyedInline(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		p := pay(t, e, "/v2/payments", paymentBody("det-1", card("4917610000000000")), "PaymentResponse")
		require.Equal(t, "IdentifyShopper", p.ResultCode)
		body := map[string]any{"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}}
		first := e.Do("POST", "/v2/payments/details", body, "Idempotency-Key", "det-key")
		require.Equal(t, 200, first.Status, "%s", first.Body)
		assert.Equal(t, "Authorised", first.Map(t)["resultCode"])
		again := e.Do("POST", "/v2/payments/details", body, "Idempotency-Key", "det-key")
		require.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, first.Body, again.Body)

		decided := e.Do("POST", "/v2/payments/details", body, "Idempotency-Key", "det-key-2")
		require.Equal(t, 200, decided.Status, "%s", decided.Body)
		assert.Empty(t, decided.Header.Get("Idempotent-Replayed"))
		again = e.Do("POST", "/v2/payments/details", body, "Idempotency-Key", "det-key-2")
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"), "the decided answer was recorded")

		other := map[string]any{"details": map[string]any{"threeDSResult": threeDS("Y", p.Action.AuthorisationToken)}}
		r := e.Do("POST", "/v2/payments/details", other, "Idempotency-Key", "det-key")
		require.Equal(t, 422, r.Status, "%s", r.Body)
		assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)))
	})
}
