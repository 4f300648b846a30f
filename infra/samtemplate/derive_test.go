package samtemplate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

func routes(rs ...string) []registry.Route {
	var out []registry.Route
	for _, r := range rs {
		m, p, _ := strings.Cut(r, " ")
		out = append(out, registry.Route{Method: m, Path: p})
	}
	return out
}

func TestRouteKeysCoverEachGroupWithItsOwnPrefixes(t *testing.T) {
	groups := []registry.Group{
		{Function: "HealthFunction", CatchAll: true, Routes: routes("GET /health")},
		{Function: "LinksFunction", Routes: routes("POST /v1/links", "GET /v1/links", "GET /v1/links/{id}", "POST /v1/links/{id}/cancel")},
		{Function: "TxFunction", Routes: routes("GET /v1/tx", "GET /v1/tx/{id}", "GET /v1/tx/by-ref/{ref}")},
		{Function: "TxOpsFunction", Routes: routes("POST /v1/tx/{id}/refund")},
		{Function: "MethodsFunction", Routes: routes("GET /v1/same")},
		{Function: "OtherMethodsFunction", Routes: routes("POST /v1/same")},
	}
	got := registry.RouteKeys(groups)
	assert.Equal(t, map[string][]string{
		"HealthFunction": {"$default", "ANY /health"},
		"LinksFunction":  {"ANY /v1/links", "ANY /v1/links/{proxy+}"},
		// by-ref and refund overlap in every segment ({id} may be "by-ref",
		// {ref} may be "refund"), so only their methods tell them apart.
		"TxFunction":    {"ANY /v1/tx", "ANY /v1/tx/{id}", "GET /v1/tx/by-ref/{ref}"},
		"TxOpsFunction": {"POST /v1/tx/{id}/refund"},
		// One path, two groups: a method-specific key each.
		"MethodsFunction":      {"GET /v1/same"},
		"OtherMethodsFunction": {"POST /v1/same"},
	}, got)

	keys := map[string]string{}
	for fn, ks := range got {
		for _, k := range ks {
			keys[k] = fn
		}
	}
	for _, g := range groups {
		for _, r := range g.Routes {
			fn, key, found := Match(keys, r.Method, distinctPath(r.Path))
			assert.True(t, found)
			assert.Equal(t, g.Function, fn, "%s reached %s through %s", r.Pattern(), fn, key)
		}
	}
	fn, key, _ := Match(keys, "GET", "/v2/nothing")
	assert.Equal(t, "HealthFunction", fn)
	assert.Equal(t, registry.DefaultRoute, key)
	fn, _, _ = Match(keys, "DELETE", "/v1/links/x/y/z")
	assert.Equal(t, "LinksFunction", fn, "an undeclared path below a group's prefix reaches that group, which answers 404")
}

func distinctPath(p string) string {
	segs := segments(p)
	for i, s := range segs {
		if isParam(s) {
			segs[i] = "p" + string(rune('0'+i))
		}
	}
	return "/" + strings.Join(segs, "/")
}

func TestMatchPrefersTheMostSpecificRoute(t *testing.T) {
	keys := map[string]string{
		"ANY /a/{proxy+}":   "greedy",
		"ANY /a/b/{proxy+}": "longer-greedy",
		"ANY /a/{id}":       "param",
		"ANY /a/lit":        "literal",
		"GET /a/lit":        "method",
		"$default":          "default",
	}
	for path, want := range map[string]string{
		"GET /a/lit":  "method",
		"POST /a/lit": "literal",
		"GET /a/x":    "param",
		"GET /a/x/y":  "greedy",
		"GET /a/b/c":  "longer-greedy",
		"GET /a":      "default",
		"GET /":       "default",
	} {
		m, p, _ := strings.Cut(path, " ")
		got, _, found := Match(keys, m, p)
		assert.True(t, found)
		assert.Equal(t, want, got, path)
	}
	_, _, found := Match(map[string]string{"GET /x": "x"}, "GET", "/y")
	assert.False(t, found, "no $default, no match")
}

// A stream consumer derives its stream read grant and its DLQ from its
// declaration.
func TestStreamGrantsDerive(t *testing.T) {
	good := registry.Group{Function: "AFunction", Dir: "a", Routes: routes("GET /a"), OpenAPI: "a.json", CatchAll: true}
	pub := registry.Group{Function: "WebhookPublisherFunction", Dir: "webhook-publisher", Streams: store.TableEvents,
		Tables: []registry.Table{{Name: store.TableAccounts, Actions: []string{"Query"}}}}
	assert.Equal(t, "WebhookPublisherDLQ", StreamDLQ(pub))
	assert.Equal(t, []registry.Grant{
		{Policy: "Statement", Actions: []string{"dynamodb:DescribeStream", "dynamodb:GetRecords", "dynamodb:GetShardIterator", "dynamodb:ListStreams"}, Resources: []string{"EventsTable"}},
		{Policy: "Statement", Actions: []string{"sqs:SendMessage"}, Resources: []string{"WebhookPublisherDLQ"}},
	}, StreamGrants(pub))
	assert.Nil(t, StreamGrants(good))
	assert.Empty(t, StreamDLQ(good))
	assert.Equal(t, "IdempotencyTable", TableID(store.TableIdempotency))
	assert.Equal(t, []string{"dynamodb:GetItem", "dynamodb:Query"},
		TableActions(registry.Table{Name: store.TableEvents, Actions: []string{"GetItem", "Query"}}))
}
