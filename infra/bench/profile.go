package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/infra/bench/load"
)

// profiler takes pprof CPU and allocation profiles of the server under each
// load row (make bench ARGS=-profile): the gateway serves them on its own
// loopback listener (PPROF_ADDR, infra/local/pprof.go). The files go to dir,
// a temporary directory named in the table, and the top items of each are
// summarised in rows of their own.
type profiler struct {
	dir  string // where the .pprof files go
	base string // the gateway's pprof server, http://127.0.0.1:port
	rows []row
}

// profileTop is how many functions each summary names.
const profileTop = 8

// slug is a file name for a load case's name.
func slug(name string) string {
	s := regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(name, "-")
	return strings.Trim(strings.ToLower(s), "-")
}

// around runs one load row (run) while it profiles the server: a CPU
// profile for the row's duration and the allocations between the row's
// start and end (the difference of two snapshots of the cumulative
// profile), then adds the summary rows.
func (p *profiler) around(ctx context.Context, name string, d time.Duration, run func() (load.Result, error)) (load.Result, error) {
	file := filepath.Join(p.dir, slug(name))
	before, err := p.fetch(ctx, "/debug/pprof/allocs", file+".allocs-before.pprof")
	if err != nil {
		return load.Result{}, err
	}
	secs := max(1, int(math.Ceil(d.Seconds())))
	cpuDone := make(chan error, 1)
	go func() {
		_, err := p.fetch(ctx, "/debug/pprof/profile?seconds="+strconv.Itoa(secs), file+".cpu.pprof")
		cpuDone <- err
	}()
	res, err := run()
	cerr := <-cpuDone
	if err != nil {
		return res, err
	}
	if cerr != nil {
		return res, cerr
	}
	after, err := p.fetch(ctx, "/debug/pprof/allocs", file+".allocs.pprof")
	if err != nil {
		return res, err
	}
	p.rows = append(p.rows, summariseProfiles(name, file+".cpu.pprof", before, after, res.Requests)...)
	return res, nil
}

func (p *profiler) fetch(ctx context.Context, path, out string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("profile %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("profile %s answered %d: %s", path, resp.StatusCode, b)
	}
	return out, os.WriteFile(out, b, 0o644)
}

// summariseProfiles is the rows of one profiled load: CPU per request and
// the top functions by cumulative CPU within the project (flat CPU is
// mostly the runtime and syscalls), and allocations per request with the
// top allocation sites.
func summariseProfiles(name, cpu, allocsBefore, allocs string, requests int) []row {
	var rows []row
	if out, err := pprofTop(cpu, "-top", "-cum", "-focus=paygate", "-nodecount=40"); err != nil {
		rows = append(rows, row{name: "profile " + name + ": CPU", value: "error: " + err.Error(), target: "-", ok: "-"})
	} else {
		total := pprofTotalSeconds(out)
		rows = append(rows, row{
			name: "profile " + name + ": CPU",
			value: fmt.Sprintf("%.0f µs of server CPU per request (%d requests); top (cumulative): %s",
				total*1e6/float64(max(requests, 1)), requests, topFunctions(out, profileTop, true)),
			target: "report", ok: "-",
		})
	}
	if out, err := pprofTop(allocs, "-top", "-sample_index=alloc_objects", "-base="+allocsBefore, "-nodecount=40"); err != nil {
		rows = append(rows, row{name: "profile " + name + ": allocations", value: "error: " + err.Error(), target: "-", ok: "-"})
	} else {
		objs := pprofTotalCount(out)
		rows = append(rows, row{
			name: "profile " + name + ": allocations",
			value: fmt.Sprintf("~%.0f allocations per request (sampled); top (flat): %s",
				objs/float64(max(requests, 1)), topFunctions(out, profileTop, false)),
			target: "report", ok: "-",
		})
	}
	return rows
}

// pprofTop runs go tool pprof on a profile and returns its text.
func pprofTop(file string, args ...string) (string, error) {
	cmd := exec.Command("go", append(append([]string{"tool", "pprof"}, args...), file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go tool pprof %s: %v: %s", filepath.Base(file), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

var (
	totalSamples = regexp.MustCompile(`Total samples = ([0-9.]+)(ms|s|us|µs|min)`)
	totalCount   = regexp.MustCompile(`of ([0-9.]+)([kMG]?) total`)
)

// pprofTotalSeconds reads "Total samples = 5.20s" from pprof's header (the
// whole profile, before -focus).
func pprofTotalSeconds(out string) float64 {
	m := totalSamples.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	switch m[2] {
	case "ms":
		return v / 1e3
	case "us", "µs":
		return v / 1e6
	case "min":
		return v * 60
	}
	return v
}

// pprofTotalCount reads "of 123456 total" (counts, with pprof's k/M/G).
func pprofTotalCount(out string) float64 {
	m := totalCount.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	switch m[2] {
	case "k":
		v *= 1e3
	case "M":
		v *= 1e6
	case "G":
		v *= 1e9
	}
	return v
}

// topFunctions names the first n functions of pprof -top's table with their
// share (cumulative or flat), shortened: the module path dropped. With cum,
// the runtime's and net/http's frames are skipped, since every request
// passes through them.
func topFunctions(out string, n int, cum bool) string {
	var parts []string
	var lastShare string
	inTable := false
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "flat" {
			inTable = true
			continue
		}
		if !inTable || len(f) < 6 {
			continue
		}
		fn := strings.Join(f[5:], " ")
		share := f[1]
		if cum {
			share = f[4]
			if skipFrame(fn) {
				continue
			}
		}
		fn = strings.ReplaceAll(fn, "github.com/paygate/paygate/", "")
		if cum && len(parts) > 0 && share == lastShare {
			// A frame with its caller's share is the same work, one call
			// down: keep the innermost, which says what it is.
			parts[len(parts)-1] = fmt.Sprintf("%s %s", fn, share)
			continue
		}
		if len(parts) == n {
			break
		}
		parts = append(parts, fmt.Sprintf("%s %s", fn, share))
		lastShare = share
	}
	return strings.Join(parts, ", ")
}

// skipFrame is a frame every request passes through (the server's loop,
// the router, the middleware chain), so its cumulative share says nothing.
func skipFrame(fn string) bool {
	for _, p := range []string{"runtime.", "net/http.", "sync.", "main.run.", "testing.", "main.(*warmFixture).", "main.benchMerchantDetailsWarm", "main.warmRow", "github.com/paygate/paygate/shared/platform/httpapi.(*Server).", "github.com/paygate/paygate/shared/platform/httpapi.NewServer."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// profileInProcess profiles f (a benchmark run in this process): a CPU
// profile and the allocations made while it ran, into dir as name.*.pprof,
// summarised per operation (ops).
func profileInProcess(dir, name string, f func() int) ([]row, error) {
	file := filepath.Join(dir, slug(name))
	before := file + ".allocs-before.pprof"
	if err := writeHeap(before); err != nil {
		return nil, err
	}
	cf, err := os.Create(file + ".cpu.pprof")
	if err != nil {
		return nil, err
	}
	defer cf.Close()
	if err := pprof.StartCPUProfile(cf); err != nil {
		return nil, err
	}
	ops := f()
	pprof.StopCPUProfile()
	if err := writeHeap(file + ".allocs.pprof"); err != nil {
		return nil, err
	}
	return summariseProfiles(name, file+".cpu.pprof", before, file+".allocs.pprof", ops), nil
}

func writeHeap(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("allocs").WriteTo(f, 0)
}
