// Command bench is `make bench`: it measures what the project promises
// about size, cold start, warm latency, DynamoDB round trips and local
// throughput, prints one table (name | value | target | ok) and writes it,
// dated, one section per step, into docs/benchmarks.md (-write; docs.go), the
// only place the project's figures live. Figures are reported, never
// asserted; -strict makes a missed target exit 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/paygate/paygate/infra/runtimeapi"
)

// row is one line of the table.
type row struct{ name, value, target, ok string }

func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

type options struct {
	runs         int
	loadFor      time.Duration
	loadRequests int
	concurrency  int
	loadTarget   string
	strict       bool
	steps        *regexp.Regexp // the steps to run (all by default)
	write        string         // the Markdown file the figures go to, from the module root ("": none)
	list         bool           // name the steps in order, run none
	profileDir   string         // -profile: where the pprof profiles go ("": none taken)
	results      *[]caseResult  // when set, measureLoad adds each case's outcome (for the target rows)
}

func main() {
	testing.Init() // testing.Benchmark reads the test flags
	var o options
	flag.IntVar(&o.runs, "runs", 21, "cold start runs per binary (the median is reported)")
	flag.DurationVar(&o.loadFor, "load-duration", 3*time.Second, "longest length of each load row")
	flag.IntVar(&o.loadRequests, "load-requests", 100000, "most requests of each load row")
	flag.IntVar(&o.concurrency, "concurrency", 50, "concurrent clients of the load rows")
	flag.StringVar(&o.loadTarget, "load-target", targetGateway,
		"server of the load rows: "+targetGateway+" (build and start ./infra/local) or "+targetInProcess)
	flag.BoolVar(&o.strict, "strict", false, "exit 1 when a target is missed")
	flag.StringVar(&o.write, "write", benchmarksFile, "write the figures, dated, into this Markdown file under the module root, replacing the sections of the steps run (\"\": print only)")
	steps := flag.String("steps", "", "run only the steps whose name matches this regular expression (e.g. 'load|orders')")
	profile := flag.Bool("profile", false, "take pprof CPU and allocation profiles of the server under each load row and of the warm GET, into a temporary directory (named in the table), and summarise their top items")
	flag.Parse()
	if *profile {
		dir, err := os.MkdirTemp("", "paygate-bench-profiles-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: -profile:", err)
			os.Exit(1)
		}
		o.profileDir = dir
		fmt.Fprintln(os.Stderr, "bench: profiles go to", dir)
	}
	var err error
	if o.steps, err = regexp.Compile(*steps); err != nil {
		fmt.Fprintln(os.Stderr, "bench: -steps:", err)
		os.Exit(2)
	}
	if o.loadFor <= 0 || o.loadRequests <= 0 || o.concurrency <= 0 {
		fmt.Fprintln(os.Stderr, "bench: -load-duration, -load-requests and -concurrency must be positive")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	sections, err := run(ctx, o, os.Stderr)
	var rows []row
	for _, s := range sections {
		rows = append(rows, s.rows...)
	}
	print(os.Stdout, rows)
	if o.write != "" && len(sections) > 0 {
		if werr := writeSections(ctx, o, sections); werr != nil {
			fmt.Fprintln(os.Stderr, "bench: -write:", werr)
			os.Exit(1)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	if o.strict {
		for _, r := range rows {
			if r.ok == "MISSED" {
				os.Exit(1)
			}
		}
	}
}

// writeSections writes the run's sections into o.write, from the module
// root, the steps in the order make bench runs them.
func writeSections(ctx context.Context, o options, sections []section) error {
	root, err := runtimeapi.ModuleRoot(".")
	if err != nil {
		return err
	}
	path := o.write
	if !filepath.IsAbs(path) {
		path = filepath.Join(root, path)
	}
	o.list, o.steps = true, nil
	all, err := run(ctx, o, io.Discard)
	if err != nil {
		return err
	}
	order := make([]string, len(all))
	for i, s := range all {
		order[i] = s.name
	}
	return writeBenchmarks(path, sections, order)
}

// run measures everything in turn, one section per step; a failing step is
// reported in its row and the others still run.
func run(ctx context.Context, o options, progress io.Writer) ([]section, error) {
	root, err := runtimeapi.ModuleRoot(".")
	if err != nil {
		return nil, err
	}
	fns, err := templateFunctions(root)
	if err != nil {
		return nil, err
	}
	var sections []section
	var failed []string
	step := func(name string, f func() ([]row, error)) {
		if o.steps != nil && !o.steps.MatchString(name) {
			return
		}
		if o.list {
			sections = append(sections, section{name: name})
			return
		}
		fmt.Fprintf(progress, "bench: %s...\n", name)
		r, err := f()
		if err != nil {
			failed = append(failed, name)
			r = append(r, row{name: name, value: "error: " + err.Error(), target: "-", ok: "MISSED"})
		}
		sections = append(sections, section{name: name, measured: measuredOn(time.Now()), rows: r})
	}
	step("stack size", func() ([]row, error) { return stackRows(ctx, root) })
	var largest function // by binary size: the one whose cold start is held to the target
	step("binary sizes", func() (r []row, err error) { r, largest, err = binarySizes(ctx, root, fns); return r, err })
	step("cold starts", func() ([]row, error) { return coldStarts(ctx, root, fns, largest, o.runs) })
	step("warm GET /v1/merchants/me", func() ([]row, error) { return warmRow(root, o.profileDir) })
	step("DynamoDB calls per request", func() ([]row, error) { return dynamoRows(ctx) })
	step("DynamoDB calls per order", func() ([]row, error) { return orderDynamoRows(ctx) })
	step("hot balance", func() ([]row, error) { return hotBalanceRows(ctx, o) })
	step("DynamoDB calls per checkout request", func() ([]row, error) { return checkoutDynamoRows(ctx) })
	step("webhook calls per event per endpoint", func() ([]row, error) { return webhookCallRows(ctx) })
	step("DynamoDB and SQS calls per wallet authorisation and confirmation", func() ([]row, error) { return walletDynamoRows(ctx) })
	step("DynamoDB calls per capture and refund", func() ([]row, error) { return txDynamoRows(ctx) })
	step("DynamoDB calls per dispute request", func() ([]row, error) { return disputeDynamoRows(ctx) })
	step("DynamoDB calls per distribution, payment order and invoice", func() ([]row, error) { return benefDynamoRows(ctx) })
	step("DynamoDB calls per payment link and page", func() ([]row, error) { return linkDynamoRows(ctx) })
	step("DynamoDB calls per dashboard page and form", func() ([]row, error) { return dashboardDynamoRows(ctx) })
	step("dashboard page", func() ([]row, error) { return dashboardPageRows(ctx, o) })
	step("hosted payment page first load", func() ([]row, error) { return hostedPageRows(ctx) })
	step("ledger check", func() ([]row, error) { return ledgerRows(ctx, ledgerCheckEntries) })
	step("DynamoDB calls per recurring payment", func() ([]row, error) { return recurringDynamoRows(ctx) })
	step("direct payment: decrypt + authorise, KMS calls", func() ([]row, error) { return directRows(ctx) })
	step("Adyen connector: calls and latency per card payment", func() ([]row, error) { return connectorRows(ctx) })
	step("cost per million operations", func() ([]row, error) { return costRows(ctx, root) })
	loadSteps(ctx, o, root, step)
	step("webhook delivery through the local gateway", func() ([]row, error) { return webhookLoadRows(ctx, root) })
	if len(failed) > 0 {
		return sections, fmt.Errorf("failed: %s", strings.Join(failed, ", "))
	}
	return sections, nil
}

// Issue 33's targets for the warm authenticated GET.
const (
	warmMaxNs     = 6000
	warmMaxAllocs = 60
)

// warmRow is the warm GET's benchmark; with profileDir, a second run of it
// is profiled (CPU and allocations) and summarised in rows of its own.
func warmRow(root, profileDir string) ([]row, error) {
	var runErr error
	bench := func() testing.BenchmarkResult {
		return testing.Benchmark(func(b *testing.B) {
			defer func() {
				if b.Failed() {
					runErr = fmt.Errorf("benchmark failed")
				}
			}()
			benchMerchantDetailsWarm(b, root)
		})
	}
	res := bench()
	if runErr != nil || res.N == 0 {
		return nil, fmt.Errorf("BenchmarkMerchantDetailsWarm did not run (go test -bench MerchantDetailsWarm ./infra/bench shows why)")
	}
	var profRows []row
	if profileDir != "" {
		var err error
		if profRows, err = profileInProcess(profileDir, "warm GET /v1/merchants/me in-process", func() int { return bench().N }); err != nil {
			return nil, err
		}
	}
	floor := testing.Benchmark(func(b *testing.B) { benchAdapterFloor(b, root) })
	if floor.N == 0 {
		return nil, fmt.Errorf("BenchmarkAdapterFloor did not run (go test -bench AdapterFloor ./infra/bench shows why)")
	}
	return append([]row{{
		name:   "warm GET /v1/merchants/me in-process (embedded store)",
		value:  fmt.Sprintf("%.1f µs/op, %d allocs/op, %d B/op", float64(res.NsPerOp())/1000, res.AllocsPerOp(), res.AllocedBytesPerOp()),
		target: fmt.Sprintf("< %.0f µs/op, < %d allocs/op", float64(warmMaxNs)/1000, warmMaxAllocs),
		ok:     verdict(res.NsPerOp() < warmMaxNs && res.AllocsPerOp() < warmMaxAllocs),
	}, {
		name:   "its floor: the same event through the API Gateway v2 adapter to a handler writing a fixed body",
		value:  fmt.Sprintf("%.1f µs/op, %d allocs/op, %d B/op", float64(floor.NsPerOp())/1000, floor.AllocsPerOp(), floor.AllocedBytesPerOp()),
		target: "report (the adapter's share of the row above)",
		ok:     "-",
	}}, profRows...), nil
}

func dynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per authenticated request", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	c, err := measureDynamoCalls(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "DynamoDB calls: authenticate a key", value: formatCounts(c.Auth), target: "GetItem=1", ok: verdict(authCostOK(c.Auth))},
		{name: "DynamoDB calls: GET /v1/merchants/me", value: formatCounts(c.Request), target: "key GetItem + account GetItem, no Scan", ok: verdict(c.Request["Scan"] == 0 && c.Request["GetItem"] == 2 && total(c.Request) == 2)},
	}, nil
}

// authCostOK is the auth target: exactly one GetItem, nothing else.
func authCostOK(c map[string]int) bool { return c["GetItem"] == 1 && total(c) == 1 }

func total(c map[string]int) int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

func print(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVALUE\tTARGET\tOK")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.name, r.value, r.target, r.ok)
	}
	tw.Flush()
}
