package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/paygate/paygate/shared/platform/app"
)

// A script that drives the drop-in's endpoints (/v2/client/...) needs a
// client key it knows, as SANDBOX_API_KEY gives it a secret key:
// SANDBOX_CLIENT_KEY=ck_test_... (24+ characters after the prefix) is
// registered on the sandbox account, allowed from the origins in
// SANDBOX_CLIENT_ORIGINS (comma-separated). Re-registering it at a restart
// is a no-op.
func init() {
	seeders = append(seeders, seeder{Name: "sandbox client key", Seed: func(ctx context.Context, d *app.Deps, accountID string) error {
		return seedClientKey(ctx, d, accountID, os.Getenv)
	}})
}

func seedClientKey(ctx context.Context, d *app.Deps, accountID string, getenv func(string) string) error {
	key := getenv("SANDBOX_CLIENT_KEY")
	if key == "" {
		return nil
	}
	var origins []string
	for _, o := range strings.Split(getenv("SANDBOX_CLIENT_ORIGINS"), ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	if _, err := d.Keys.ImportClient(ctx, accountID, key, origins, "SANDBOX_CLIENT_KEY"); err != nil {
		return fmt.Errorf("SANDBOX_CLIENT_KEY: %w", err)
	}
	return nil
}
