package checkout

import (
	"context"
	"time"
)

// RunAt is one expirer run at now with a small per-shard budget, so tests
// reach the budget with few sessions (page is the due index's own now).
func (x *Expirer) RunAt(ctx context.Context, now time.Time, _, perShard int) (ExpireResult, error) {
	return x.run(ctx, now, perShard)
}
