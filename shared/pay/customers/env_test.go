package customers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// env serves the customers group with checkout's advanced flow and test
// helper (which save and complete what the customers group reads) and the
// transactions group, over one store.
type env struct {
	*apitest.Env
	n atomic.Int64
}

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

func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	return &env{Env: apitest.NewWith(t, apitest.Options{Store: b.store(t)}, BuildCustomers,
		checkout.BuildCheckoutPayments, checkout.BuildCheckoutTestHelpers, transactions.BuildTransactions)}
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// post sends a keyed POST.
func (e *env) post(path string, body any, headers ...string) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", path, body, append([]string{"Idempotency-Key", e.key()}, headers...)...)
}

func card(number string) map[string]any {
	return map[string]any{"type": "scheme", "encryptedCardNumber": "test_" + number, "encryptedExpiryMonth": "test_03",
		"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737", "holderName": "J. Smith"}
}

// payment is a checkout payment body; with shopper it names the shopper and
// asks to save the card.
func payment(ref, shopper string, method map[string]any) map[string]any {
	b := map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": ref,
		"returnUrl": "https://shop.example.com/return", "paymentMethod": method}
	if shopper != "" {
		b["shopperReference"], b["storePaymentMethod"] = shopper, true
	}
	return b
}

// saved is a card saved in checkout for a shopper.
type saved struct {
	payment, customer, token string
}

// saveCard pays with number in checkout, saving it for shopper, and returns
// the payment, the shopper's customer and the card token.
func (e *env) saveCard(shopper, number string) saved {
	e.T.Helper()
	r := e.post("/v2/payments", payment("save-"+shopper, shopper, card(number)))
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	require.Equal(e.T, "Authorised", r.Map(e.T)["resultCode"], "%s", r.Body)
	psp := r.Map(e.T)["pspReference"].(string)
	tx := e.tx(psp)
	return saved{payment: psp, customer: tx["customer_id"].(string), token: tx["card_token_id"].(string)}
}

func (e *env) tx(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/transactions/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

// list GETs a list and returns its data.
func (e *env) list(path string, headers ...string) []map[string]any {
	e.T.Helper()
	r := e.Do("GET", path, nil, headers...)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	var l struct {
		Data []map[string]any `json:"data"`
	}
	r.JSON(e.T, &l)
	return l.Data
}

func idsOf(items []map[string]any) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it["id"].(string))
	}
	return out
}

// recurring is a valid recurring payment body charging token.
func recurring(token, ref string) map[string]any {
	return map[string]any{"card_token_id": token, "amount": map[string]any{"value": 2500, "currency": "EUR"},
		"order_reference": ref, "recurring_type": "subscription"}
}

func errOf(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, "%s", r.Body)
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

func threeDS(token, status string) string {
	m := map[string]string{"authorisationToken": token}
	if status != "" {
		m["transStatus"] = status
	}
	b, _ := json.Marshal(m)
	return base64.StdEncoding.EncodeToString(b)
}

// partition lists the items of one payments-table partition.
func (e *env) partition(pk string) []store.Item {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: pk, Limit: 1000})
	require.NoError(e.T, err)
	return page.Items
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
