package main

import "context"

// openTarget is openProfiledTarget without profiles, as the tests open
// their servers.
func openTarget(ctx context.Context, kind, root string) (target, func() error, error) {
	return openProfiledTarget(ctx, kind, root, false)
}
