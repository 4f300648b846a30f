package customers

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/openapi"
)

// TestOffSessionExistsFrom20230901: under 2023-06-01 off_session is an
// unknown field (a 400 naming it, in that version's error body, nothing
// stored); from 2023-09-01 it is taken. Without it every version charges.
func TestOffSessionExistsFrom20230901(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("version-shopper", "4111111111111111")
		for _, off := range []bool{true, false} {
			body := recurring(s.token, "v-old")
			body["off_session"] = off
			r := e.post("/v1/payments/recurring", body, "Service-Version", "2023-06-01")
			require.Equal(t, 400, r.Status, "%s", r.Body)
			assert.Equal(t, "2023-06-01", r.Header.Get("Service-Version"))
			m := r.Map(t)
			assert.Equal(t, "off_session", m["source"], "the legacy error body names the field: %s", r.Body)
			assert.Contains(t, m["message"], "2023-09-01")
		}
		assert.Empty(t, e.list("/v1/transactions/by-order-reference/v-old"), "nothing stored")

		r := e.post("/v1/payments/recurring", recurring(s.token, "v-old-plain"), "Service-Version", "2023-06-01")
		require.Equal(t, 201, r.Status, "%s", r.Body)
		assert.Equal(t, "charged", r.Map(t)["status"])
		assert.NotContains(t, r.Map(t), "metadata", "no metadata before 2024-01-15")

		for _, v := range []string{"2023-09-01", "2024-01-15"} {
			body := recurring(s.token, "v-"+v)
			body["off_session"] = true
			r := e.post("/v1/payments/recurring", body, "Service-Version", v)
			require.Equal(t, 201, r.Status, "%s: %s", v, r.Body)
			assert.Equal(t, "charged", r.Map(t)["status"])
		}
		// The current error body names it the same way, were it unknown.
		body := recurring(s.token, "v-typo")
		body["offSession"] = true
		r = e.post("/v1/payments/recurring", body)
		require.Equal(t, 400, r.Status)
		code, param := errOf(t, r)
		assert.Equal(t, "parameter_unknown", code)
		assert.Equal(t, "offSession", param)
	})
}

// TestRequiresActionIs3dBefore20240115: a recurring payment waiting for the
// shopper reads 3d under 2023-06-01 and 2023-09-01 on every route that
// answers transactions (its own answer, the customer's transactions, and the
// transactions group's), and requires_action from 2024-01-15.
func TestRequiresActionIs3dBefore20240115(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tok := e.saveCard3DS("v3d-shopper", "5454545454545454")
		cus := e.tx(e.list("/v1/transactions/by-order-reference/save-v3d-shopper")[0]["id"].(string))["customer_id"].(string)
		for _, c := range []struct{ version, want string }{{"2023-06-01", "3d"}, {"2023-09-01", "3d"}, {"2024-01-15", "requires_action"}} {
			body := recurring(tok, "v3d-"+c.version)
			body["recurring_type"] = "card_on_file"
			r := e.post("/v1/payments/recurring", body, "Service-Version", c.version)
			require.Equal(t, 201, r.Status, "%s", r.Body)
			assert.Equal(t, c.want, r.Map(t)["status"], c.version)
			assert.Contains(t, r.Map(t), "next_action")
			id := r.Map(t)["id"].(string)
			h := []string{"Service-Version", c.version}
			status := func(items []map[string]any) any {
				for _, it := range items {
					if it["id"] == id {
						return it["status"]
					}
				}
				return nil
			}
			assert.Equal(t, c.want, status(e.list("/v1/customers/"+cus+"/transactions", h...)), c.version)
			assert.Equal(t, c.want, status(e.list("/v1/transactions?customer_id="+cus, h...)), c.version)
			assert.Equal(t, c.want, status(e.list("/v1/transactions/by-order-reference/v3d-"+c.version, h...)), c.version)
			assert.Equal(t, c.want, e.Do("GET", "/v1/transactions/"+id, nil, h...).Map(t)["status"], c.version)
			hist := e.list("/v1/transactions/"+id+"/history", h...)
			assert.Equal(t, c.want, hist[len(hist)-1]["to"], c.version)
		}
	})
}

// TestOffSessionIsDocumentedWithItsVersion: the document states the version
// that added off_session, and the recurring payment's answer documents
// every transaction field (its schema is a copy of Transaction's plus
// next_action).
func TestOffSessionIsDocumentedWithItsVersion(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.Document(), &doc))
	s := doc.Components.Schemas
	assert.True(t, strings.HasPrefix(s["RecurringPaymentRequest"].Properties["off_session"].Description, "Since version 2023-09-01"))
	for name := range s["Transaction"].Properties {
		assert.Contains(t, s["RecurringPayment"].Properties, name, "RecurringPayment lacks the transaction field %s", name)
	}
	assert.Len(t, s["RecurringPayment"].Properties, len(s["Transaction"].Properties)+1)
}
