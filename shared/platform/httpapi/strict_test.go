package httpapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// textFields are the body strings documented as human-written text
// (chars:"text"): line breaks and bidi controls are allowed there. Keyed by
// field, or by path and field where the name means other things elsewhere.
var textFields = map[string]bool{"lineItems[0].description": true, "/v1/disputes/{id}/evidence description": true}

const mark = "\x00mark\x00"

// rawBody is the body that holds mark at segs, with mark's JSON replaced by
// raw JSON text (a value, or a key's quoted string).
func rawBody(t *testing.T, f stringField, raw string) string {
	t.Helper()
	b, err := json.Marshal(bodyWith(f.segs, mark))
	require.NoError(t, err)
	s := strings.Replace(string(b), `"\u0000mark\u0000"`, raw, 1)
	require.NotEqual(t, string(b), s)
	return s
}

// TestEveryBodyFieldFollowsTheStrictRules walks every request body in the
// OpenAPI document, so every route and field is covered, later ones
// included: each documented string (at any depth, map keys included) refuses
// a NUL, a C0 control, invalid UTF-8, a lone surrogate, a bidi override
// (text fields aside) and null; each documented integer refuses 761.0 and
// int64's range plus one; each top-level name refuses a duplicate and a
// case variant; each body refuses null. Every refusal is a 400 naming the
// field.
func TestEveryBodyFieldFollowsTheStrictRules(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	const origin = "https://shop.example.com"
	ck := e.NewClientKey(origin)
	post := func(path, body string) *apitest.Resp {
		p := strings.NewReplacer("{id}", "CS0000", "{orderId}", uuid.NewString(), "{agent_id}", e.Account.ID,
			"{productId}", "1").Replace(path)
		key, headers := e.Key, []string{"Idempotency-Key", uuid.NewString()}
		if strings.HasPrefix(path, "/v2/client/") {
			key, headers = ck, append(headers, "Origin", origin)
		}
		return e.DoKey(key, "POST", p, body, headers...)
	}
	refused := func(t *testing.T, path, body, code, param string) {
		t.Helper()
		r := post(path, body)
		require.Equal(t, 400, r.Status, "%s: %s", body, r.Body)
		er := r.Err(t)
		p, _ := er["param"].(string)
		assert.Equal(t, param, p, "%s: %s", body, r.Body)
		if code != "" {
			assert.Equal(t, code, er["code"], "%s: %s", body, r.Body)
		}
	}

	strs, _ := requestStrings(t)
	bodies := map[string]bool{}
	n := 0
	for _, f := range strs {
		if f.in != "body" || f.method != "post" {
			continue
		}
		bodies[f.path] = true
		key := len(f.segs) > 0 && f.segs[len(f.segs)-1].kind == "key"
		bad := map[string]string{
			"NUL":            `"a\u0000b"`,
			"escape":         `"a\u001bb"`,
			"invalid UTF-8":  "\"a\xe2\x28\xa1b\"",
			"lone surrogate": `"a\udfffb"`,
		}
		if !textFields[f.name] && !textFields[f.path+" "+f.name] {
			bad["bidi override"] = `"a\u202db"`
			bad["bidi isolate"] = `"a\u2067b"`
			bad["line break"] = `"a\nb"`
		}
		if !key {
			bad["null"] = `null`
		}
		t.Run(f.String(), func(t *testing.T) {
			for what, raw := range bad {
				t.Run(what, func(t *testing.T) { refused(t, f.path, rawBody(t, f, raw), "", f.name) })
			}
			if len(f.segs) == 1 && f.segs[0].kind == "prop" {
				v := `"x"`
				refused(t, f.path, `{"`+f.name+`":`+v+`,"`+f.name+`":`+v+`}`, "parameter_duplicate", f.name)
				variant := strings.ToUpper(f.name[:1]) + f.name[1:]
				if variant == f.name {
					variant = strings.ToLower(f.name[:1]) + f.name[1:]
				}
				refused(t, f.path, `{"`+variant+`":`+v+`}`, "parameter_unknown", variant)
			}
		})
		n++
	}
	require.Greater(t, n, 100, "the walk reaches the request bodies")

	ints, _ := requestFields(t, isInteger)
	m := 0
	for _, f := range ints {
		if f.in != "body" || f.method != "post" {
			continue
		}
		t.Run(f.String(), func(t *testing.T) {
			refused(t, f.path, rawBody(t, f, `761.0`), "parameter_invalid_type", f.name)
			refused(t, f.path, rawBody(t, f, `7.61e2`), "parameter_invalid_type", f.name)
			refused(t, f.path, rawBody(t, f, `9223372036854775808`), "", f.name)
			refused(t, f.path, rawBody(t, f, `-9223372036854775809`), "", f.name)
			refused(t, f.path, rawBody(t, f, `null`), "parameter_invalid_type", f.name)
		})
		m++
	}
	require.Greater(t, m, 5, "the walk reaches integer fields")

	// Every POST route, documented body or not, refuses a null body.
	posts := 0
	for _, b := range wiring.HTTP() {
		g, err := b(e.Deps)
		require.NoError(t, err)
		for _, rt := range g.Routes {
			if rt.Method == "POST" && !rt.Form { // a form route refuses JSON whole (415)
				t.Run(rt.Pattern()+" null body", func(t *testing.T) { refused(t, rt.Path, `null`, "body_invalid", "") })
				posts++
			}
		}
	}
	require.GreaterOrEqual(t, posts, len(bodies))
}
