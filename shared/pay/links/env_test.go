package links_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// backend is one store a test runs on.
type backend struct {
	name  string
	store func(testing.TB, *apitest.Clock) store.Store // nil: embedded
}

var (
	embedded = backend{"embedded", func(testing.TB, *apitest.Clock) store.Store { return nil }}
	dynamodb = backend{"dynamodb", func(t testing.TB, c *apitest.Clock) store.Store { return dynamotest.New(t, c.Now) }}
)

// stores runs f on the embedded store and on DynamoDB Local.
func stores(t *testing.T, f func(t *testing.T, b backend)) {
	for _, b := range []backend{embedded, dynamodb} {
		t.Run(b.name, func(t *testing.T) { f(t, b) })
	}
}

type env struct {
	*apitest.Env
	links *links.Service
	n     atomic.Int64
}

// newEnv serves the links API, the hosted page, checkout (sessions, the
// advanced flow and the drop-in's client endpoints), the transactions and
// the merchant balance, as deployed.
func newEnv(t testing.TB, b backend) *env {
	t.Helper()
	e := &env{}
	clock := &apitest.Clock{}
	keep := func(d *app.Deps) (httpapi.Group, error) {
		e.links = links.New(links.Config{Store: d.Store, Accounts: d.Accounts, Clock: d.Clock, Log: d.Log})
		return e.links.APIGroup(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t, clock), Clock: clock}, keep, links.BuildHostedPage,
		checkout.BuildCheckoutSessions, checkout.BuildCheckoutPayments, checkout.BuildCheckoutClient, transactions.BuildTransactions,
		balance.BuildMerchantBalance)
	return e
}

// customer creates a customer of accountID (as POST /v1/customers does,
// through the vault's writes) and returns its id.
func (e *env) customer(accountID string) string {
	e.T.Helper()
	w, err := vault.New(e.Deps.Store).Create(context.Background(), vault.NewCustomer{AccountID: accountID, ExternalRef: "shopper-" + uuid.NewString()[:8]}, e.Clock.Now())
	require.NoError(e.T, err)
	require.NoError(e.T, e.Deps.Store.Write(context.Background(), w.Ops...))
	return w.CustomerID
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// linkBody is a valid link body; extra replaces fields (nil deletes one).
func linkBody(extra map[string]any) map[string]any {
	b := map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}, "description": "Order 42: two gift cards",
		"order_reference": "order-42"}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

// create makes a link and returns its representation.
func (e *env) create(extra map[string]any) map[string]any {
	e.T.Helper()
	r := e.Do("POST", "/v1/payment-links", linkBody(extra), "Idempotency-Key", e.key())
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

func (e *env) get(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/v1/payment-links/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

// page sends an unauthenticated request, as the shopper's browser does.
func (e *env) page(method, path string, body any, headers ...string) *apitest.Resp {
	e.T.Helper()
	return e.DoKey("", method, path, body, headers...)
}

type session struct {
	ID          string `json:"id"`
	SessionData string `json:"sessionData"`
}

// open opens the link's session as its page does.
func (e *env) open(linkID string) session {
	e.T.Helper()
	r := e.page("POST", "/pay/"+linkID+"/session", map[string]any{})
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	var s session
	r.JSON(e.T, &s)
	return s
}

func card(number string) map[string]any {
	return map[string]any{"type": "scheme", "encryptedCardNumber": "test_" + number, "encryptedExpiryMonth": "test_03",
		"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}
}

// pay pays the link on session s with a card, as the Drop-in does.
func (e *env) pay(linkID string, s session, number string) *apitest.Resp {
	e.T.Helper()
	return e.page("POST", "/pay/"+linkID+"/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card(number)})
}

func (e *env) details(linkID string, s session, details map[string]any) *apitest.Resp {
	e.T.Helper()
	return e.page("POST", "/pay/"+linkID+"/sessions/"+s.ID+"/payments/details", map[string]any{"sessionData": s.SessionData, "details": details})
}

func threeDS(transStatus, token string) string {
	b, _ := json.Marshal(map[string]string{"transStatus": transStatus, "authorisationToken": token})
	return base64.StdEncoding.EncodeToString(b)
}

// linkPayments are the payment records carrying the link's id.
func (e *env) linkPayments(accountID, linkID string) []*payments.Payment {
	e.T.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: "pay#" + accountID, Limit: 1000})
	require.NoError(e.T, err)
	var out []*payments.Payment
	for _, it := range page.Items {
		p, err := payments.Decode(it)
		require.NoError(e.T, err)
		if p.PaymentLinkID == linkID {
			out = append(out, p)
		}
	}
	return out
}

// events lists the types of the account's events about link id (or about a
// payment of it), in the order written.
func (e *env) events(accountID, id string) []string {
	e.T.Helper()
	var out []string
	cursor := ""
	for {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 100, Cursor: cursor})
		require.NoError(e.T, err)
		for _, it := range page.Items {
			var ev struct {
				Type string `json:"type"`
				Data struct {
					ID            string `json:"id"`
					PaymentLinkID string `json:"paymentLinkId"`
				} `json:"data"`
			}
			require.NoError(e.T, json.Unmarshal(it.Data, &ev))
			if ev.Data.ID == id || ev.Data.PaymentLinkID == id {
				out = append(out, ev.Type)
			}
		}
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, v := range xs {
		if v == x {
			n++
		}
	}
	return n
}

func errCode(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	er := r.Err(t)
	require.NotNil(t, er, "%s", r.Body)
	p, _ := er["param"].(string)
	return er["code"].(string), p
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }
