package registry

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/store"
)

func routes(rs ...string) []Route {
	var out []Route
	for _, r := range rs {
		m, p, _ := strings.Cut(r, " ")
		out = append(out, Route{Method: m, Path: p})
	}
	return out
}

func ok(*httpapi.Request) (*httpapi.Response, error) { return nil, nil }

func TestBindKeepsDeclaredRouteSettings(t *testing.T) {
	g := Group{Function: "XFunction", Routes: []Route{
		{Method: "POST", Path: "/x", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline, TestOnly: true},
		{Method: "GET", Path: "/x/{id}", Auth: httpapi.AuthClient},
	}}
	hg := g.Bind(map[string]httpapi.Handler{"POST /x": ok, "GET /x/{id}": ok})
	require.Equal(t, "XFunction", hg.Name)
	require.Len(t, hg.Routes, 2)
	assert.Equal(t, httpapi.Route{Method: "POST", Path: "/x", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline, TestOnly: true},
		withoutHandler(hg.Routes[0]))
	assert.Equal(t, httpapi.Route{Method: "GET", Path: "/x/{id}", Auth: httpapi.AuthClient}, withoutHandler(hg.Routes[1]))
	assert.NotNil(t, hg.Routes[0].Handler)
}

// TestBindAppliesTheGroupsSince: a group's minimum version reaches every
// route it binds, unless the route names its own; a route's body limit is
// kept.
func TestBindAppliesTheGroupsSince(t *testing.T) {
	g := Group{Function: "XFunction", Since: "2023-09-01", Routes: []Route{
		{Method: "GET", Path: "/x"},
		{Method: "POST", Path: "/x", Since: "2024-01-15", MaxBody: 4 << 20},
	}}
	hg := g.Bind(map[string]httpapi.Handler{"GET /x": ok, "POST /x": ok})
	assert.Equal(t, "2023-09-01", hg.Routes[0].Since)
	assert.Zero(t, hg.Routes[0].MaxBody)
	assert.Equal(t, "2024-01-15", hg.Routes[1].Since)
	assert.EqualValues(t, 4<<20, hg.Routes[1].MaxBody)
}

func withoutHandler(r httpapi.Route) httpapi.Route { r.Handler = nil; return r }

func TestBindRefusesMissingOrExtraHandlers(t *testing.T) {
	g := Group{Function: "XFunction", Routes: routes("GET /x", "POST /x")}
	assert.PanicsWithValue(t, "registry: XFunction declares POST /x but binds no handler to it", func() {
		g.Bind(map[string]httpapi.Handler{"GET /x": ok})
	})
	assert.PanicsWithValue(t, "registry: XFunction binds a handler to GET /y, which it does not declare", func() {
		g.Bind(map[string]httpapi.Handler{"GET /x": ok, "POST /x": ok, "GET /y": ok})
	})
}

func TestCheckFindsKeyPrefixCollisions(t *testing.T) {
	web := Group{Function: "WebFunction", Dir: "web", Routes: routes("GET /a"), OpenAPI: "a.json", CatchAll: true}
	areas := []Area{
		{Name: "a", Groups: []Group{web}, Keys: []Key{{Table: "orders", Prefix: "ord#"}, {Table: "ledger", Prefix: "dep#"}}},
		{Name: "b", Keys: []Key{{Table: "ledger", Prefix: "depref#"}, {Table: "payments", Prefix: "ord#"}}},
	}
	assert.Empty(t, Check(areas), "different tables, and dep# does not start depref#")

	areas[1].Keys = append(areas[1].Keys, Key{Table: "orders", Prefix: "ord#x", What: "x"})
	errs := Check(areas)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), `table orders: a's "ord#"`)
	assert.Contains(t, errs[0].Error(), `b's "ord#x"`)

	areas[1].Keys = []Key{{Table: "ledger", Prefix: "dep#"}}
	require.Len(t, Check(areas), 1, "the same prefix twice")
}

func TestCheckFindsBrokenDeclarations(t *testing.T) {
	good := Group{Function: "AFunction", Dir: "a", Routes: routes("GET /a"), OpenAPI: "a.json", CatchAll: true}
	for name, tc := range map[string]struct {
		g    Group
		want string
	}{
		"duplicate function": {Group{Function: "AFunction", Dir: "b", Every: time.Minute}, "AFunction declared twice"},
		"duplicate dir":      {Group{Function: "BFunction", Dir: "a", Every: time.Minute}, `Dir "a"`},
		"two kinds":          {Group{Function: "BFunction", Dir: "b", Every: time.Minute, Consumes: "q"}, "exactly one of"},
		"no kind":            {Group{Function: "BFunction", Dir: "b"}, "exactly one of"},
		"stream and queue":   {Group{Function: "BFunction", Dir: "b", Streams: store.TableEvents, Consumes: "q"}, "exactly one of Routes, Consumes, Every, Streams"},
		"unstreamed table":   {Group{Function: "BFunction", Dir: "b", Streams: store.TableLedger}, `Streams "ledger" is not a streamed table`},
		"route twice":        {Group{Function: "BFunction", Dir: "b", Routes: routes("GET /a"), OpenAPI: "b.json"}, "GET /a is declared by AFunction and BFunction"},
		"no fragment":        {Group{Function: "BFunction", Dir: "b", Routes: routes("GET /b")}, "OpenAPI fragment"},
		"bad name":           {Group{Function: "B", Dir: "b", Every: time.Minute}, "ending in Function"},
		"second catch-all":   {Group{Function: "BFunction", Dir: "b", Routes: routes("GET /b"), OpenAPI: "b.json", CatchAll: true}, "2 groups are the catch-all"},
		"trailing slash":     {Group{Function: "BFunction", Dir: "b", Routes: routes("GET /b/"), OpenAPI: "b.json"}, `path "/b/"`},
		"lease route without DeleteItem": {Group{Function: "BFunction", Dir: "b", OpenAPI: "b.json",
			Routes: []Route{{Method: "POST", Path: "/b", Idempotency: httpapi.IdemOptional}},
			Tables: []Table{{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}}}},
			"need [DeleteItem GetItem UpdateItem] on the idempotency table, it declares [GetItem UpdateItem]"},
		"inline route granted DeleteItem": {Group{Function: "BFunction", Dir: "b", OpenAPI: "b.json",
			Routes: []Route{{Method: "POST", Path: "/b", Idempotency: httpapi.IdemInline}},
			Tables: []Table{{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem", "DeleteItem"}}}},
			"need [GetItem UpdateItem]"},
		"unknown group version": {Group{Function: "BFunction", Dir: "b", Routes: routes("GET /b"), OpenAPI: "b.json", Since: "2023-07-01"},
			`Since "2023-07-01" is not a released version`},
		"unknown route version": {Group{Function: "BFunction", Dir: "b", OpenAPI: "b.json",
			Routes: []Route{{Method: "GET", Path: "/b", Since: "2025-01-01"}}}, `GET /b: Since "2025-01-01"`},
		"idempotency granted without a keyed route": {Group{Function: "BFunction", Dir: "b", Every: time.Minute,
			Tables: []Table{{Name: store.TableIdempotency, Actions: []string{"GetItem"}}}},
			"need [] on the idempotency table"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := Check([]Area{{Name: "x", Groups: []Group{good, tc.g}}})
			require.NotEmpty(t, errs)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			assert.Contains(t, strings.Join(msgs, "\n"), tc.want)
		})
	}
}

// A stream consumer is its own kind, valid on a streamed table.
func TestStreamGroup(t *testing.T) {
	good := Group{Function: "AFunction", Dir: "a", Routes: routes("GET /a"), OpenAPI: "a.json", CatchAll: true}
	pub := Group{Function: "WebhookPublisherFunction", Dir: "webhook-publisher", Streams: store.TableEvents,
		Tables: []Table{{Name: store.TableAccounts, Actions: []string{"Query"}}}}
	assert.Empty(t, Check([]Area{{Name: "x", Groups: []Group{good, pub}}}))
	assert.Equal(t, "stream", pub.Kind())
}
