package checkout_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"sync"
	"testing"

	"github.com/paygate/paygate/shared/domain/connectors"

	"github.com/paygate/paygate/shared/sandbox/cardprocessor"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
	"github.com/paygate/paygate/shared/testkit/openapitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func group(pick func(*checkout.Service) httpapi.Group) app.HTTPBuilder {
	return func(d *app.Deps) (httpapi.Group, error) {
		s, err := checkout.FromDeps(d, connectors.Set{Cards: cardprocessor.New()})
		if err != nil {
			return httpapi.Group{}, err
		}
		keys, err := checkout.CardKeyring(d)
		if err != nil {
			return httpapi.Group{}, err
		}
		return pick(s.WithCardKeys(keys)), nil
	}
}

// builders are the four checkout groups, built as wiring builds them.
var builders = []app.HTTPBuilder{
	group((*checkout.Service).SessionsGroup), group((*checkout.Service).PaymentsGroup),
	group((*checkout.Service).ClientGroup), group((*checkout.Service).TestHelpersGroup),
}

func newEnv(t testing.TB) *apitest.Env { return apitest.New(t, builders...) }

var (
	adyenOnce sync.Once
	adyen     *openapitest.Validator
	adyenErr  error
)

// adyenValid checks body against a schema of the reference document.
func adyenValid(t testing.TB, schema string, body []byte) {
	t.Helper()
	adyenOnce.Do(func() {
		doc, err := os.ReadFile("testdata/adyen-checkout-v71.json")
		if err != nil {
			adyenErr = err
			return
		}
		adyen, adyenErr = openapitest.New("adyen", doc)
	})
	require.NoError(t, adyenErr)
	require.NoError(t, adyen.ValidateSchema(schema, body), "%s: %s", schema, body)
}

const origin = "https://shop.example.com"

func sessionBody(e *apitest.Env, extra map[string]any) map[string]any {
	b := map[string]any{
		"merchantAccount": e.Account.MerchantAccount,
		"amount":          map[string]any{"value": 1000, "currency": "EUR"},
		"returnUrl":       "https://shop.example.com/return?order=42",
		"reference":       "order-42",
		"countryCode":     "NL",
	}
	for k, v := range extra {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = v
		}
	}
	return b
}

type sess struct {
	ID          string `json:"id"`
	SessionData string `json:"sessionData"`
}

func createSession(t testing.TB, e *apitest.Env, extra map[string]any) sess {
	t.Helper()
	r := e.Do("POST", "/v2/sessions", sessionBody(e, extra))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	adyenValid(t, "CreateCheckoutSessionResponse", r.Body)
	var s sess
	r.JSON(t, &s)
	return s
}

func card(number string) map[string]any {
	return map[string]any{"type": "scheme", "encryptedCardNumber": "test_" + number, "encryptedExpiryMonth": "test_03",
		"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}
}

func paymentBody(ref string, pm map[string]any) map[string]any {
	return map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": ref,
		"returnUrl": "https://shop.example.com/return", "paymentMethod": pm}
}

// threeDS is a details.threeDSResult as the 3DS2 component builds it.
func threeDS(transStatus, authToken string) string {
	b, _ := json.Marshal(map[string]string{"transStatus": transStatus, "authorisationToken": authToken})
	return base64.StdEncoding.EncodeToString(b)
}

// storedPayments lists the account's payment records.
func storedPayments(t testing.TB, e *apitest.Env, accountID string) []*payments.Payment {
	t.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TablePayments, PK: "pay#" + accountID, Limit: 1000})
	require.NoError(t, err)
	var out []*payments.Payment
	for _, it := range page.Items {
		p, err := payments.Decode(it)
		require.NoError(t, err)
		out = append(out, p)
	}
	return out
}

func countStatus(ps []*payments.Payment, s payments.Status) int {
	n := 0
	for _, p := range ps {
		if p.Status == s {
			n++
		}
	}
	return n
}

// countAuthorised counts the payments that were authorised (held, or
// captured with the authorisation in automatic capture mode).
func countAuthorised(ps []*payments.Payment) int {
	n := 0
	for _, p := range ps {
		if p.Status.Succeeded() {
			n++
		}
	}
	return n
}
