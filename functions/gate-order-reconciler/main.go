// Command gate-order-reconciler is the GateOrderReconcilerFunction, run every
// minute by a schedule: it re-queues pending orders whose fulfilment message
// was lost. (app has no scheduled-function starter yet; this is its wiring.)
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() {
	cfg, err := app.ConfigFromEnv(os.Getenv)
	if err == nil {
		var d *app.Deps
		if d, err = app.Open(context.Background(), cfg); err == nil {
			var run func(context.Context) error
			if run, err = wiring.GateOrderReconciler(d); err == nil {
				lambda.Start(run)
			}
		}
	}
	fmt.Fprintln(os.Stderr, "startup:", err)
	os.Exit(1)
}
