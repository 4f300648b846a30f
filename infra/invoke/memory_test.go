package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/runtimeapi"
)

// TestRecommendMemory: twice the peak RSS, at least 128 MB, in 64 MB steps;
// behind the HTTP API also enough CPU share to keep a warm invocation under
// the budget; a queue or schedule function only what holds it.
func TestRecommendMemory(t *testing.T) {
	assert.Equal(t, 128, recommend(15, 500*time.Microsecond, true))  // 0.5 ms x 1769/128 = 6.9 ms
	assert.Equal(t, 192, recommend(15, 1*time.Millisecond, true))    // 13.8 ms at 128, 9.2 at 192
	assert.Equal(t, 128, recommend(15, 5*time.Millisecond, false))   // no client waits
	assert.Equal(t, 192, recommend(70, 100*time.Microsecond, false)) // 2 x 70 = 140 -> 192
	assert.Equal(t, 1792, recommend(15, 50*time.Millisecond, true))  // stops at a full core
}

// TestMedianAndLeast: a warm round's CPU is the median round, and of
// several passes the least CPU and the highest peak RSS are kept.
func TestMedianAndLeast(t *testing.T) {
	assert.Equal(t, 3*time.Millisecond, median([]time.Duration{9 * time.Millisecond, time.Millisecond, 3 * time.Millisecond}))
	assert.Equal(t, 2*time.Millisecond, median([]time.Duration{40 * time.Millisecond, time.Millisecond, 3 * time.Millisecond, time.Millisecond}))

	a := memoryRow{CPUPerCall: 2 * time.Millisecond, InitCPU: 30 * time.Millisecond, PeakRSSMB: 20, HTTP: true}
	b := memoryRow{CPUPerCall: 1 * time.Millisecond, InitCPU: 40 * time.Millisecond, PeakRSSMB: 18, HTTP: true}
	got := keepLeast(a, b)
	assert.Equal(t, time.Millisecond, got.CPUPerCall)
	assert.Equal(t, 40*time.Millisecond, got.InitCPU, "the init of the pass whose CPU is kept")
	assert.Equal(t, 20.0, got.PeakRSSMB)
	assert.Equal(t, recommend(20, time.Millisecond, true), got.Recommended)
	assert.Equal(t, a, keepLeast(a, memoryRow{Err: "died"}), "a failed pass loses")
	assert.Equal(t, b, keepLeast(memoryRow{Err: "died"}, b))
}

// TestMemoryMeasuresAndWritesTheTemplate: -memory runs a function on its
// events under the fake Runtime API and reads real figures from /proc;
// -write puts the size and its reason into the template.
func TestMemoryMeasuresAndWritesTheTemplate(t *testing.T) {
	root, err := runtimeapi.ModuleRoot(".")
	require.NoError(t, err)
	dir := t.TempDir()
	tpl := filepath.Join(dir, "template.yaml")
	b, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tpl, b, 0o644))
	// The nested stacks keep their place next to template.yaml; HealthFunction
	// (platform.yaml) gets a size without its reason, for -write to replace.
	stacks := filepath.Join(dir, "infra", "stacks")
	require.NoError(t, os.MkdirAll(stacks, 0o755))
	nested, err := filepath.Glob(filepath.Join(root, "infra", "stacks", "*.yaml"))
	require.NoError(t, err)
	for _, f := range nested {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		text := regexp.MustCompile(`(CodeUri: \.\./\.\./functions/health\n)      # Memory [^\n]*\n      MemorySize: \d+\n`).
			ReplaceAllString(string(b), "${1}      MemorySize: 4096\n")
		require.NoError(t, os.WriteFile(filepath.Join(stacks, filepath.Base(f)), []byte(text), 0o644))
	}
	health := filepath.Join(stacks, "platform.yaml")
	b, err = os.ReadFile(health)
	require.NoError(t, err)
	require.Contains(t, string(b), "MemorySize: 4096")
	require.NoError(t, os.Symlink(filepath.Join(root, "events"), filepath.Join(dir, "events")))
	require.NoError(t, os.Symlink(filepath.Join(root, "functions"), filepath.Join(dir, "functions")))
	o := options{store: "embedded", template: tpl, runs: 3, passes: 2, only: "^HealthFunction$"}
	var out strings.Builder
	rows, err := measureMemory(context.Background(), o, &out, io.Discard)
	require.NoError(t, err)
	require.Len(t, rows, 1, out.String())
	r := rows[0]
	require.Empty(t, r.Err)
	assert.Greater(t, r.PeakRSSMB, 1.0, "a Go process's resident set")
	assert.Positive(t, r.CPUPerCall)
	assert.GreaterOrEqual(t, r.Recommended, 128)
	assert.Contains(t, out.String(), "HealthFunction")
	require.NoError(t, writeTemplate(tpl, rows))
	b, err = os.ReadFile(health)
	require.NoError(t, err)
	assert.Contains(t, string(b), "      # Memory measured (go run ./infra/invoke -memory): peak RSS")
	assert.NotContains(t, string(b), "MemorySize: 4096")
	assert.Equal(t, 1, strings.Count(string(b), "CodeUri: ../../functions/health\n      # Memory measured"), "the size replaced, not added twice")
}
