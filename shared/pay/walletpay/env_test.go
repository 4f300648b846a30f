package walletpay

import (
	"context"
	"fmt"
	"github.com/paygate/paygate/shared/domain/connectors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/cse/localkeys"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/direct"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/sandbox/paytokens"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type backend struct {
	name  string
	store func(testing.TB) store.Store
}

var embedded = backend{"embedded", func(testing.TB) store.Store { return nil }}

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{embedded, {"dynamodb", func(t testing.TB) store.Store { return dynamotest.New(t, nil) }}} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// env serves the wallet sessions group beside the direct payments group
// (which pays the tokens it decodes) and the transactions group, over one
// store; live is the live wallet configuration (nil: none).
type env struct {
	*apitest.Env
	n atomic.Int64
}

type options struct {
	live        LiveSource
	googleRoots []googlepay.RootKey
}

func newEnv(t testing.TB, b backend, o options) *env {
	t.Helper()
	keyDir := t.TempDir()
	buildDirect := func(d *app.Deps) (httpapi.Group, error) {
		co, err := checkout.FromDeps(d, connectors.Set{Cards: cardprocessor.New()})
		if err != nil {
			return httpapi.Group{}, err
		}
		keys := cse.NewKeyring(d.Store, localkeys.New(keyDir), d.Clock)
		if err := keys.EnsureCurrent(context.Background()); err != nil {
			return httpapi.Group{}, err
		}
		return direct.New(direct.Config{Store: d.Store, Checkout: co, Keys: keys, Clock: d.Clock, Log: d.Log}).Group(), nil
	}
	build := func(d *app.Deps) (httpapi.Group, error) {
		c := Config{Store: d.Store, Tokens: wallettokens.NewTokens(d.Store, cse.NewSealer(d.Store, d.Clock)), Live: o.live, Test: paytokens.New(), Clock: d.Clock, Log: d.Log}
		if o.googleRoots != nil {
			c.GoogleRoots = func(context.Context) ([]googlepay.RootKey, error) { return o.googleRoots, nil }
		}
		return New(c).Group(), nil
	}
	return &env{Env: apitest.NewWith(t, apitest.Options{Store: b.store(t)}, buildDirect, build, transactions.BuildTransactions)}
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a POST with a fresh Idempotency-Key.
func (e *env) post(path string, body any, headers ...string) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, append([]string{"Idempotency-Key", e.key()}, headers...)...)
}

// appleToken makes a sandbox Apple Pay token through the test helper and
// remembers its card data, for the run's log scan.
func (e *env) appleToken(number string, amount int64, currency string) string {
	e.T.Helper()
	r := e.Do("POST", "/test-helpers/wallet-tokens/applepay", map[string]any{"number": number,
		"amount": map[string]any{"value": amount, "currency": currency}})
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	tok := r.Map(e.T)["token"].(string)
	e.remember(tok)
	return tok
}

// remember decrypts a sandbox Apple Pay token as the decode does and
// records its number and cryptogram, which no log may hold.
func (e *env) remember(tok string) {
	e.T.Helper()
	pd, err := applepay.Parse(tok)
	require.NoError(e.T, err)
	d, err := paytokens.New().AppleOpener().Open(pd, time.Now())
	require.NoError(e.T, err)
	apitest.RememberSensitive(d.PaymentData.OnlinePaymentCryptogram, tok)
}

// googleToken makes a sandbox Google Pay token for the sandbox account.
func (e *env) googleToken(number string, cryptogram bool) string {
	e.T.Helper()
	r := e.Do("POST", "/test-helpers/wallet-tokens/googlepay", map[string]any{"number": number, "cryptogram": cryptogram})
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	tok := r.Map(e.T)["token"].(string)
	apitest.RememberSensitive(tok)
	return tok
}

func errOf(t testing.TB, r *apitest.Resp) (code, param, message string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, "%s", r.Body)
	p, _ := er["param"].(string)
	return er["code"].(string), p, er["message"].(string)
}

// pay pays with a payment token through the direct payments route.
func (e *env) pay(tokenID string, amount int64, currency string, key ...string) *apitest.Resp {
	e.T.Helper()
	k := e.key()
	if len(key) > 0 {
		k = key[0]
	}
	return e.Do("POST", "/v1/payments/direct", map[string]any{"payment_token_id": tokenID,
		"amount": map[string]any{"value": amount, "currency": currency}, "order_reference": "order-" + tokenID[5:13],
		"return_url": "https://shop.example.com/return"}, "Idempotency-Key", k)
}

// storeQuery is the account's payment tokens partition.
func storeQuery(accountID string) store.Query {
	return store.Query{Table: store.TablePayments, PK: wallettokens.TokensPK(accountID), Limit: 100}
}
