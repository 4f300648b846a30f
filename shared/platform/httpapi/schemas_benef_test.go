package httpapi_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

// Valid bodies of the beneficiaries, payment orders, distributions and
// invoices (shared/pay/beneficiaries, shared/pay/invoices).

// kzIBAN is the sandbox bank's IBAN that is paid.
const kzIBAN = "KZ699990000000000001"

func beneficiaryBody() map[string]any {
	return map[string]any{"name": "Aigerim Sarsenova", "type": "person", "iin": "900101300017", "iban": kzIBAN, "bic": "CASPKZKA",
		"kbe": "19", "email": "aigerim@example.kz", "metadata": map[string]any{"erp": "V-1"}}
}

// funded makes KZT available by an invoice the sandbox pays.
func (f *fixture) funded(t *testing.T, value int) {
	inv := f.ok(t, "/v1/invoices", map[string]any{"amount": map[string]any{"value": value, "currency": "KZT"},
		"payer": map[string]any{"phone": "+77011234567"}, "description": "funds", "order_reference": "funds"})
	f.ok(t, "/test-helpers/invoices/"+inv["id"].(string)+"/pay", map[string]any{})
}

// holding is a beneficiary holding value KZT.
func (f *fixture) holding(t *testing.T, value int) string {
	id := f.ok(t, "/v1/merchants/beneficiaries", beneficiaryBody())["id"].(string)
	if value > 0 {
		f.funded(t, value)
		f.ok(t, "/v1/distributions", map[string]any{"reference": "funds", "lines": []any{
			map[string]any{"beneficiary_id": id, "amount": map[string]any{"value": value, "currency": "KZT"}}}})
	}
	return id
}

func invoiceBody(payer map[string]any) map[string]any {
	return map[string]any{"amount": map[string]any{"value": 15000, "currency": "KZT"}, "payer": payer,
		"description": "Order 42", "order_reference": "order-42", "expires_at": time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339),
		"line_items": []any{map[string]any{"name": "Coffee", "quantity": 2, "unit_amount": 7000},
			map[string]any{"name": "Delivery", "quantity": 1, "unit_amount": 1000}},
		"metadata": map[string]any{"crm": "A-1"}}
}

func beneficiaryOperations() []operation {
	v := func(fn func(t *testing.T, f *fixture) (string, map[string]any)) []func(t *testing.T, f *fixture) (string, map[string]any) {
		return []func(t *testing.T, f *fixture) (string, map[string]any){fn}
	}
	kzt := func(n int) map[string]any { return map[string]any{"value": n, "currency": "KZT"} }
	return []operation{
		{path: "/v1/merchants/beneficiaries", variants: []func(t *testing.T, f *fixture) (string, map[string]any){
			func(t *testing.T, f *fixture) (string, map[string]any) {
				return "/v1/merchants/beneficiaries", beneficiaryBody()
			},
			func(t *testing.T, f *fixture) (string, map[string]any) {
				return "/v1/merchants/beneficiaries", map[string]any{"name": "Kaspi Courier LLP", "type": "company", "bin": "971240001315",
					"iban": "KZ86125KZT5004100100", "bic": "HSBKKZKX", "kbe": "17"}
			},
		}},
		{path: "/v1/merchants/beneficiaries/{id}", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.holding(t, 0)
			return "/v1/merchants/beneficiaries/" + id, map[string]any{"name": "A. Sarsenova", "iban": "KZ86125KZT5004100100", "bic": "HSBKKZKX",
				"kbe": "29", "email": "a.s@example.kz", "status": "disabled", "metadata": map[string]any{"erp": "V-2"}}
		})},
		{path: "/v1/merchants/beneficiaries/{id}/transfer", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.holding(t, 1000)
			return "/v1/merchants/beneficiaries/" + id + "/transfer", map[string]any{"amount": kzt(400), "description": "returned",
				"metadata": map[string]any{"why": "unused"}}
		})},
		{path: "/v1/merchants/settlement-payment-orders", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.holding(t, 1000)
			return "/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": id, "amount": kzt(600), "purpose_code": "119",
				"description": "Payout for May", "request_id": uuid.NewString(), "metadata": map[string]any{"run": "5"}}
		})},
		{path: "/v1/distributions", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.holding(t, 0)
			f.funded(t, 500)
			return "/v1/distributions", map[string]any{"reference": "payroll", "lines": []any{
				map[string]any{"beneficiary_id": id, "amount": kzt(500)}}, "metadata": map[string]any{"run": "5"}}
		})},
		{path: "/v1/invoices", variants: []func(t *testing.T, f *fixture) (string, map[string]any){
			func(t *testing.T, f *fixture) (string, map[string]any) {
				return "/v1/invoices", invoiceBody(map[string]any{"phone": "+77011234567"})
			},
			func(t *testing.T, f *fixture) (string, map[string]any) {
				return "/v1/invoices", invoiceBody(map[string]any{"iin": "900101300017"})
			},
			func(t *testing.T, f *fixture) (string, map[string]any) {
				return "/v1/invoices", invoiceBody(map[string]any{"bin": "971240001315"})
			},
		}},
		{path: "/v1/invoices/{id}/cancel", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.ok(t, "/v1/invoices", invoiceBody(map[string]any{"phone": "+77011234567"}))["id"].(string)
			return "/v1/invoices/" + id + "/cancel", map[string]any{}
		})},
		{path: "/test-helpers/invoices/{id}/pay", variants: v(func(t *testing.T, f *fixture) (string, map[string]any) {
			id := f.ok(t, "/v1/invoices", invoiceBody(map[string]any{"phone": "+77011234567"}))["id"].(string)
			return "/test-helpers/invoices/" + id + "/pay", map[string]any{}
		})},
	}
}
