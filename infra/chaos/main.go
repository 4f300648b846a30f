// Command chaos drives money through the local gateway on DynamoDB Local and
// moto while infra/chaos/faults fails their calls and the gateway is killed
// with SIGKILL, then checks the history: nothing acknowledged lost, nothing
// done twice, every retry of a key the same answer, the Gate balance
// linearizable (porcupine) and the merchant ledger re-derivable. It prints
// a table and its seed, and exits 1 on any violation (`make chaos`;
// `make test` runs the bounded run).
//
//	make chaos ARGS='-seed 42'
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/paygate/paygate/infra/chaos/faults"
)

func main() {
	cfg := Config{Log: os.Stdout}
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()%1_000_000), "the faults' and kills' seed (printed; a failing run is reproduced from it)")
	flag.Float64Var(&cfg.Rate, "rate", 0.08, "the share of DynamoDB and SQS calls that fail")
	kinds := flag.String("kinds", "", "fault kinds, +-separated (default: all)")
	flag.BoolVar(&cfg.Bounded, "bounded", false, "the short run of make test")
	flag.BoolVar(&cfg.Kills, "kill", true, "kill -9 the gateway at random points")
	flag.BoolVar(&cfg.Network, "network", true, "Toxiproxy between the gateway and DynamoDB Local and moto (latency, bandwidth, resets, timeouts)")
	verbose := flag.Bool("v", false, "show the gateway's output")
	flag.Parse()
	cfg.Seed = *seed
	if *kinds != "" {
		for k := range strings.SplitSeq(*kinds, "+") {
			cfg.Kinds = append(cfg.Kinds, faults.Kind(k))
		}
	}
	if *verbose {
		cfg.Logs = os.Stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := Run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "chaos: FAILED:", err)
		os.Exit(1)
	}
}
