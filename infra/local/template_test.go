package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func loadTemplate(t *testing.T) *samtemplate.Template {
	t.Helper()
	tpl, err := samtemplate.Load("../../template.yaml")
	require.NoError(t, err)
	return tpl
}

// localServer builds the gateway's server as run does, over a temp store.
func localServer(t *testing.T) map[string]string {
	t.Helper()
	cfg, _, err := config(func(k string) string {
		if k == "DATA_DIR" {
			return filepath.Join(t.TempDir(), "data")
		}
		return ""
	})
	require.NoError(t, err)
	d, err := app.Open(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })
	srv, err := d.ServeAll(wiring.HTTP()...)
	require.NoError(t, err)
	groups := map[string]string{} // route -> group (function logical id)
	for _, b := range wiring.HTTP() {
		g, err := b(d)
		require.NoError(t, err)
		for _, rt := range g.Routes {
			groups[rt.Pattern()] = g.Name
		}
	}
	routes := map[string]string{}
	for _, rt := range srv.Routes() {
		routes[rt.Pattern()] = groups[rt.Pattern()]
	}
	return routes
}

// The routes served locally are exactly the routes the template deploys, so
// `make run` cannot drift from API Gateway.
func TestLocalRoutesMatchTemplate(t *testing.T) {
	local := localServer(t)
	deployed := map[string]string{}
	for _, rt := range loadTemplate(t).Routes() {
		deployed[rt.Method+" "+rt.Path] = rt.Function
	}
	require.NotEmpty(t, deployed)

	var missingLocally, missingInTemplate []string
	for r := range deployed {
		if _, ok := local[r]; !ok {
			missingLocally = append(missingLocally, r)
		}
	}
	for r := range local {
		if _, ok := deployed[r]; !ok {
			missingInTemplate = append(missingInTemplate, r)
		}
	}
	slices.Sort(missingLocally)
	slices.Sort(missingInTemplate)
	require.Empty(t, missingLocally, "routes in template.yaml that no group of wiring.HTTP() serves")
	require.Empty(t, missingInTemplate, "routes served locally that template.yaml does not deploy")

	// Each route is served by the group named after the template's function.
	for r, fn := range deployed {
		require.Equal(t, fn, local[r], "function of %s", r)
	}
}

// Every SQS event source of the template has a local worker on the same
// queue, and every worker has an event source.
func TestLocalWorkersMatchTemplate(t *testing.T) {
	tpl := loadTemplate(t)
	queueNames := map[string]string{} // logical id -> QueueName as written
	for _, q := range tpl.Queues() {
		queueNames[q.LogicalID] = q.Name
	}
	deployed := map[string]string{} // function -> queue QueueName
	for _, f := range tpl.Functions() {
		for _, ev := range f.Events {
			if ev.Type == "SQS" {
				deployed[f.LogicalID] = queueNames[ev.Source]
			}
		}
	}
	local := map[string]string{}
	for _, c := range wiring.SQS() {
		local[c.Function] = c.Queue
	}
	require.Len(t, local, len(deployed), "local workers %v, template SQS consumers %v", local, deployed)
	for fn, name := range deployed {
		q, ok := local[fn]
		require.True(t, ok, "%s consumes %s in the template but has no local worker", fn, name)
		require.True(t, strings.HasSuffix(name, "-"+q), "%s polls %q locally but %q in the template", fn, q, name)
	}
}
