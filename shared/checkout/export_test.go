package checkout

import (
	"context"
	"time"
)

// RunAt is one expirer run at now with a small page and per-shard budget,
// so tests reach the budget with few sessions.
func (x *Expirer) RunAt(ctx context.Context, now time.Time, page, perShard int) (ExpireResult, error) {
	return x.run(ctx, now, page, perShard)
}
