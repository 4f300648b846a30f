package main

import (
	"context"

	"github.com/paygate/paygate/infra/democatalog"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
)

// The sandbox starts with the demo catalog and a test deposit, so the Gate
// API walk-through works on a fresh `make run`. Both steps are idempotent:
// the catalog load writes only what changed, and the deposit's reference
// credits once whatever the number of restarts.
func init() {
	seeders = append(seeders, seeder{Name: "gate demo catalog and deposit", Seed: seedGate})
}

// SandboxDepositRef is the reference of the initial sandbox deposit.
const SandboxDepositRef = "sandbox-initial"

func seedGate(ctx context.Context, d *app.Deps, accountID string) error {
	f, err := catalog.ParseFile(democatalog.Demo)
	if err != nil {
		return err
	}
	if err := catalog.NewRepo(d.Store).Load(ctx, accountID, f); err != nil {
		return err
	}
	_, _, err = prepaid.New(d.Store, d.Clock).PostDeposit(ctx, accountID, prepaid.Deposit{
		Currency: "USD", Amount: 1000_00, Method: prepaid.MethodManual, ExternalRef: SandboxDepositRef,
	})
	return err
}
