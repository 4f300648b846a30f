package beneficiaries

import (
	"testing"

	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestWalkThrough is docs/beneficiaries.md's walk-through (section "Beneficiaries,
// distributions and bank invoices"), on both stores: invoice a payer and
// pay it in the sandbox (the merchant's available balance), register a
// beneficiary, distribute to it, settle it by payment order, and move the
// rest of what it holds back to the merchant.
func TestWalkThrough(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		inv := func(d *app.Deps) (httpapi.Group, error) {
			return invoices.New(invoices.Config{Store: d.Store, Clock: d.Clock, Log: d.Log}).Group(), nil
		}
		bal := func(d *app.Deps) (httpapi.Group, error) {
			return balance.New(balance.Config{Store: d.Store, Queue: d.Queue, Clock: d.Clock, Log: d.Log, Processor: payoutprocessor.New(d.Store, d.Clock)}).Group(), nil
		}
		e := newEnv(t, b, options{more: []apitest.Builder{inv, bal}})
		acct := e.Account.ID

		// 1. Invoice a payer by phone; the sandbox bank pays it.
		r := e.post("/v1/invoices", map[string]any{"amount": map[string]any{"value": 500000, "currency": "KZT"},
			"payer": map[string]any{"phone": "+77011234567"}, "description": "Order 1001", "order_reference": "order-1001"})
		require.Equal(t, 201, r.Status, string(r.Body))
		invoice := r.Map(t)["id"].(string)
		r = e.post("/test-helpers/invoices/"+invoice+"/pay", nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "paid", r.Map(t)["status"])

		// 2. Register a beneficiary.
		ben := e.beneficiary(map[string]any{"name": "Aigerim Sarsenova", "type": "person", "iin": "900101300017",
			"iban": "KZ699990000000000001", "bic": "CASPKZKA", "kbe": "19"})

		// 3. Distribute: what the merchant can distribute, then one line.
		var db struct {
			Data []DistBalance `json:"data"`
		}
		e.Do("GET", "/v1/distributions/balance", nil).JSON(t, &db)
		require.Len(t, db.Data, 1)
		assert.EqualValues(t, 500000, db.Data[0].Available)
		r = e.post("/v1/distributions", map[string]any{"reference": "payroll-2024-05",
			"lines": []any{map[string]any{"beneficiary_id": ben, "amount": map[string]any{"value": 300000, "currency": "KZT"}}}})
		require.Equal(t, 201, r.Status, string(r.Body))
		assert.Equal(t, "completed", r.Map(t)["status"])

		// 4. Settle: a payment order to the beneficiary's bank account.
		r = e.post("/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": ben,
			"amount": map[string]any{"value": 250000, "currency": "KZT"}, "purpose_code": "119",
			"description": "Payout for May", "request_id": "payout-2024-05-aigerim"})
		require.Equal(t, 201, r.Status, string(r.Body))
		order := r.Map(t)["id"].(string)
		assert.Equal(t, "created", r.Map(t)["status"])
		e.drain()
		assert.Equal(t, "paid", e.getOrder(order)["status"])

		// 5. Move the rest back to the merchant.
		r = e.post("/v1/merchants/beneficiaries/"+ben+"/transfer", map[string]any{"amount": map[string]any{"value": 50000, "currency": "KZT"}})
		require.Equal(t, 201, r.Status, string(r.Body))

		got := e.Do("GET", "/v1/merchants/beneficiaries/"+ben, nil).Map(t)
		assert.Equal(t, []any{map[string]any{"currency": "KZT", "available": 0.0, "reserved": 0.0}}, got["balances"])
		var mb struct {
			Data []balance.CurrencyBalance `json:"data"`
		}
		e.Do("GET", "/v1/balance", nil).JSON(t, &mb)
		require.Len(t, mb.Data, 1)
		assert.EqualValues(t, 250000, mb.Data[0].Available, "500000 invoiced - 300000 distributed + 50000 back")
		assert.EqualValues(t, -250000, e.bal(acct, "KZT", ledger.Bank), "the invoice in (-500000), the order out (+250000)")
		e.check(acct)
	})
}
