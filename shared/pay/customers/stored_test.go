package customers

import (
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/paygate/paygate/shared/platform/accounts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/openapitest"
)

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

func storedPath(shopper, merchant string, id ...string) string {
	p := "/v2/storedPaymentMethods"
	if len(id) > 0 {
		p += "/" + id[0]
	}
	return p + "?" + url.Values{"shopperReference": {shopper}, "merchantAccount": {merchant}}.Encode()
}

// TestStoredPaymentMethodsAdyenFace: Adyen's GET /storedPaymentMethods lists
// the shopper's card tokens (the ids checkout takes as
// storedPaymentMethodId, in Adyen's shape, valid against Adyen's own
// schema), and DELETE disables one: it leaves the list and the Pay API's
// card tokens, and no longer pays. Another shopper's or account's id is a
// 404 and changes nothing; a shopper with none lists empty; a legacy stored
// card (no customer yet) is listed and disabled the same way; bad input is
// a 400 naming the field. Both stores.
func TestStoredPaymentMethodsAdyenFace(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		ma := e.Account.MerchantAccount
		visa := e.saveCard("shopper-1", "4111111111111111")
		mc := e.saveCard("shopper-1", "5555555555554444")
		other := e.saveCard("shopper-2", "4111111111111111")

		r := e.Do("GET", storedPath("shopper-1", ma), nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		adyenValid(t, "ListStoredPaymentMethodsResponse", r.Body)
		var list StoredMethodsResponse
		r.JSON(t, &list)
		assert.Equal(t, ma, list.MerchantAccount)
		assert.Equal(t, "shopper-1", list.ShopperReference)
		require.Len(t, list.StoredPaymentMethods, 2)
		byID := map[string]StoredMethod{}
		for _, m := range list.StoredPaymentMethods {
			byID[m.ID] = m
		}
		require.Contains(t, byID, visa.token)
		require.Contains(t, byID, mc.token)
		assert.Equal(t, StoredMethod{ID: visa.token, Type: "scheme", Brand: "visa", Name: "VISA", LastFour: "1111", ExpiryMonth: "03",
			ExpiryYear: "30", HolderName: "J. Smith", ShopperReference: "shopper-1",
			SupportedRecurringProcessingModels: []string{"CardOnFile", "Subscription", "UnscheduledCardOnFile"}}, byID[visa.token])

		// Another shopper's method, through this shopper: 404, nothing changes.
		r = e.Do("DELETE", storedPath("shopper-1", ma, other.token), nil)
		require.Equal(t, 404, r.Status, string(r.Body))
		assert.Len(t, e.list("/v1/customers/"+other.customer+"/card-tokens"), 1)

		// Another account's key: its own shopper of that name has none.
		acct2, key2 := e.NewAccount(accounts.Test)
		r = e.DoKey(key2, "GET", storedPath("shopper-1", acct2.MerchantAccount), nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		r.JSON(t, &list)
		assert.Empty(t, list.StoredPaymentMethods)
		r = e.DoKey(key2, "DELETE", storedPath("shopper-1", acct2.MerchantAccount, visa.token), nil)
		require.Equal(t, 404, r.Status, string(r.Body))
		r = e.DoKey(key2, "GET", storedPath("shopper-1", ma), nil)
		require.Equal(t, 400, r.Status, "another account's merchantAccount: %s", r.Body)

		// Disable: 204, gone from both faces, and it no longer pays.
		r = e.Do("DELETE", storedPath("shopper-1", ma, visa.token), nil)
		require.Equal(t, 204, r.Status, string(r.Body))
		assert.Empty(t, r.Body)
		r = e.Do("GET", storedPath("shopper-1", ma), nil)
		r.JSON(t, &list)
		require.Len(t, list.StoredPaymentMethods, 1)
		assert.Equal(t, mc.token, list.StoredPaymentMethods[0].ID)
		assert.Equal(t, []string{mc.token}, idsOf(e.list("/v1/customers/"+visa.customer+"/card-tokens")))
		r = e.post("/v1/payments/recurring", recurring(visa.token, "after-disable"))
		assert.Equal(t, 404, r.Status, string(r.Body))
		r = e.Do("DELETE", storedPath("shopper-1", ma, visa.token), nil)
		assert.Equal(t, 404, r.Status, "disabled already: %s", r.Body)

		// A shopper with nothing stored, and a legacy stored card.
		r = e.Do("GET", storedPath("nobody", ma), nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		r.JSON(t, &list)
		assert.Empty(t, list.StoredPaymentMethods)
		e.legacy("old-shopper", "spm_legacyA", "4111111111111111", "1111")
		r = e.Do("GET", storedPath("old-shopper", ma), nil)
		r.JSON(t, &list)
		require.Len(t, list.StoredPaymentMethods, 1)
		assert.Equal(t, "spm_legacyA", list.StoredPaymentMethods[0].ID)
		require.Equal(t, 204, e.Do("DELETE", storedPath("old-shopper", ma, "spm_legacyA"), nil).Status)
		r = e.Do("GET", storedPath("old-shopper", ma), nil)
		r.JSON(t, &list)
		assert.Empty(t, list.StoredPaymentMethods)

		// Bad input: a 400 naming the field.
		for _, c := range []struct{ path, param string }{
			{"/v2/storedPaymentMethods?shopperReference=shopper-1", "merchantAccount"},
			{storedPath("shopper-1", "SomeoneElse"), "merchantAccount"},
			{"/v2/storedPaymentMethods?merchantAccount=" + url.QueryEscape(ma), "shopperReference"},
		} {
			r = e.Do("GET", c.path, nil)
			require.Equal(t, 400, r.Status, "%s: %s", c.path, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.path)
		}
		r = e.Do("DELETE", storedPath("shopper-1", ma, "not-a-token"), nil)
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param := errOf(t, r)
		assert.Equal(t, "storedPaymentMethodId", param)
		r = e.Do("DELETE", "/v2/storedPaymentMethods/"+mc.token+"?merchantAccount="+url.QueryEscape(ma), nil)
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param = errOf(t, r)
		assert.Equal(t, "shopperReference", param)
		assert.Len(t, e.list("/v1/customers/"+mc.customer+"/card-tokens"), 1, "no refusal changed anything")
	})
}
