package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/paygate/paygate/shared/aws/localcloud"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/store"
)

// runner is a stream consumer's feed: the embedded change feed's, or a
// DynamoDB Local stream's.
type runner interface{ Run(ctx context.Context) }

// buildFeedRunners builds every stream consumer and the runner that feeds it,
// as the template's DynamoDB event source mappings feed it from the table's
// stream: from the embedded store's change feed, or on STORE=dynamodb from
// the table's stream on DynamoDB Local. Each consumer keeps its own
// checkpoint, named after its function.
func buildFeedRunners(d *app.Deps, consumers []wiring.StreamConsumer) ([]runner, error) {
	if len(consumers) == 0 {
		return nil, nil
	}
	feed, embedded := d.Store.(store.ChangeFeed)
	if !embedded && d.Config.Store != storeDynamo {
		return nil, fmt.Errorf("stream consumers need the embedded store's change feed or DynamoDB Local's streams; %T has neither", d.Store)
	}
	var out []runner
	for _, c := range consumers {
		if !store.Streamed(c.Table) {
			return nil, fmt.Errorf("%s: table %q is not streamed", c.Function, c.Table)
		}
		h, err := c.Build(d)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", c.Function, err)
		}
		if !embedded {
			r, err := localcloud.NewStreamRunner(d, c.Table, c.Function, cutStream(d, c.Function, app.StreamLambda(h, d.Tables, d.Log)), c.Timeout,
				filepath.Join(d.Config.DataDir, "streams"))
			if err != nil {
				return nil, err
			}
			out = append(out, r)
			continue
		}
		out = append(out, &app.FeedRunner{
			Feed: feed, Table: c.Table, Consumer: c.Function, Handler: app.StreamLambda(h, nil, d.Log), Region: d.Config.Region,
			Log: d.Log.With("function", c.Function, "table", c.Table), Timeout: c.Timeout,
		})
	}
	return out, nil
}
