package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/paygate/paygate/infra/chaos/faults"
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/localcloud"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/app"
)

// Config is one chaos run.
type Config struct {
	Seed     uint64
	Rate     float64       // the share of AWS calls that fail
	Kinds    []faults.Kind // nil: every kind
	Bounded  bool          // the short run make test runs
	Kills    bool          // kill -9 the gateway at random points
	Network  bool          // Toxiproxy between the gateway and the servers
	Log      io.Writer     // the table and progress
	Logs     io.Writer     // the gateway's own output
	Patience time.Duration // how long a client retries one operation
}

// result is one workload's line of the table.
type result struct {
	workload                string
	acked, lost, duplicated int
	unknown, retries        int
	p99                     map[string]time.Duration
	took                    time.Duration
	longest                 time.Duration // of any attempt
	verdicts                []string
	violations              []string
}

func (r *result) fail(check, detail string) {
	r.violations = append(r.violations, check+": "+detail)
}

func (r *result) verdict(name string, res porcupine.CheckResult) {
	switch res {
	case porcupine.Ok:
		r.verdicts = append(r.verdicts, name+" ok")
	case porcupine.Unknown:
		r.verdicts = append(r.verdicts, name+" timed out")
	default:
		r.fail(name, "the history has no linearization")
	}
}

// run is the state a run's workloads share.
type run struct {
	Config
	seed uint64
	gw   *gateway
	key  string
	deps *app.Deps

	mu   sync.Mutex
	made map[string]bool // the ids of what the workloads made, for the events' causes

	// inFlight counts the webhooks queue's messages received and not yet
	// deleted, or delayed: after kill -9 those held by the dead gateway
	// come back only after their visibility timeout (minutes), late, not lost.
	inFlight func(context.Context) (int, error)
}

// remember notes an id the workloads made.
func (r *run) remember(ids ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if id != "" {
			r.made[id] = true
		}
	}
}

// scale is bounded's value in the bounded run, full's otherwise.
func (r *run) scale(bounded, full int) int {
	if r.Bounded {
		return bounded
	}
	return full
}

func (r *run) client() *client { return newClient(r.gw.url(), r.key, r.Patience) }

// balance reads the sandbox's USD Gate balance in minor units (-1: not read).
func (r *run) balance(ctx context.Context, c *client) int64 {
	a := c.get(ctx, "/balance")
	if !a.Definitive || a.Status != 200 {
		return -1
	}
	for _, b := range items(a.Body) {
		if b["currency_code"] == "USD" {
			s, _ := b["available"].(string)
			units, frac, _ := strings.Cut(s, ".")
			u, err1 := strconv.ParseInt(units, 10, 64)
			f, err2 := strconv.ParseInt((frac + "00")[:2], 10, 64)
			if err1 == nil && err2 == nil {
				return u*100 + f
			}
		}
	}
	return -1
}

// quiesce waits for the consumers to catch up: the queues' messages,
// delayed and redelivered ones included, take seconds under faults.
func (r *run) quiesce(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Duration(r.scale(5, 20)) * time.Second):
	}
}

// Run runs every workload under the faults and prints the table; the
// error lists the violations.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Patience == 0 {
		cfg.Patience = 45 * time.Second
	}
	dir, err := os.MkdirTemp("", "chaos-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	began := time.Now()
	bin, err := build(ctx, dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(cfg.Log, "chaos: gateway built in %s\n", time.Since(began).Round(time.Second))
	port, err := freePort()
	if err != nil {
		return err
	}
	prefix := fmt.Sprintf("chaos-%d-%d-", cfg.Seed, time.Now().Unix())
	report := filepath.Join(dir, "faults.json")
	kinds := cfg.Kinds
	if kinds == nil {
		kinds = faults.All
	}
	var names []string
	for _, k := range kinds {
		if k != faults.Storm {
			names = append(names, string(k))
		}
	}
	spec := fmt.Sprintf("seed=%d,rate=%g,kinds=%s,report=%s", cfg.Seed, cfg.Rate, strings.Join(names, "+"), report)
	if slices.Contains(kinds, faults.Storm) {
		spec += ",storm=" + map[bool]string{true: "15s/2s", false: "30s/3s"}[cfg.Bounded]
	}
	if cfg.Bounded && slices.Contains(kinds, faults.Deadline) {
		// As kills: a payout or payment order whose batch is cut comes
		// back after the queue's visibility timeout (three minutes), past
		// the bounded run's budget. make chaos cuts them too.
		spec += ",spare=PayoutsSenderFunction+PaymentOrdersSenderFunction"
	}
	key := fmt.Sprintf("sk_test_chaos%024d", cfg.Seed)
	env := []string{"STORE=dynamodb", "TABLE_PREFIX=" + prefix, "DATA_DIR=" + filepath.Join(dir, "data"),
		"SANDBOX_API_KEY=" + key, "LOG_LEVEL=" + logLevel(cfg), "FAULTS=" + spec}
	var net *network
	if cfg.Network {
		// The gateway reaches the servers through Toxiproxy; the runner
		// (tables, the ledger check) directly.
		var ups []string
		for _, v := range []string{"DYNAMODB_ENDPOINT", "SQS_ENDPOINT"} {
			hp, err := hostPort(os.Getenv(v))
			if err != nil {
				return fmt.Errorf("%s: %w", v, err)
			}
			ups = append(ups, hp)
		}
		n, addrs, err := startNetwork(ups...)
		if err != nil {
			return err
		}
		net = n
		env = append(env, "DYNAMODB_ENDPOINT=http://"+addrs[0], "SQS_ENDPOINT=http://"+addrs[1])
	}
	replay := fmt.Sprintf("-seed %d", cfg.Seed)
	if cfg.Bounded {
		replay += " -bounded"
	}
	fmt.Fprintf(cfg.Log, "chaos: seed %d (replay: make chaos ARGS='%s'), FAULTS=%s\n", cfg.Seed, replay, spec)

	// The tables first, without faults: the runner reads them at the end.
	getenv := func(k string) string {
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k && k != "FAULTS" {
				return v
			}
		}
		return os.Getenv(k)
	}
	penv, err := localcloud.Provision(ctx, getenv)
	if err != nil {
		return err
	}
	acfg, err := app.ConfigFromEnv(penv)
	if err != nil {
		return err
	}
	deps, err := app.Open(ctx, acfg, localcloud.Options()...)
	if err != nil {
		return err
	}
	defer deps.Close()

	logs := cfg.Logs
	if logs == nil {
		logs = io.Discard
	}
	gw := &gateway{bin: bin, env: env, port: port, logs: logs}
	if err := gw.startRetrying(); err != nil {
		return err
	}
	defer gw.stop()
	fmt.Fprintf(cfg.Log, "chaos: gateway serving after %s\n", time.Since(began).Round(time.Second))
	r := &run{Config: cfg, seed: cfg.Seed, gw: gw, key: key, deps: deps, made: map[string]bool{},
		inFlight: inFlightCounter(acfg, penv("QUEUE_WEBHOOKS_URL"))}
	hooks, err := startWebhooks(ctx, r)
	if err != nil {
		return err
	}

	netCtx, stopNetwork := context.WithCancel(ctx)
	defer stopNetwork()
	var netDone sync.WaitGroup
	if net != nil {
		every := time.Duration(r.scale(6, 10)) * time.Second
		netDone.Go(func() { net.run(netCtx, cfg.Seed, every, 2*time.Second) })
	}
	killCtx, stopKills := context.WithCancel(ctx)
	var kills sync.WaitGroup
	if cfg.Kills {
		kills.Add(1)
		go func() { defer kills.Done(); r.killLoop(killCtx) }()
	}
	var results []result
	for i, w := range []func(context.Context, *run) result{ordersOnOneBalance, cardPayments, payoutsInABurst, distributionAndSettlement} {
		if i == 2 && cfg.Bounded {
			// The bounded run neither kills nor cuts the wire during payouts
			// and payment orders: one whose message dies with the gateway
			// (or whose visibility change is lost) waits for the settlement
			// task's re-queue, up to two minutes, past the bounded run's
			// budget. The SDK's faults go on; make chaos keeps them all.
			stopKills()
			kills.Wait()
			stopNetwork()
			netDone.Wait()
		}
		began := time.Now()
		res := w(ctx, r)
		res.took = time.Since(began)
		results = append(results, res)
	}
	stopKills()
	kills.Wait()
	results = append(results, hooks.check(ctx, r, r.made))

	// No request outlived API Gateway's 30 s integration timeout.
	for i := range results {
		if results[i].longest > 30*time.Second {
			results[i].fail("no request past 30 s", fmt.Sprintf("the longest took %s", results[i].longest))
		}
	}
	// The merchant ledger re-derives from its entries.
	ledgerVerdict := "ledger check ok"
	if rep, err := ledger.CheckAll(ctx, deps.Store); err != nil {
		ledgerVerdict = "ledger check failed to run: " + err.Error()
		results[len(results)-1].fail("ledger", err.Error())
	} else if !rep.OK() {
		ledgerVerdict = "ledger check: " + rep.String()
		results[len(results)-1].fail("ledger", rep.String())
	}
	stopNetwork()
	counts, _ := faults.ReadReport(report)
	all := map[string]int{}
	for k, n := range counts {
		all[string(k)] = n
	}
	if net != nil {
		for k, n := range net.snapshot() {
			all[k] = n
		}
	}
	return r.print(results, all, ledgerVerdict)
}

// inFlightCounter reads the queue's ApproximateNumberOfMessagesNotVisible
// and ...Delayed on moto.
func inFlightCounter(cfg app.Config, queueURL string) func(context.Context) (int, error) {
	return func(ctx context.Context) (int, error) {
		ac, err := awsapp.Config(cfg)
		if err != nil {
			return 0, err
		}
		q := sqs.NewFromConfig(ac, func(o *sqs.Options) { o.BaseEndpoint = aws.String(cfg.SQSEndpoint) })
		out, err := q.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(queueURL),
			AttributeNames: []sqstypes.QueueAttributeName{sqstypes.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
				sqstypes.QueueAttributeNameApproximateNumberOfMessagesDelayed}})
		if err != nil {
			return 0, err
		}
		n := 0
		for _, v := range out.Attributes {
			k, _ := strconv.Atoi(v)
			n += k
		}
		return n, nil
	}
}

// summary renders the counts of the SDK's fault kinds (in faults.All's
// order) and then the network's.
func summary(counts map[string]int) string {
	var parts []string
	for _, k := range faults.All {
		if n := counts[string(k)]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", k, n))
		}
	}
	for _, t := range toxics {
		if n := counts[t.name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", t.name, n))
		}
	}
	return strings.Join(parts, " ")
}

// killLoop kills the gateway with SIGKILL at seeded random moments and
// starts it again on the same tables, queues and checkpoints.
func (r *run) killLoop(ctx context.Context) {
	rng := rand.New(rand.NewPCG(r.seed, 0xdead))
	for {
		wait := time.Duration(5+rng.IntN(10)) * time.Second
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		r.gw.kill9()
		if err := r.gw.startRetrying(); err != nil {
			fmt.Fprintf(r.Log, "chaos: the gateway did not start again: %v\n", err)
			return
		}
	}
}

func (r *run) print(results []result, counts map[string]int, ledgerVerdict string) error {
	tw := tabwriter.NewWriter(r.Log, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\ttook\tacknowledged\tlost\tduplicated\tunknown\tclient retries\tp99 by route\tverdicts")
	var violations []string
	for _, res := range results {
		var p99 []string
		for route, d := range res.p99 {
			p99 = append(p99, fmt.Sprintf("%s %s", route, d.Round(time.Millisecond)))
		}
		slices.Sort(p99)
		verdicts := append(slices.Clone(res.verdicts), fmt.Sprintf("%d violations", len(res.violations)))
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", res.workload, res.took.Round(time.Second), res.acked, res.lost, res.duplicated, res.unknown, res.retries,
			strings.Join(p99, "; "), strings.Join(verdicts, "; "))
		for _, v := range res.violations {
			violations = append(violations, res.workload+": "+v)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	kinds := 0
	for _, n := range counts {
		if n > 0 {
			kinds++
		}
	}
	r.gw.mu.Lock()
	failed := r.gw.failedStarts
	r.gw.mu.Unlock()
	fmt.Fprintf(r.Log, "faults injected (%d kinds): %s; gateway killed %d times (%d start-ups failed under faults and were retried); %s\n",
		kinds, summary(counts), r.gw.killCount(), failed, ledgerVerdict)
	if len(violations) > 0 {
		return fmt.Errorf("%d violations (seed %d):\n  %s", len(violations), r.seed, strings.Join(violations, "\n  "))
	}
	return nil
}

// logLevel is the gateway's: warnings when its output is shown (-v).
func logLevel(cfg Config) string {
	if cfg.Logs != nil {
		return "warn"
	}
	return "error"
}
