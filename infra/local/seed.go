package main

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/shared/platform/app"
)

// seeder loads demo data into the sandbox account. It runs at every start, so
// it must be idempotent (put-if-absent, or check before writing).
type seeder struct {
	Name string
	Seed func(ctx context.Context, d *app.Deps, accountID string) error
}

// seeders run in order after the sandbox account exists. Other teams register
// theirs from init() in their own file of this package; the gate team's is
// "load the demo catalog into the sandbox account".
var seeders []seeder

func seed(ctx context.Context, d *app.Deps, accountID string) error {
	for _, s := range seeders {
		if err := s.Seed(ctx, d, accountID); err != nil {
			return fmt.Errorf("seed %s: %w", s.Name, err)
		}
		d.Log.Info("seeded", "seeder", s.Name, "account", accountID)
	}
	return nil
}
