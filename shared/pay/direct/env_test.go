package direct

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/paygate/paygate/shared/domain/connectors"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

type backend struct {
	name  string
	store func(testing.TB) store.Store
}

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{
		{"embedded", func(testing.TB) store.Store { return nil }},
		{"dynamodb", func(t testing.TB) store.Store { return dynamotest.New(t, nil) }},
	} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

// env serves the direct payments group with checkout's advanced flow
// (whose /v2/payments/details completes a 3-D Secure redirect) and the
// transactions group, over one store, with the card keyring (in memory).
type env struct {
	*apitest.Env
	keys *cse.Keyring
	n    atomic.Int64
}

func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		co, err := checkout.FromDeps(d, connectors.Set{Cards: cardprocessor.New()})
		if err != nil {
			return httpapi.Group{}, err
		}
		// The keyring every card function shares (checkout's /v2/payments
		// opens encrypted fields with it too).
		if e.keys, err = checkout.CardKeyring(d); err != nil {
			return httpapi.Group{}, err
		}
		return New(Config{Store: d.Store, Checkout: co, Keys: e.keys, Clock: d.Clock, Log: d.Log}).Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t)}, build, checkout.BuildCheckoutPayments, transactions.BuildTransactions)
	return e
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// current is the key to encrypt with, as GET /keys lists it first.
func (e *env) current() cse.Key {
	e.T.Helper()
	keys, err := e.keys.Active(context.Background())
	require.NoError(e.T, err)
	require.NotEmpty(e.T, keys)
	return keys[0]
}

// card is a merchant's card payload, generated now.
func (e *env) card(number, cvc string) cse.Card {
	return cse.Card{Number: number, CVC: cvc, ExpiryMonth: "03", ExpiryYear: "2030", HolderName: "J Smith",
		GenerationTime: cse.FormatGenerationTime(e.Clock.Now())}
}

// encrypt is what a merchant's page does with the current key.
func (e *env) encrypt(c cse.Card) string {
	e.T.Helper()
	raw, err := json.Marshal(c)
	require.NoError(e.T, err)
	k := e.current()
	jwe, err := cse.Encrypt(k.KID, k.PublicKey(), raw)
	require.NoError(e.T, err)
	return jwe
}

// body is a valid payment of 1000 EUR with jwe.
func body(jwe, ref string) map[string]any {
	return map[string]any{"encrypted_card": jwe, "amount": map[string]any{"value": 1000, "currency": "EUR"},
		"order_reference": ref, "return_url": "https://shop.example.com/return?order=" + url.QueryEscape(ref)}
}

// pay POSTs a payment with a fresh Idempotency-Key.
func (e *env) pay(b map[string]any, headers ...string) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", "/v1/payments/direct", b, append([]string{"Idempotency-Key", e.key()}, headers...)...)
}

func (e *env) tx(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/transactions/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

func errOf(t testing.TB, r *apitest.Resp) (code, param, message string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, "%s", r.Body)
	p, _ := er["param"].(string)
	return er["code"].(string), p, er["message"].(string)
}

// payments lists the account's payment records.
func (e *env) payments(accountID string) []store.Item {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: payments.Key(accountID, "").PK, Limit: 1000})
	require.NoError(e.T, err)
	return page.Items
}

// events lists the types of the account's events about payment id.
func (e *env) events(accountID, id string) []string {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 1000})
	require.NoError(e.T, err)
	var out []string
	for _, it := range page.Items {
		ev := paymentEvent(e.T, it)
		if ev.Data.ID == id {
			out = append(out, ev.Type)
		}
	}
	return out
}

// token stores a decoded wallet token of number for the sandbox account,
// as the wallet decode routes do.
func (e *env) token(typ wallettokens.TokenType, txn, number string, cryptogram string, amount *money.Amount) string {
	e.T.Helper()
	ts := wallettokens.NewTokens(e.Deps.Store, e.keys)
	t, ops, err := ts.Build(context.Background(), wallettokens.NewToken{AccountID: e.Account.ID, Type: typ, WalletTransaction: txn,
		Card:  cse.Card{Number: number, ExpiryMonth: "12", ExpiryYear: "2030", Cryptogram: cryptogram, ECI: "05"},
		Brand: "visa", ExpiryMonth: 12, ExpiryYear: 2030, Amount: amount, Now: e.Clock.Now()})
	require.NoError(e.T, err)
	require.NoError(e.T, e.Deps.Store.Write(context.Background(), ops...))
	return t.ID
}

// paymentEvent reads a payment's event record (with its expiry, as every
// event record has).
func paymentEvent(t testing.TB, it store.Item) (ev struct {
	Type string
	Data payments.Payment
}) {
	t.Helper()
	rec, err := eventlog.Decode(it)
	require.NoError(t, err)
	require.False(t, it.ExpiresAt.IsZero(), "every event record expires")
	ev.Type = rec.Type
	require.NoError(t, json.Unmarshal(rec.Data, &ev.Data))
	return ev
}
