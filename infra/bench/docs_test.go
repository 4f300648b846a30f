package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteBenchmarksMergesSteps: a run writes its steps' sections; a later
// run of one step replaces that section only and keeps the other as it was.
func TestWriteBenchmarksMergesSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs", "benchmarks.md")
	first := []section{
		{name: "stack size", measured: "2026-11-01 10:00 UTC, linux/arm64, 2 CPUs, go1.26", rows: []row{{"resources", "388", "<= 400", "ok"}}},
		{name: "cost per million operations", measured: "2026-11-01 10:00 UTC, linux/arm64, 2 CPUs, go1.26", rows: []row{{"card payment | on demand", "11.96", "< 6", "MISSED"}}},
	}
	require.NoError(t, writeBenchmarks(path, first, nil))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(b), "# Benchmarks and cost\n")
	assert.Contains(t, string(b), "Written by make bench")
	assert.Contains(t, string(b), "| card payment \\| on demand | 11.96 | < 6 | MISSED |")

	second := []section{{name: "cost per million operations", measured: "2026-11-29 05:00 UTC, linux/amd64, 4 CPUs, go1.26", rows: []row{{"card payment", "4.46", "< 6", "ok"}}}}
	require.NoError(t, writeBenchmarks(path, second, nil))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	got := string(b)
	assert.Contains(t, got, "## stack size\n\nMeasured 2026-11-01 10:00 UTC, linux/arm64, 2 CPUs, go1.26.\n\n| name | value | target | ok |\n|---|---|---|---|\n| resources | 388 | <= 400 | ok |\n")
	assert.Contains(t, got, "## cost per million operations\n\nMeasured 2026-11-29 05:00 UTC, linux/amd64, 4 CPUs, go1.26.\n")
	assert.NotContains(t, got, "11.96")
	assert.Less(t, strings.Index(got, "## stack size"), strings.Index(got, "## cost per million"), "the file's order is kept")

	// A third write of nothing new leaves the file as it is.
	require.NoError(t, writeBenchmarks(path, nil, nil))
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, got, string(again))

	// In make bench's step order, whatever order they were written in.
	require.NoError(t, writeBenchmarks(path, nil, []string{"cost per million operations", "stack size"}))
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Less(t, strings.Index(string(b), "## cost per million"), strings.Index(string(b), "## stack size"))
	assert.NotContains(t, benchmarksIntro, "\n"+sectionMark, "the intro has no heading a section could be taken for")
}

// TestStepsListInOrder: -write learns make bench's step order from run
// without running a step.
func TestStepsListInOrder(t *testing.T) {
	sections, err := run(context.Background(), options{list: true}, io.Discard)
	require.NoError(t, err)
	require.NotEmpty(t, sections)
	assert.Equal(t, "stack size", sections[0].name)
	for _, s := range sections {
		assert.Nil(t, s.rows, "%s ran", s.name)
	}
}
