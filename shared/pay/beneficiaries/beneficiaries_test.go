package beneficiaries

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestBeneficiaryLifecycle: a person and a company are registered, read
// (with their balances), listed with filters, changed and disabled; a
// replay of the create answers the first beneficiary; on both stores.
func TestBeneficiaryLifecycle(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		key := e.key()
		r := e.Do("POST", "/v1/merchants/beneficiaries", personBody(ibanPaid), "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, string(r.Body))
		p := r.Map(t)
		assert.Equal(t, "beneficiary", p["object"])
		assert.Equal(t, "person", p["type"])
		assert.Equal(t, iinPerson, p["iin"])
		assert.NotContains(t, p, "bin")
		assert.Equal(t, "active", p["status"])
		assert.Equal(t, false, p["livemode"])
		r2 := e.Do("POST", "/v1/merchants/beneficiaries", personBody(ibanPaid), "Idempotency-Key", key)
		require.Equal(t, 201, r2.Status)
		assert.Equal(t, "true", r2.Header.Get("Idempotent-Replayed"))
		assert.Equal(t, p["id"], r2.Map(t)["id"])

		c := e.beneficiary(companyBody(ibanOther))
		got := e.Do("GET", "/v1/merchants/beneficiaries/"+c, nil).Map(t)
		assert.Equal(t, binCompany, got["bin"])
		assert.Equal(t, []any{}, got["balances"], "nothing held yet")

		e.credit(c, 12345, "KZT")
		got = e.Do("GET", "/v1/merchants/beneficiaries/"+c, nil).Map(t)
		assert.Equal(t, []any{map[string]any{"currency": "KZT", "available": 12345.0, "reserved": 0.0}}, got["balances"])

		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/merchants/beneficiaries", nil).JSON(t, &list)
		require.Len(t, list.Data, 2)
		assert.Equal(t, c, list.Data[0]["id"], "newest first")
		assert.NotContains(t, list.Data[0], "balances", "lists carry no balances")

		r = e.post("/v1/merchants/beneficiaries/"+c, map[string]any{"name": "Kaspi Courier", "status": "disabled", "iban": ibanClosed,
			"metadata": map[string]any{"erp": "V-17"}})
		require.Equal(t, 200, r.Status, string(r.Body))
		u := r.Map(t)
		assert.Equal(t, "Kaspi Courier", u["name"])
		assert.Equal(t, "disabled", u["status"])
		assert.Equal(t, ibanClosed, u["iban"])
		assert.Equal(t, binCompany, u["bin"], "the identity stays")
		assert.Equal(t, map[string]any{"erp": "V-17"}, u["metadata"])
		e.Do("GET", "/v1/merchants/beneficiaries?status=disabled", nil).JSON(t, &list)
		require.Len(t, list.Data, 1)
		assert.Equal(t, c, list.Data[0]["id"])

		// The type and identifier cannot change; a code that no longer suits
		// the type is refused.
		r = e.post("/v1/merchants/beneficiaries/"+c, map[string]any{"bin": "940140000385"})
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param := errOf(t, r)
		assert.Equal(t, "bin", param)
		r = e.post("/v1/merchants/beneficiaries/"+c, map[string]any{"kbe": "19"})
		require.Equal(t, 400, r.Status, string(r.Body))
		_, param = errOf(t, r)
		assert.Equal(t, "kbe", param)
		r = e.post("/v1/merchants/beneficiaries/"+c, map[string]any{"status": "active"})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "active", r.Map(t)["status"])

		// Before 2024-01-15 resources carry no metadata.
		for _, path := range []string{"/v1/merchants/beneficiaries/" + c, "/v1/merchants/beneficiaries", "/v1/distributions"} {
			r = e.Do("GET", path, nil, "Service-Version", "2023-06-01")
			require.Equal(t, 200, r.Status, string(r.Body))
			assert.NotContains(t, string(r.Body), `"metadata"`, path)
		}
	})
}

// TestBeneficiaryBadInput: each identifier that breaks its rule is a 400
// naming the field, and nothing is stored: an IBAN with a wrong check, an
// IBAN of another country, a BIN with a wrong check digit, an IIN with an
// impossible date, a kbe that contradicts the type, and the rest of the
// fields' rules; on both stores.
func TestBeneficiaryBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		with := func(base map[string]any, k string, v any) map[string]any {
			out := map[string]any{}
			for kk, vv := range base {
				out[kk] = vv
			}
			if v == nil {
				delete(out, k)
			} else {
				out[k] = v
			}
			return out
		}
		person, company := personBody(ibanPaid), companyBody(ibanPaid)
		for _, c := range []struct {
			name  string
			body  map[string]any
			param string
		}{
			{"IBAN with a wrong check", with(person, "iban", "KZ87125KZT5004100100"), "iban"},
			{"IBAN of another country", with(person, "iban", "DE89370400440532013000"), "iban"},
			{"IBAN of 19 characters", with(person, "iban", "KZ86125KZT500410010"), "iban"},
			{"IBAN in lower case", with(person, "iban", "kz86125kzt5004100100"), "iban"},
			{"BIN with a wrong check digit", with(company, "bin", "971240001316"), "bin"},
			{"BIN with month 13", with(company, "bin", "971340001315"), "bin"},
			{"IIN with an impossible date", with(person, "iin", "900230300019"), "iin"},
			{"IIN with a wrong check digit", with(person, "iin", "900101300018"), "iin"},
			{"kbe of a company for a person", with(person, "kbe", "17"), "kbe"},
			{"kbe of a person for a company", with(company, "kbe", "19"), "kbe"},
			{"kbe of three digits", with(person, "kbe", "119"), "kbe"},
			{"kbe with residency 3", with(person, "kbe", "39"), "kbe"},
			{"BIC of 9 characters", with(person, "bic", "CASPKZKA0"), "bic"},
			{"BIC of a German bank", with(person, "bic", "DEUTDEFF"), "bic"},
			{"a person with a BIN", with(person, "bin", binCompany), "bin"},
			{"a company with an IIN", with(company, "iin", iinPerson), "iin"},
			{"a person without an IIN", with(person, "iin", nil), "iin"},
			{"a company without a BIN", with(company, "bin", nil), "bin"},
			{"no IBAN", with(person, "iban", nil), "iban"},
			{"no type", with(person, "type", nil), "type"},
			{"an unknown type", with(person, "type", "trust"), "type"},
			{"a blank name", with(person, "name", "   "), "name"},
			{"a bad e-mail", with(person, "email", "Aigerim <a@example.kz>"), "email"},
			{"an unknown field", with(person, "nickname", "A"), "nickname"},
		} {
			r := e.post("/v1/merchants/beneficiaries", c.body)
			require.Equal(t, 400, r.Status, "%s: %s", c.name, r.Body)
			_, param := errOf(t, r)
			assert.Equal(t, c.param, param, c.name)
		}
		var list struct {
			Data []map[string]any `json:"data"`
		}
		e.Do("GET", "/v1/merchants/beneficiaries", nil).JSON(t, &list)
		assert.Empty(t, list.Data, "nothing stored")
		for q, param := range map[string]string{"status=gone": "status", "created_from=yesterday": "created_from", "limit=0": "limit"} {
			r := e.Do("GET", "/v1/merchants/beneficiaries?"+q, nil)
			require.Equal(t, 400, r.Status, q)
			_, p := errOf(t, r)
			assert.Equal(t, param, p, q)
		}
	})
}

// TestTransferToTheMerchant: a beneficiary's balance moves back to the
// merchant's available balance in one entry; more than it holds is a 400
// insufficient_balance with nothing moved, and the same key runs again once
// it holds enough; a replay moves nothing; on both stores.
func TestTransferToTheMerchant(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 10000, "KZT")
		acct := e.Account.ID
		require.EqualValues(t, 0, e.bal(acct, "KZT", ledger.Available))

		body := map[string]any{"amount": map[string]any{"value": 4000, "currency": "KZT"}, "description": "returned"}
		key := e.key()
		r := e.Do("POST", "/v1/merchants/beneficiaries/"+ben+"/transfer", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, string(r.Body))
		tr := r.Map(t)
		assert.Equal(t, "beneficiary_transfer", tr["object"])
		assert.Equal(t, ben, tr["beneficiary_id"])
		r = e.Do("POST", "/v1/merchants/beneficiaries/"+ben+"/transfer", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status)
		assert.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
		assert.EqualValues(t, 4000, e.bal(acct, "KZT", ledger.Available))
		assert.EqualValues(t, 6000, e.bal(acct, "KZT", ledger.Beneficiary(ben)))
		assert.EqualValues(t, 6000, e.bal(acct, "KZT", ledger.BeneficiariesHeld))
		assert.Equal(t, []ledger.EntryType{ledger.EntryBeneficiaryTransfer},
			e.entriesOf(ledger.Source{Type: ledger.SourceTransfer, ID: tr["id"].(string)}))

		key = e.key()
		big := map[string]any{"amount": map[string]any{"value": 6001, "currency": "KZT"}}
		r = e.Do("POST", "/v1/merchants/beneficiaries/"+ben+"/transfer", big, "Idempotency-Key", key)
		require.Equal(t, 400, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		assert.Equal(t, "amount.value", param)
		assert.EqualValues(t, 6000, e.bal(acct, "KZT", ledger.Beneficiary(ben)), "nothing moved")
		e.credit(ben, 1, "KZT")
		r = e.Do("POST", "/v1/merchants/beneficiaries/"+ben+"/transfer", big, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, "the refused attempt was not recorded: %s", r.Body)

		for _, c := range []struct {
			body  map[string]any
			param string
		}{
			{map[string]any{}, "amount"},
			{map[string]any{"amount": map[string]any{"value": 0, "currency": "KZT"}}, "amount.value"},
			{map[string]any{"amount": map[string]any{"value": 1, "currency": "kzt"}}, "amount.currency"},
			{map[string]any{"amount": map[string]any{"value": 1, "currency": "KZT"}, "description": ""}, "description"},
		} {
			r := e.post("/v1/merchants/beneficiaries/"+ben+"/transfer", c.body)
			require.Equal(t, 400, r.Status, string(r.Body))
			_, p := errOf(t, r)
			assert.Equal(t, c.param, p)
		}
		r = e.Do("POST", "/v1/merchants/beneficiaries/"+ben+"/transfer", body)
		require.Equal(t, 400, r.Status, "Idempotency-Key is required")
		e.check(acct)
	})
}

// TestAnotherAccountsRecordsAre404: another account's beneficiary, payment
// order and distribution answer 404 on every route, exactly as missing ones;
// a payment order or a transfer naming another account's beneficiary is a
// 404 naming it, and nothing moves; on both stores.
func TestAnotherAccountsRecordsAre404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{})
		ben := e.beneficiary(personBody(ibanPaid))
		e.credit(ben, 5000, "KZT")
		r := e.post("/v1/merchants/settlement-payment-orders", orderBody(ben, 1000, "req-404"))
		require.Equal(t, 201, r.Status, string(r.Body))
		order := r.Map(t)["id"].(string)
		e.fund(e.Account.ID, 100, "KZT")
		r = e.distribute("KZT", map[string]int64{ben: 100})
		require.Equal(t, 201, r.Status, string(r.Body))
		dist := r.Map(t)["id"].(string)

		_, key := e.other()
		// Each route answers another account's id exactly as an id that
		// exists nowhere (the same status and error, the id aside).
		missing := ids.New()
		transfer := map[string]any{"amount": map[string]any{"value": 1, "currency": "KZT"}}
		for _, c := range []struct {
			method, path string
			id           string
			body         any
		}{
			{"GET", "/v1/merchants/beneficiaries/%s", ben, nil},
			{"POST", "/v1/merchants/beneficiaries/%s", ben, map[string]any{"name": "Stolen"}},
			{"POST", "/v1/merchants/beneficiaries/%s/transfer", ben, transfer},
			{"GET", "/v1/merchants/settlement-payment-orders/%s", order, nil},
			{"GET", "/v1/distributions/%s", dist, nil},
		} {
			answer := func(id string) (int, map[string]any) {
				var r *apitest.Resp
				if c.method == "POST" {
					r = e.DoKey(key, c.method, fmt.Sprintf(c.path, id), c.body, "Idempotency-Key", e.key())
				} else {
					r = e.DoKey(key, c.method, fmt.Sprintf(c.path, id), nil)
				}
				er := r.Err(t)
				require.NotNil(t, er, string(r.Body))
				er["message"] = strings.ReplaceAll(er["message"].(string), id, "<id>")
				delete(er, "request_id") // per request
				return r.Status, er
			}
			st, theirs := answer(c.id)
			assert.Equal(t, 404, st, "%s %s: %v", c.method, c.path, theirs)
			stMissing, none := answer(missing)
			assert.Equal(t, stMissing, st, c.path)
			assert.Equal(t, none, theirs, "%s %s: another account's record reads as a missing one", c.method, c.path)
		}
		r = e.DoKey(key, "POST", "/v1/merchants/settlement-payment-orders", orderBody(ben, 1, "req-other"), "Idempotency-Key", e.key())
		require.Equal(t, 404, r.Status, string(r.Body))
		_, param := errOf(t, r)
		assert.Equal(t, "beneficiary_id", param)
		var list struct {
			Data []map[string]any `json:"data"`
		}
		for _, path := range []string{"/v1/merchants/beneficiaries", "/v1/merchants/settlement-payment-orders", "/v1/distributions"} {
			list.Data = nil
			e.DoKey(key, "GET", path, nil).JSON(t, &list)
			assert.Empty(t, list.Data, path)
		}
		assert.EqualValues(t, 4100, e.bal(e.Account.ID, "KZT", ledger.Beneficiary(ben)), "nothing moved")
		e.check(e.Account.ID)
	})
}
