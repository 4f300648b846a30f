package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/infra/runtimeapi"
)

// Memory sizing (issue 17, item 3): -memory runs every function of
// template.yaml on its events/ samples (events/expectations.json says whose
// each is), one warm instance per function as Lambda keeps one, and reads
// the instance's figures from /proc: the peak resident set (VmHWM) and the
// CPU time of its threads (schedstat, in nanoseconds). It prints each
// function's figures and the MemorySize the rule below gives, so a function
// added later is sized by running it again.
//
// The rule: Lambda gives a function CPU in proportion to its memory (one
// vCPU at 1,769 MB), so an invocation that takes c ms of CPU on a full core
// takes about c x 1769 / M ms at M MB. M is the smallest multiple of 64 MB,
// at least 128, that holds twice the peak RSS (room for the garbage
// collector's doubling and for bodies larger than the samples) and, for a
// function behind the HTTP API (a client waits for it), keeps a warm
// invocation's CPU under cpuBudget once stretched. Below 1,769 MB the CPU
// part of a GB-second bill is the same at any size (half the memory, twice
// the time), so what a larger size buys is latency; the waits for DynamoDB
// and SQS are billed per MB, which is what makes the smallest size that
// meets the budget the cheapest, and why queue consumers and schedules (no
// client waiting) get the smallest size that holds them.
const (
	fullCoreMB = 1769
	cpuBudget  = 10 * time.Millisecond
	minMemory  = 128
	memStep    = 64
)

// memoryRow is one function's figures.
type memoryRow struct {
	LogicalID   string
	Events      int
	PeakRSSMB   float64
	InitCPU     time.Duration // exec to the first round's end: init and cold first calls
	CPUPerCall  time.Duration // the median warm round, per invocation
	TemplateMB  int
	Recommended int
	HTTP        bool // behind the HTTP API: the CPU budget applies
	Err         string
}

// recommend applies the sizing rule to a peak RSS and a warm CPU time.
func recommend(peakRSSMB float64, cpu time.Duration, http bool) int {
	m := max(minMemory, int(math.Ceil(2*peakRSSMB/memStep))*memStep)
	for http && m < fullCoreMB && stretched(cpu, m) > cpuBudget {
		m += memStep
	}
	return m
}

// stretched is a full core's CPU time as it takes at mb MB.
func stretched(cpu time.Duration, mb int) time.Duration {
	return time.Duration(float64(cpu) * fullCoreMB / float64(mb))
}

// reason is the template comment above a function's MemorySize.
func (r memoryRow) reason() string {
	s := fmt.Sprintf("measured (go run ./infra/invoke -memory): peak RSS %.1f MB, %.2f ms CPU per warm invocation on a full core; ",
		r.PeakRSSMB, float64(r.CPUPerCall)/1e6)
	floor := max(minMemory, int(math.Ceil(2*r.PeakRSSMB/memStep))*memStep)
	switch {
	case !r.HTTP:
		s += fmt.Sprintf("no client waits (queue or schedule): the smallest size holding 2x the RSS (%.1f ms CPU at it)",
			float64(stretched(r.CPUPerCall, r.Recommended))/1e6)
	case r.Recommended == floor:
		s += fmt.Sprintf("%d MB holds 2x the RSS and keeps the CPU at %.1f ms (budget %v)", r.Recommended,
			float64(stretched(r.CPUPerCall, r.Recommended))/1e6, cpuBudget)
	default:
		s += fmt.Sprintf("%d MB would hold 2x the RSS; %d keeps the CPU at %.1f ms (budget %v)", floor, r.Recommended,
			float64(stretched(r.CPUPerCall, r.Recommended))/1e6, cpuBudget)
	}
	return s
}

// measureMemory runs the functions matching o.only (all when empty) and
// prints the table to w.
func measureMemory(ctx context.Context, o options, w io.Writer, progress io.Writer) ([]memoryRow, error) {
	root, err := runtimeapi.ModuleRoot(".")
	if err != nil {
		return nil, err
	}
	if o.template == "" {
		o.template = filepath.Join(root, "template.yaml")
	}
	fns, err := functions(o.template)
	if err != nil {
		return nil, err
	}
	eventsDir := filepath.Join(filepath.Dir(o.template), "events")
	exps, err := sample.Expectations(eventsDir)
	if err != nil {
		return nil, err
	}
	files := map[string][]string{}
	for file, e := range exps {
		files[e.Function] = append(files[e.Function], file)
	}
	var only *regexp.Regexp
	if o.only != "" {
		if only, err = regexp.Compile(o.only); err != nil {
			return nil, err
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].LogicalID < fns[j].LogicalID })
	tmp, err := os.MkdirTemp("", "paygate-memory-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	// Several passes, each over every function, keep each function's least
	// CPU: this machine's speed drifts over minutes, and the least of
	// measurements taken minutes apart is the one least slowed by whatever
	// else ran. Peak RSS keeps its highest.
	var rows []memoryRow
	for pass := range max(o.passes, 1) {
		i := 0
		for _, fn := range fns {
			if only != nil && !only.MatchString(fn.LogicalID) {
				continue
			}
			sort.Strings(files[fn.LogicalID])
			fmt.Fprintf(progress, "memory: %s (%d events, pass %d)\n", fn.LogicalID, len(files[fn.LogicalID]), pass+1)
			r, err := measureFunction(ctx, root, tmp, eventsDir, fn, files[fn.LogicalID], o, pass)
			if err != nil {
				r.Err = err.Error()
			}
			if pass == 0 {
				rows = append(rows, r)
			} else {
				rows[i] = keepLeast(rows[i], r)
			}
			i++
			if ctx.Err() != nil {
				return rows, ctx.Err()
			}
		}
	}
	printMemory(w, rows, o)
	return rows, nil
}

// keepLeast merges two measurements of one function: the lesser CPU, the
// higher peak RSS, the sizing recomputed; a failed one loses to one that
// worked.
func keepLeast(a, b memoryRow) memoryRow {
	switch {
	case a.Err != "":
		return b
	case b.Err != "":
		return a
	}
	if b.CPUPerCall < a.CPUPerCall {
		a.CPUPerCall, a.InitCPU = b.CPUPerCall, b.InitCPU
	}
	a.PeakRSSMB = max(a.PeakRSSMB, b.PeakRSSMB)
	a.Recommended = recommend(a.PeakRSSMB, a.CPUPerCall, a.HTTP)
	return a
}

func measureFunction(ctx context.Context, root, tmp, eventsDir string, fn function, files []string, o options, pass int) (memoryRow, error) {
	r := memoryRow{LogicalID: fn.LogicalID, Events: len(files), TemplateMB: fn.MemoryMB, HTTP: len(fn.Routes) > 0}
	if len(files) == 0 {
		return r, errors.New("no events/ sample names this function")
	}
	evs := make([][]byte, len(files))
	for i, f := range files {
		b, err := os.ReadFile(filepath.Join(eventsDir, f))
		if err != nil {
			return r, err
		}
		evs[i] = b
	}
	o.dataDir = filepath.Join(tmp, fmt.Sprintf("%s-%d", fn.LogicalID, pass))
	env, err := functionEnv(fn, o)
	if err != nil {
		return r, err
	}
	if err := seed(ctx, env); err != nil {
		return r, err
	}
	bin := filepath.Join(tmp, fn.LogicalID+".bootstrap")
	if pass == 0 { // later passes run the same build
		if err := runtimeapi.Build(ctx, root, "./"+fn.CodeURI, bin, runtimeapi.BuildOptions{}); err != nil {
			return r, err
		}
	}
	f, err := runtimeapi.Start(runtimeapi.Config{Binary: bin, Name: fn.LogicalID, Timeout: fn.Timeout, MemoryMB: fn.MemoryMB, Env: env})
	if err != nil {
		return r, err
	}
	defer f.Close()
	round := func() error {
		for i, ev := range evs {
			_, err := f.Invoke(ctx, ev)
			var fe *runtimeapi.FunctionError
			if err != nil && !errors.As(err, &fe) { // a function error is an answer; a dead process is not
				return fmt.Errorf("%s: %v", files[i], err)
			}
		}
		return nil
	}
	if err := round(); err != nil {
		return r, err
	}
	cpu0, err := processCPU(f.PID())
	if err != nil {
		return r, err
	}
	r.InitCPU = cpu0
	// Each warm round's CPU apart, and the median of them: a collection or
	// a neighbour's burst lands in one round and moves a mean, not a median.
	perRound := make([]time.Duration, 0, o.runs)
	for range o.runs {
		if err := round(); err != nil {
			return r, err
		}
		cpu1, err := processCPU(f.PID())
		if err != nil {
			return r, err
		}
		perRound = append(perRound, cpu1-cpu0)
		cpu0 = cpu1
	}
	if o.runs > 0 {
		r.CPUPerCall = median(perRound) / time.Duration(len(evs))
	}
	if r.PeakRSSMB, err = peakRSS(f.PID()); err != nil {
		return r, err
	}
	r.Recommended = recommend(r.PeakRSSMB, r.CPUPerCall, r.HTTP)
	return r, nil
}

// median is the middle of ds (the mean of the two middle ones for an even
// count); ds is sorted in place.
func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	n := len(ds)
	if n%2 == 1 {
		return ds[n/2]
	}
	return (ds[n/2-1] + ds[n/2]) / 2
}

// processCPU is the CPU time of every thread of pid so far (the first field
// of each thread's schedstat, in nanoseconds).
func processCPU(pid int) (time.Duration, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no /proc schedstat for pid %d (Linux only): %v", pid, err)
	}
	var total int64
	for _, p := range tasks {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		fields := strings.Fields(string(b))
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", p, err)
		}
		total += n
	}
	return time.Duration(total), nil
}

// peakRSS is the process's peak resident set (VmHWM) in MB.
func peakRSS(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				return 0, fmt.Errorf("VmHWM %q: %v", rest, err)
			}
			return kb / 1024, nil
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

func printMemory(w io.Writer, rows []memoryRow, o options) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "function\tevents\tpeak RSS MB\tinit+first round CPU ms\twarm CPU ms/invocation\ttemplate MB\trecommended MB\n")
	for _, r := range rows {
		if r.Err != "" {
			fmt.Fprintf(tw, "%s\t%d\t-\t-\t-\t%d\tnot measured: %s\n", r.LogicalID, r.Events, r.TemplateMB, r.Err)
			continue
		}
		flag := ""
		if r.Recommended != r.TemplateMB {
			flag = " (template differs)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.2f\t%d\t%d%s\n", r.LogicalID, r.Events, r.PeakRSSMB,
			float64(r.InitCPU)/1e6, float64(r.CPUPerCall)/1e6, r.TemplateMB, r.Recommended, flag)
	}
	tw.Flush()
	fmt.Fprintf(w, "store %s, %d warm rounds of each function's events after a first round (CPU: the median round); rule: the smallest multiple of %d MB, at least %d, holding 2x the peak RSS and, behind the HTTP API, keeping a warm invocation's CPU under %v at MB/%d of a vCPU\n",
		o.store, o.runs, memStep, minMemory, cpuBudget, fullCoreMB)
	fmt.Fprintln(w, "\ntemplate.yaml lines (each function's Properties):")
	for _, r := range rows {
		if r.Err == "" {
			fmt.Fprintf(w, "%s:\n      # Memory %s.\n      MemorySize: %d\n", r.LogicalID, r.reason(), r.Recommended)
		}
	}
}

// writeTemplate sets each measured function's MemorySize in the template
// file declaring it (template.yaml at path or one of its nested stacks),
// with its reason in the comment line above: an existing "# Memory" comment
// and MemorySize of the function's Properties are replaced, else both go
// after its CodeUri line. Functions not measured are left alone.
func writeTemplate(path string, rows []memoryRow) error {
	fns, err := functions(path)
	if err != nil {
		return err
	}
	file := map[string]string{}
	for _, f := range fns {
		file[f.LogicalID] = f.File
	}
	byFile := map[string][]memoryRow{}
	var order []string
	for _, r := range rows {
		if r.Err != "" {
			continue
		}
		f, ok := file[r.LogicalID]
		if !ok {
			return fmt.Errorf("template: no function %s", r.LogicalID)
		}
		if byFile[f] == nil {
			order = append(order, f)
		}
		byFile[f] = append(byFile[f], r)
	}
	for _, f := range order {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		for _, r := range byFile[f] {
			if lines, err = setMemory(lines, r); err != nil {
				return err
			}
		}
		if err := os.WriteFile(f, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func setMemory(lines []string, r memoryRow) ([]string, error) {
	start := -1
	for i, l := range lines {
		if l == "  "+r.LogicalID+":" {
			start = i
			break
		}
	}
	if start < 0 {
		return lines, fmt.Errorf("template: no resource line %q", "  "+r.LogicalID+":")
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if l := lines[i]; len(l) > 2 && l[:2] == "  " && l[2] != ' ' && l[2] != '#' {
			end = i
			break
		}
	}
	block := []string{"      # Memory " + r.reason() + ".", fmt.Sprintf("      MemorySize: %d", r.Recommended)}
	codeURI := -1
	for i := start; i < end; i++ {
		switch {
		case strings.HasPrefix(lines[i], "      MemorySize:"):
			from := i
			if i > start && strings.HasPrefix(lines[i-1], "      # Memory ") {
				from = i - 1
			}
			return append(lines[:from], append(block, lines[i+1:]...)...), nil
		case strings.HasPrefix(lines[i], "      CodeUri:"):
			codeURI = i
		}
	}
	if codeURI < 0 {
		return lines, fmt.Errorf("template: %s has no CodeUri line", r.LogicalID)
	}
	return append(lines[:codeURI+1], append(block, lines[codeURI+1:]...)...), nil
}
