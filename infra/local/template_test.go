package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring"
)

func loadTemplate(t *testing.T) *samtemplate.Template {
	t.Helper()
	tpl, err := samtemplate.Load("../../template.yaml")
	require.NoError(t, err)
	return tpl
}

// localServer builds the gateway's server as run does, over a temp store,
// and returns route -> group (function logical id) as served.
func localServer(t *testing.T) map[string]string {
	t.Helper()
	cfg, _, err := config(context.Background(), func(k string) string {
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
	groups := map[string]string{}
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

// The routes served locally are exactly the declared routes, each by its
// declared group. The template's route keys are derived from the same
// declarations (infra/samtemplate's TestRouteKeysAreDerived), so `make run`
// cannot drift from API Gateway.
func TestLocalRoutesAreTheDeclaredRoutes(t *testing.T) {
	declared := map[string]string{}
	for _, g := range registry.Groups(wiring.Areas()) {
		for _, r := range g.Routes {
			declared[r.Pattern()] = g.Function
		}
	}
	require.NotEmpty(t, declared)
	require.Equal(t, declared, localServer(t))
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
