package openapi_test

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/openapi"
)

// The names rule (docs/conventions.md): the Pay API and the Gate API
// speak snake_case; checkout (/v2/..., its test helper
// /test-helpers/payments/..., which answers as /v2/payments/details does, and
// the hosted payment page's drop-in calls /pay/..., which are the drop-in's
// /v2/client/... calls for a payment link) keeps Adyen Checkout's names,
// camelCase; the wallet (/v1/wallet/..., and its
// test helpers /test-helpers/wallet/..., which answer with its resource) keeps
// the spec's camelCase (§2.2, §2.3).
var (
	snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	camelCase = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)
)

// nameRule is what a path's names must be: in its case, or one of the names
// of the API it copies (Adyen's own, such as IBAN or cupsecureplus.smscode).
type nameRule struct {
	name  string
	re    *regexp.Regexp
	names map[string]bool
}

func (r nameRule) allows(name string) bool { return r.re.MatchString(name) || r.names[name] }

func ruleFor(path string, adyen map[string]bool) nameRule {
	switch {
	case strings.HasPrefix(path, "/v2/"), strings.HasPrefix(path, "/test-helpers/payments/"), strings.HasPrefix(path, "/pay/"):
		return nameRule{"camelCase (checkout, wallet)", camelCase, adyen}
	case strings.HasPrefix(path, "/v1/wallet/"), strings.HasPrefix(path, "/test-helpers/wallet/"):
		return nameRule{"camelCase (checkout, wallet)", camelCase, nil}
	}
	return nameRule{"snake_case (Pay API, Gate API)", snakeCase, nil}
}

// foreignNames are components that copy another API's object whole, in that
// API's names, because the merchant's page hands them to it as they are: a
// Google Pay PaymentDataRequest (POST /v1/googlepay/sessions); or because
// that API sends them to the service: Adyen's notifications.
var foreignNames = map[string]nameRule{
	"#/components/schemas/GooglePayPaymentDataRequest": {"camelCase (Google Pay API)", camelCase, nil},
	// Adyen's NotificationRequest (POST /webhooks/adyen/{connector_id}), as
	// Adyen sends it: its item wrapper is capitalised.
	"#/components/schemas/AdyenNotificationRequest": {"camelCase (Adyen notifications)", camelCase, map[string]bool{"NotificationRequestItem": true}},
}

// adyenNames is every property name of Adyen's Checkout API v71 (the copy
// checkout's tests validate against).
func adyenNames(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("../../pay/checkout/testdata/adyen-checkout-v71.json")
	require.NoError(t, err)
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	names := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for n := range props {
					names[n] = true
				}
			}
			for _, sub := range v {
				walk(sub)
			}
		case []any:
			for _, sub := range v {
				walk(sub)
			}
		}
	}
	walk(doc)
	require.True(t, names["pspReference"] && names["IBAN"], "Adyen's document has its names")
	return names
}

// knownViolations are names the document breaks the rule with today, each
// with why it is there, keyed by rule, component and name. The test fails
// when one is no longer needed, so the list only shrinks.
var knownViolations = map[string]string{
	"camelCase (checkout, wallet) #/components/schemas/Error request_id": "checkout answers errors in the platform's " +
		"one error envelope ({\"error\": {type, code, message, param, request_id}}), not Adyen's " +
		"{status, errorCode, message, errorType, pspReference}",
	"camelCase (checkout, wallet) #/components/schemas/WalletTransactionList has_more": "the wallet's list keeps the " +
		"platform's one list envelope ({data, has_more, next_cursor}), which every client's pager reads",
	"camelCase (checkout, wallet) #/components/schemas/WalletTransactionList next_cursor": "as has_more",
}

// TestEveryDocumentedNameFollowsTheNamesRule walks every operation of the
// merged document: query parameters, request bodies and responses, through
// every $ref, and checks each property name against its path's rule.
func TestEveryDocumentedNameFollowsTheNamesRule(t *testing.T) {
	w := walkNames(t, openapi.Document(), adyenNames(t))
	for _, v := range w.violations {
		t.Error(v)
	}
	for k, why := range knownViolations {
		if !w.excused[k] {
			t.Errorf("known violation %q (%s) is gone: drop it from knownViolations", k, why)
		}
	}
	// A walk that saw nothing would pass vacuously: it must reach the names
	// the spec fixes on both sides of the rule.
	for _, seen := range []string{
		"snake_case (Pay API, Gate API) external_ref", "snake_case (Pay API, Gate API) product_id",
		"snake_case (Pay API, Gate API) request_id", "snake_case (Pay API, Gate API) currency_code",
		"camelCase (checkout, wallet) returnUrl", "camelCase (checkout, wallet) sessionData",
		"camelCase (checkout, wallet) merchantAccount", "camelCase (Google Pay API) allowedPaymentMethods",
		"snake_case (Pay API, Gate API) payment_data_request",
	} {
		assert.True(t, w.checked[seen], "the walk never checked %s", seen)
	}
	t.Logf("%d distinct (rule, name) pairs checked", len(w.checked))
}

// TestNamesWalkReportsViolations proves the walk can fail: a camelCase name
// nested behind a $ref, an array and an allOf under a Gate path, and a
// snake_case query parameter under a checkout path, are each reported; the
// same names on the other side of the rule are not.
func TestNamesWalkReportsViolations(t *testing.T) {
	doc := `{
	  "paths": {
	    "/orders": {"post": {
	      "parameters": [{"name": "pageSize", "in": "query"}, {"name": "orderId", "in": "path"}],
	      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
	      "responses": {"201": {"content": {"application/json": {"schema": {"allOf": [{"properties": {"balanceAfter": {}}}]}}}}}}},
	    "/v2/payments": {"post": {
	      "parameters": [{"name": "page_size", "in": "query"}],
	      "requestBody": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Order"}}}},
	      "responses": {"200": {"$ref": "#/components/responses/Payment"}}}}
	  },
	  "components": {
	    "responses": {"Payment": {"content": {"application/json": {"schema": {"properties": {"psp_reference": {}}}}}}},
	    "schemas": {"Order": {"properties": {"lines": {"type": "array", "items": {"properties": {"unitPrice": {}, "sku": {}}}}}}}
	  }
	}`
	w := walkNames(t, []byte(doc), map[string]bool{"IBAN": true})
	sort.Strings(w.violations)
	assert.Equal(t, []string{
		`POST /orders query parameter pageSize: "pageSize" is not snake_case (Pay API, Gate API)`,
		`POST /orders request body .lines[].unitPrice: "unitPrice" is not snake_case (Pay API, Gate API)`,
		`POST /orders response 201 .allOf[0].balanceAfter: "balanceAfter" is not snake_case (Pay API, Gate API)`,
		`POST /v2/payments query parameter page_size: "page_size" is not camelCase (checkout, wallet)`,
		`POST /v2/payments response 200 .psp_reference: "psp_reference" is not camelCase (checkout, wallet)`,
	}, w.violations)
}

func TestNameRules(t *testing.T) {
	for _, n := range []string{"off_session", "payment_link_id", "id", "is_test", "line2", "three_ds2"} {
		assert.Regexp(t, snakeCase, n)
	}
	for _, n := range []string{"offSession", "paymentLinkId", "Id", "_id", "id_", "a__b", "has-more", "2fa"} {
		assert.NotRegexp(t, snakeCase, n)
	}
	for _, n := range []string{"returnUrl", "threeDS2RequestData", "walletTransactionId", "amount", "iin"} {
		assert.Regexp(t, camelCase, n)
	}
	for _, n := range []string{"return_url", "ReturnUrl", "return-url", "2fa"} {
		assert.NotRegexp(t, camelCase, n)
	}
}

type namesWalk struct {
	doc        map[string]any
	violations []string
	checked    map[string]bool // "rule name" pairs seen
	excused    map[string]bool // knownViolations met
	seen       map[string]bool // "rule ref" pairs walked (refs may be cyclic)
}

func walkNames(t *testing.T, raw []byte, adyen map[string]bool) *namesWalk {
	t.Helper()
	w := &namesWalk{checked: map[string]bool{}, excused: map[string]bool{}}
	require.NoError(t, json.Unmarshal(raw, &w.doc))
	paths, _ := w.doc["paths"].(map[string]any)
	require.NotEmpty(t, paths)
	for _, p := range sortedKeys(paths) {
		item, _ := w.resolve(paths[p]).(map[string]any)
		rule := ruleFor(p, adyen)
		shared, _ := item["parameters"].([]any)
		for _, m := range sortedKeys(item) {
			op, ok := item[m].(map[string]any)
			if !ok || m == "parameters" {
				continue
			}
			w.seen = map[string]bool{} // each operation is reported on its own
			where := strings.ToUpper(m) + " " + p
			params, _ := op["parameters"].([]any)
			for _, prm := range append(append([]any{}, shared...), params...) {
				prm, _ := w.resolve(prm).(map[string]any)
				// Path parameters are template names, never on the wire;
				// headers keep HTTP's own spelling.
				if in, _ := prm["in"].(string); in == "query" || in == "cookie" {
					name, _ := prm["name"].(string)
					w.check(rule, where+" "+in+" parameter "+name, "", name)
					w.schema(rule, where+" "+in+" parameter "+name, "", "", prm["schema"])
				}
			}
			if body, ok := w.resolve(op["requestBody"]).(map[string]any); ok {
				w.content(rule, where+" request body", body)
			}
			responses, _ := op["responses"].(map[string]any)
			for _, code := range sortedKeys(responses) {
				if resp, ok := w.resolve(responses[code]).(map[string]any); ok {
					w.content(rule, where+" response "+code, resp)
				}
			}
		}
	}
	return w
}

func (w *namesWalk) content(rule nameRule, where string, holder map[string]any) {
	content, _ := holder["content"].(map[string]any)
	for _, mt := range sortedKeys(content) {
		if media, ok := content[mt].(map[string]any); ok {
			w.schema(rule, where, "", "", media["schema"])
		}
	}
}

// schema checks every property name reachable from s; at is the JSON path
// inside the body, for the report, and component the last $ref followed.
func (w *namesWalk) schema(rule nameRule, where, at, component string, s any) {
	m, ok := s.(map[string]any)
	if !ok {
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		if foreign, ok := foreignNames[ref]; ok {
			rule = foreign
		}
		key := rule.name + " " + ref
		if w.seen[key] {
			return
		}
		w.seen[key] = true
		w.schema(rule, where, at, ref, w.resolve(m))
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, name := range sortedKeys(props) {
			w.check(rule, fmt.Sprintf("%s %s.%s", where, at, name), component, name)
			w.schema(rule, where, at+"."+name, component, props[name])
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "unevaluatedProperties", "unevaluatedItems"} {
		w.schema(rule, where, at+"[]", component, m[k])
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
		list, _ := m[k].([]any)
		for i, sub := range list {
			w.schema(rule, where, fmt.Sprintf("%s.%s[%d]", at, k, i), component, sub)
		}
	}
	for _, k := range []string{"patternProperties", "dependentSchemas", "$defs"} {
		subs, _ := m[k].(map[string]any)
		for _, name := range sortedKeys(subs) {
			w.schema(rule, where, at, component, subs[name])
		}
	}
}

func (w *namesWalk) check(rule nameRule, where, component, name string) {
	w.checked[rule.name+" "+name] = true
	if rule.allows(name) {
		return
	}
	if key := rule.name + " " + component + " " + name; knownViolations[key] != "" {
		w.excused[key] = true
		return
	}
	w.violations = append(w.violations, fmt.Sprintf("%s: %q is not %s", where, name, rule.name))
}

// resolve follows a local $ref ("#/components/schemas/X") to what it names;
// anything else is returned as it is.
func (w *namesWalk) resolve(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	ref, ok := m["$ref"].(string)
	if !ok || !strings.HasPrefix(ref, "#/") {
		return v
	}
	var cur any = w.doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		next, _ := cur.(map[string]any)
		cur = next[part]
	}
	return cur
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
