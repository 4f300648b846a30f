package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// The figures of docs/benchmarks.md are make bench's alone: it writes the
// file (-write), one section per step, and a run of some steps (-steps)
// replaces those steps' sections and keeps the others as they were, each
// with the date it was measured. No one edits the figures by hand.

// benchmarksFile is where make bench writes, from the module root.
const benchmarksFile = "docs/benchmarks.md"

// benchmarksIntro is the page's fixed text: what each step measures and how.
//
//go:embed benchmarks-intro.md
var benchmarksIntro string

// section is one step's rows as make bench measured them.
type section struct {
	name     string
	measured string // "2026-11-29 05:40 UTC, linux/amd64, 2 CPUs, go1.26"
	rows     []row
	body     string // a section kept from the file: its text after the heading
}

// sectionMark starts a step's section; the step's name follows.
const sectionMark = "## "

// measuredOn says when and where a run measured.
func measuredOn(now time.Time) string {
	return fmt.Sprintf("%s, %s/%s, %d CPUs, %s", now.UTC().Format("2006-01-02 15:04 UTC"),
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
}

// writeBenchmarks merges the sections of this run into the file at path: a
// step run now replaces its section, the others stay; sections follow order
// (make bench's step order), any other after them in the file's order.
func writeBenchmarks(path string, run []section, order []string) error {
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	byName := map[string]section{}
	var names []string
	for _, s := range parseSections(string(old)) {
		byName[s.name] = s
		names = append(names, s.name)
	}
	for _, s := range run {
		if _, ok := byName[s.name]; !ok {
			names = append(names, s.name)
		}
		byName[s.name] = s
	}
	rank := map[string]int{}
	for i, n := range order {
		rank[n] = i
	}
	sort.SliceStable(names, func(i, j int) bool {
		ri, iok := rank[names[i]]
		rj, jok := rank[names[j]]
		if iok != jok {
			return iok
		}
		return iok && ri < rj
	})
	out := make([]section, len(names))
	for i, n := range names {
		out[i] = byName[n]
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	var missing []string
	for _, n := range order {
		if _, ok := byName[n]; !ok {
			missing = append(missing, n)
		}
	}
	return os.WriteFile(path, renderBenchmarks(out, missing), 0o644)
}

// parseSections reads the step sections of a file make bench wrote.
func parseSections(text string) []section {
	_, rest, ok := strings.Cut(text, "\n"+sectionMark)
	if !ok {
		return nil
	}
	var out []section
	for _, part := range strings.Split(sectionMark+rest, "\n"+sectionMark) {
		part = strings.TrimPrefix(part, sectionMark)
		name, body, _ := strings.Cut(part, "\n")
		out = append(out, section{name: strings.TrimSpace(name), body: strings.TrimRight(body, "\n") + "\n"})
	}
	return out
}

// renderBenchmarks is the page: the intro, the steps not measured yet, then
// a section per step.
func renderBenchmarks(sections []section, missing []string) []byte {
	var b bytes.Buffer
	b.WriteString("# Benchmarks and cost\n\n")
	b.WriteString("<!-- Written by make bench (infra/bench, docs.go); do not edit: run make bench, or make bench ARGS=\"-steps '...'\" for some steps. -->\n\n")
	b.WriteString(strings.TrimRight(benchmarksIntro, "\n") + "\n")
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\nNot measured into this file yet (the next full `make bench` adds them): %s.\n", strings.Join(missing, "; "))
	}
	for _, s := range sections {
		b.WriteString("\n" + sectionMark + s.name + "\n")
		if s.rows == nil && s.body != "" {
			b.WriteString(s.body)
			continue
		}
		fmt.Fprintf(&b, "\nMeasured %s.\n\n", s.measured)
		b.WriteString("| name | value | target | ok |\n|---|---|---|---|\n")
		for _, r := range s.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.name), cell(r.value), cell(r.target), cell(r.ok))
		}
	}
	return b.Bytes()
}

// cell is a value as a table cell: one line, pipes escaped.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
