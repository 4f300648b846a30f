package wiring

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/registry"
)

// The declarations keep the registry's rules (unique functions, dirs and
// routes, one kind per group, one catch-all) and no two areas' key prefixes
// overlap on a table; every declared group has a builder of its kind.
func TestDeclarationsAreConsistent(t *testing.T) {
	for _, err := range Check() {
		t.Error(err)
	}
	require.NotEmpty(t, registry.Groups(Areas()))
}

// Check names a declared group without a builder of its kind, and a builder
// no group declares.
func TestCheckFindsAMissingOrStrayBuilder(t *testing.T) {
	http := httpBuilders
	t.Cleanup(func() { httpBuilders = http })
	httpBuilders = map[string]app.HTTPBuilder{"NoSuchFunction": http[health.HealthGroup.Function]}
	for fn, b := range http {
		if fn != health.HealthGroup.Function {
			httpBuilders[fn] = b
		}
	}
	var got []string
	for _, err := range Check() {
		got = append(got, err.Error())
	}
	assert.ElementsMatch(t, []string{health.HealthGroup.Function + ": no http builder in wiring",
		"wiring builds NoSuchFunction (http), which no area declares"}, got)
}

// Every area registers the prefixes of the tables its groups write, so the
// collision check covers what is really written.
func TestEveryWrittenTableHasARegisteredPrefix(t *testing.T) {
	owned := map[string]bool{}
	for _, a := range Areas() {
		for _, k := range a.Keys {
			owned[k.Table] = true
		}
	}
	for _, g := range registry.Groups(Areas()) {
		for _, tb := range g.Tables {
			if slices.ContainsFunc(tb.Actions, func(a string) bool { return a == "UpdateItem" || a == "PutItem" || a == "DeleteItem" }) {
				assert.True(t, owned[tb.Name], "%s writes table %s, but no area registers a key prefix on it", g.Function, tb.Name)
			}
		}
	}
}

// Each builder builds the group its declaration names, serving exactly the
// declared routes; the lists the local gateway runs are the declared ones.
func TestBuildersBuildTheDeclaredGroups(t *testing.T) {
	cfg, err := app.ConfigFromEnv(func(k string) string {
		switch k {
		case "STORE":
			return "embedded"
		case "DATA_DIR":
			return filepath.Join(t.TempDir(), "data")
		}
		return ""
	})
	require.NoError(t, err)
	d, err := app.Open(context.Background(), cfg, app.WithQueue(nil))
	require.NoError(t, err)
	t.Cleanup(func() { _ = d.Close() })

	var httpGroups, consumers, tasks, streams []string
	for _, g := range registry.Groups(Areas()) {
		switch g.Kind() {
		case "http":
			httpGroups = append(httpGroups, g.Function)
		case "sqs":
			consumers = append(consumers, g.Function)
		case "schedule":
			tasks = append(tasks, g.Function)
		case "stream":
			streams = append(streams, g.Function)
		}
	}
	builders := HTTP()
	require.Len(t, builders, len(httpGroups))
	for i, b := range builders {
		hg, err := b(d)
		require.NoError(t, err)
		assert.Equal(t, httpGroups[i], hg.Name)
		var decl registry.Group
		for _, g := range registry.Groups(Areas()) {
			if g.Function == hg.Name {
				decl = g
			}
		}
		var got, want []string
		for _, r := range hg.Routes {
			got = append(got, r.Pattern())
		}
		for _, r := range decl.Routes {
			want = append(want, r.Pattern())
		}
		assert.Equal(t, want, got, hg.Name)
	}
	for i, c := range SQS() {
		assert.Equal(t, consumers[i], c.Function)
		_, err := c.Build(d)
		require.NoError(t, err)
	}
	require.Len(t, SQS(), len(consumers))
	for i, task := range Periodic() {
		assert.Equal(t, tasks[i], task.Function)
		assert.Positive(t, task.Every)
		_, err := task.Build(d)
		require.NoError(t, err)
	}
	require.Len(t, Periodic(), len(tasks))
	for i, c := range Streams() {
		assert.Equal(t, streams[i], c.Function)
		assert.NotEmpty(t, c.Table)
		_, err := c.Build(d)
		require.NoError(t, err)
	}
	require.Len(t, Streams(), len(streams))
}
