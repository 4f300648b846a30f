// Package registry holds the one declaration of every function group: its
// routes, the tables and queues it may touch, its OpenAPI fragment, and the
// key prefixes its area owns. Each area declares its groups in its own package
// (a group.go beside routes.go); shared/platform/wiring lists the areas. Everything else
// is derived from these declarations: the routes a group serves (Bind), the
// local gateway (make run), the API Gateway route keys of template.yaml
// (RouteKeys), the least-privilege policies the template must grant, the
// OpenAPI document's paths per group, and the check that no two areas write
// under the same key prefix (Check).
//
// Declarations are plain data (strings, ints, slices): a Lambda binary links
// only its own area's declaration, and nothing here parses or reads files.
package registry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/store"
)

// Group is one Lambda function: an HTTP endpoint group, a queue consumer, a
// scheduled task or a stream consumer (exactly one of Routes, Consumes,
// Every, Streams is set).
type Group struct {
	Function string // logical id in template.yaml, e.g. GateOrdersFunction
	Dir      string // its main package: functions/<Dir>
	Routes   []Route
	// CatchAll makes the group API Gateway's $default route: it answers every
	// request no route matches with the documented 404 body. One group has it.
	CatchAll bool
	Consumes string        // logical queue name it consumes (SQS event)
	Every    time.Duration // schedule period (Schedule event)
	// Timeout is a queue or stream consumer's function timeout, template.yaml's
	// Timeout (0: DefaultTimeout, the Globals one). The local gateway runs
	// the consumer with it, and with a visibility timeout six times as long,
	// as the template's queues have.
	Timeout time.Duration
	// Streams is the logical table (one of store.StreamedTables) whose
	// stream the group consumes: a DynamoDB event on AWS, the embedded change
	// feed locally. Its stream grants are derived (samtemplate.StreamGrants).
	Streams string
	// OpenAPI is the fragment (a file of shared/platform/openapi/spec) documenting the
	// group's routes; groups naming one fragment together document exactly
	// its paths. "" for a group without routes.
	OpenAPI string
	Tables  []Table // every table it calls, with exactly the calls it makes
	Queues  []Queue // every queue it sends to or polls
	// Grants are any other permissions, after the tables' and queues' in
	// template.yaml (a secret's parameter, a key), as the template writes them.
	Grants []Grant
	// Since is the first API version that has the group's routes (""
	// for every version): a request at an older one is a 400 naming the
	// version it needs (httpapi.Route.Since). A route's own Since overrides
	// it.
	Since string
	// MoneyPath marks a function whose requests take or move money. Deployed,
	// a new version of it reaches traffic gradually (a CodeDeploy
	// DeploymentPreference whose alarms roll a bad version back) and its p99
	// latency is alarmed; template.yaml must say so for it (infra/samtemplate,
	// TestMoneyPathFunctionsRollOutGradually).
	MoneyPath bool
}

// DefaultTimeout is the Globals function timeout of template.yaml.
const DefaultTimeout = 10 * time.Second

// FunctionTimeout is the group's declared timeout, or DefaultTimeout.
func (g Group) FunctionTimeout() time.Duration {
	if g.Timeout > 0 {
		return g.Timeout
	}
	return DefaultTimeout
}

// Grant is a permission as the stack templates write it: "Statement" with
// its actions, or a policy the template declares ("!Ref <ManagedPolicy>"),
// and the logical ids its resources name (no SAM policy templates:
// infra/samtemplate TestNoWildcardOnDataPlane).
type Grant struct {
	Policy    string
	Actions   []string
	Resources []string
}

// Route is one declared route. Path uses {param} segments, the syntax of both
// Go 1.22 patterns and API Gateway.
type Route struct {
	Method      string
	Path        string
	Auth        httpapi.AuthMode
	Idempotency httpapi.IdemMode
	TestOnly    bool
	Since       string // the first API version that has the route (default: the group's Since)
	MaxBody     int64  // the body limit in bytes (0: httpapi.MaxBody)
	Form        bool   // takes an HTML form's body, not JSON (httpapi.Route.Form)
	Page        bool   // answers a page to a browser (httpapi.Route.Page)
}

// Pattern is "METHOD /path", the key Bind takes handlers by.
func (r Route) Pattern() string { return r.Method + " " + r.Path }

// Table is a grant on one logical table (shared/store names) for DynamoDB
// actions without the service prefix (GetItem, Query, UpdateItem, ...).
type Table struct {
	Name    string
	Actions []string
}

// QueueAccess is what a group does with a queue.
type QueueAccess int

const (
	Send QueueAccess = iota + 1 // sqs:SendMessage on the queue
	Poll                        // the event source's receive, delete, attributes, and change visibility, on the queue
)

// Queue is a grant on one logical queue (shared/queue names).
type Queue struct {
	Name   string
	Access QueueAccess
}

// Area is a business area: its groups and the key prefixes it owns.
type Area struct {
	Name   string
	Groups []Group
	Keys   []Key
}

// Key is a partition-key prefix an area owns on a table: every item the area
// writes there has a pk starting with Prefix, and no other area's prefix may
// start with it or be a start of it.
type Key struct {
	Table  string
	Prefix string
	What   string // what lives there, for the collision message
}

// Kind of a group.
func (g Group) Kind() string {
	switch {
	case len(g.Routes) > 0:
		return "http"
	case g.Consumes != "":
		return "sqs"
	case g.Every > 0:
		return "schedule"
	case g.Streams != "":
		return "stream"
	}
	return ""
}

// Bind is the group's httpapi.Group: each declared route with its handler,
// keyed by Pattern. A declared route without a handler, or a handler for an
// undeclared route, is a programming error that every test building the group
// catches, so Bind panics instead of serving a partial group.
func (g Group) Bind(handlers map[string]httpapi.Handler) httpapi.Group {
	out := httpapi.Group{Name: g.Function, Routes: make([]httpapi.Route, 0, len(g.Routes))}
	for _, r := range g.Routes {
		h, ok := handlers[r.Pattern()]
		if !ok {
			panic(fmt.Sprintf("registry: %s declares %s but binds no handler to it", g.Function, r.Pattern()))
		}
		since := r.Since
		if since == "" {
			since = g.Since
		}
		out.Routes = append(out.Routes, httpapi.Route{Method: r.Method, Path: r.Path, Auth: r.Auth,
			Idempotency: r.Idempotency, TestOnly: r.TestOnly, Since: since, MaxBody: r.MaxBody, Form: r.Form, Page: r.Page, Handler: h})
	}
	if len(handlers) != len(g.Routes) {
		for p := range handlers {
			if !slices.ContainsFunc(g.Routes, func(r Route) bool { return r.Pattern() == p }) {
				panic(fmt.Sprintf("registry: %s binds a handler to %s, which it does not declare", g.Function, p))
			}
		}
	}
	return out
}

// Groups lists every group of the areas, in declaration order.
func Groups(areas []Area) []Group {
	var out []Group
	for _, a := range areas {
		out = append(out, a.Groups...)
	}
	return out
}

// Check holds the declarations to the rules the derived artefacts rely on:
// unique functions and dirs, one kind per group, every route declared once,
// an OpenAPI fragment per HTTP group, and no key prefix of
// one area overlapping another's on the same table.
func Check(areas []Area) []error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	fns, dirs, routes := map[string]bool{}, map[string]string{}, map[string]string{}
	catchAll := 0
	for _, g := range Groups(areas) {
		if g.CatchAll {
			catchAll++
			if len(g.Routes) == 0 {
				fail("%s: only an HTTP group can be the catch-all", g.Function)
			}
		}
		if g.Function == "" || !strings.HasSuffix(g.Function, "Function") {
			fail("group %q: Function must be a logical id ending in Function", g.Function)
		}
		if fns[g.Function] {
			fail("%s declared twice", g.Function)
		}
		fns[g.Function] = true
		if other, dup := dirs[g.Dir]; dup || g.Dir == "" || strings.Contains(g.Dir, "/") {
			fail("%s: Dir %q (functions/<dir>) is empty, nested or also %s's", g.Function, g.Dir, other)
		}
		dirs[g.Dir] = g.Function
		kinds := 0
		for _, set := range []bool{len(g.Routes) > 0, g.Consumes != "", g.Every > 0, g.Streams != ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			fail("%s: exactly one of Routes, Consumes, Every, Streams must be set", g.Function)
		}
		if g.Streams != "" && !store.Streamed(g.Streams) {
			fail("%s: Streams %q is not a streamed table (store.StreamedTables: %v)", g.Function, g.Streams, store.StreamedTables)
		}
		if (len(g.Routes) > 0) != (g.OpenAPI != "") {
			fail("%s: an HTTP group names its OpenAPI fragment, and only an HTTP group does", g.Function)
		}
		if g.Since != "" && !version.Known(g.Since) {
			fail("%s: Since %q is not a released version (%s)", g.Function, g.Since, version.List())
		}
		for _, r := range g.Routes {
			if r.Since != "" && !version.Known(r.Since) {
				fail("%s: %s: Since %q is not a released version (%s)", g.Function, r.Pattern(), r.Since, version.List())
			}
			if !strings.HasPrefix(r.Path, "/") || strings.HasSuffix(r.Path, "/") && r.Path != "/" {
				fail("%s: path %q", g.Function, r.Path)
			}
			if other, dup := routes[r.Pattern()]; dup {
				fail("%s is declared by %s and %s", r.Pattern(), other, g.Function)
			}
			routes[r.Pattern()] = g.Function
		}
	}
	if catchAll != 1 {
		fail("%d groups are the catch-all ($default route), want exactly 1", catchAll)
	}
	errs = append(errs, keyCollisions(areas)...)
	for _, g := range Groups(areas) {
		errs = append(errs, idempotencyGrant(g)...)
	}
	return errs
}

// idempotencyGrant holds a group's idempotency-table actions to what its
// routes' modes use, no more and no less: a key read before the work
// (GetItem), a record written (UpdateItem), and for the lease modes a claim
// released on a non-definitive answer (DeleteItem). A missing grant fails only
// once deployed (AccessDenied, and a released claim that lingers as a 409), so
// the declaration is checked here instead.
func idempotencyGrant(g Group) []error {
	var need []string
	for _, r := range g.Routes {
		switch r.Idempotency {
		case httpapi.IdemInline, httpapi.IdemInlineOptional:
			need = append(need, "GetItem", "UpdateItem")
		case httpapi.IdemOptional, httpapi.IdemRequired:
			need = append(need, "GetItem", "UpdateItem", "DeleteItem")
		}
	}
	var have []string
	for _, t := range g.Tables {
		if t.Name == store.TableIdempotency {
			have = append(have, t.Actions...)
		}
	}
	slices.Sort(need)
	need = slices.Compact(need)
	slices.Sort(have)
	have = slices.Compact(have)
	if !slices.Equal(need, have) {
		return []error{fmt.Errorf("%s: its routes' idempotency modes need %v on the %s table, it declares %v",
			g.Function, need, store.TableIdempotency, have)}
	}
	return nil
}

// keyCollisions reports every pair of registered prefixes on one table where
// one starts with the other: items of one area could then be read, listed or
// overwritten as the other's.
func keyCollisions(areas []Area) []error {
	type owned struct {
		area string
		Key
	}
	var all []owned
	for _, a := range areas {
		for _, k := range a.Keys {
			all = append(all, owned{a.Name, k})
		}
	}
	var errs []error
	for i, a := range all {
		if a.Prefix == "" || a.Table == "" {
			errs = append(errs, fmt.Errorf("area %s: key %q on table %q: empty prefix or table", a.area, a.Prefix, a.Table))
		}
		for _, b := range all[i+1:] {
			if a.Table == b.Table && (strings.HasPrefix(a.Prefix, b.Prefix) || strings.HasPrefix(b.Prefix, a.Prefix)) {
				errs = append(errs, fmt.Errorf("table %s: %s's %q (%s) and %s's %q (%s) overlap",
					a.Table, a.area, a.Prefix, a.What, b.area, b.Prefix, b.What))
			}
		}
	}
	return errs
}
