package checkout_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// strictCase is one way to break a valid body that the strict decoder must
// refuse with a 400 naming param (issue 8): the bad-input rows every route
// with a body shares.
type strictCase struct {
	name, body, param string
}

// strictCases breaks base (a valid body) at str (a top-level string field it
// holds) and, when num is set, at the integer amount.value.
func strictCases(t *testing.T, base map[string]any, str string, num bool) []strictCase {
	t.Helper()
	raw, err := json.Marshal(base)
	require.NoError(t, err)
	body := string(raw)
	// with replaces str's value with v, written as raw JSON text.
	with := func(v string) string {
		b := map[string]any{}
		for k, x := range base {
			b[k] = x
		}
		b[str] = "\x00mark\x00"
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		return strings.Replace(string(raw), `"\u0000mark\u0000"`, v, 1)
	}
	upper := strings.ToUpper(str[:1]) + str[1:]
	cs := []strictCase{
		{"case-variant name", `{"` + upper + `":"x",` + body[1:], upper},
		{"duplicate name", `{"` + str + `":"x",` + body[1:], str},
		{"null body", `null`, ""},
		{"null field", with(`null`), str},
		{"NUL", with(`"a\u0000b"`), str},
		{"C0 control", with(`"a\u001fb"`), str},
		{"invalid UTF-8", with("\"a\xc3\x28b\""), str},
		{"lone surrogate", with(`"a\ud83db"`), str},
		{"bidi override", with(`"abc\u202edef"`), str},
		{"bidi isolate", with("\"abc\u2068def\u2069\""), str},
	}
	if num {
		b := map[string]any{}
		for k, x := range base {
			b[k] = x
		}
		delete(b, "amount")
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		withAmount := func(v string) string { return `{"amount":{"value":` + v + `,"currency":"EUR"},` + string(raw)[1:] }
		cs = append(cs,
			strictCase{"integer as 761.0", withAmount(`761.0`), "amount.value"},
			strictCase{"integer as 7.61e2", withAmount(`7.61e2`), "amount.value"},
			strictCase{"int64 max + 1", withAmount(`9223372036854775808`), "amount.value"},
			strictCase{"int64 min - 1", withAmount(`-9223372036854775809`), "amount.value"},
			strictCase{"duplicate nested name", `{"amount":{"value":1000,"value":1,"currency":"EUR"},` + string(raw)[1:], "amount.value"},
			strictCase{"case-variant nested name", `{"amount":{"value":1000,"Value":1,"currency":"EUR"},` + string(raw)[1:], "amount.Value"},
			strictCase{"null object", `{"amount":null,` + string(raw)[1:], "amount"},
		)
	}
	return cs
}

// TestStrictInputOnEveryRoute: every checkout route with a body refuses the
// strict decoder's cases (case-variant and duplicate names, null, NUL and
// other controls, invalid UTF-8, lone surrogates, bidi overrides, integers
// with a fraction or past int64) with a 400 naming the field, and nothing
// is stored.
func TestStrictInputOnEveryRoute(t *testing.T) {
	e := newEnv(t)
	ck := e.NewClientKey(origin)
	s := createSession(t, e, nil)
	client := "/v2/client/sessions/" + s.ID
	pm := card("4111111111111111")
	routes := []struct {
		path, key string
		base      map[string]any
		str       string
		num       bool
	}{
		{"/v2/sessions", e.Key, sessionBody(e, nil), "reference", true},
		{"/v2/paymentMethods", e.Key, map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}, "shopperReference": "shopper-1"}, "shopperReference", true},
		{"/v2/payments", e.Key, paymentBody("ord-1", pm), "reference", true},
		{"/v2/payments/details", e.Key, map[string]any{"details": map[string]any{"redirectResult": "x"}, "paymentData": "pd"}, "paymentData", false},
		{client + "/setup", ck, map[string]any{"sessionData": s.SessionData}, "sessionData", false},
		{client + "/paymentMethods", ck, map[string]any{"sessionData": s.SessionData}, "sessionData", false},
		{client + "/payments", ck, map[string]any{"sessionData": s.SessionData, "paymentMethod": pm, "amount": map[string]any{"value": 1000, "currency": "EUR"}}, "sessionData", true},
		{client + "/payments/details", ck, map[string]any{"sessionData": s.SessionData, "details": map[string]any{"redirectResult": "x"}}, "sessionData", false},
		{"/test-helpers/payments/pay_x/challenge", e.Key, map[string]any{"password": "password"}, "password", false},
	}
	for _, rt := range routes {
		for _, c := range strictCases(t, rt.base, rt.str, rt.num) {
			t.Run(rt.path+" "+c.name, func(t *testing.T) {
				r := e.DoKey(rt.key, "POST", rt.path, c.body, "Origin", origin)
				require.Equal(t, 400, r.Status, "%s: %s", c.body, r.Body)
				param, _ := r.Err(t)["param"].(string)
				assert.Equal(t, c.param, param, "%s: %s", c.body, r.Body)
			})
		}
	}
	assert.Empty(t, storedPayments(t, e, e.Account.ID), "no bad request records a payment")

	// lineItems[].description is text shown to shoppers (chars:"text"): line
	// breaks and right-to-left text are kept; a NUL is not.
	desc := "Shoes\nsize 42 \u202bשלום\u202c"
	r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"lineItems": []any{map[string]any{"description": desc, "quantity": 1, "amountIncludingTax": 1000}}}))
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, desc, r.Map(t)["lineItems"].([]any)[0].(map[string]any)["description"])
	r = e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"lineItems": []any{map[string]any{"description": "a\x00b"}}}))
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "lineItems[0].description", r.Err(t)["param"])
}
