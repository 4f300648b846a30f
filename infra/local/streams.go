package main

import (
	"fmt"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/store"
)

// buildFeedRunners builds every stream consumer and the runner that feeds it
// from the embedded store's change feed, as the template's DynamoDB event
// source mappings feed it from the table's stream. Each consumer keeps its
// own checkpoint, named after its function.
func buildFeedRunners(d *app.Deps, consumers []wiring.StreamConsumer) ([]*app.FeedRunner, error) {
	if len(consumers) == 0 {
		return nil, nil
	}
	feed, ok := d.Store.(store.ChangeFeed)
	if !ok {
		return nil, fmt.Errorf("stream consumers need the embedded store's change feed; %T has none", d.Store)
	}
	var out []*app.FeedRunner
	for _, c := range consumers {
		if !store.Streamed(c.Table) {
			return nil, fmt.Errorf("%s: table %q is not streamed", c.Function, c.Table)
		}
		h, err := c.Build(d)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", c.Function, err)
		}
		out = append(out, &app.FeedRunner{
			Feed: feed, Table: c.Table, Consumer: c.Function, Handler: app.StreamLambda(h, nil, d.Log), Region: d.Config.Region,
			Log: d.Log.With("function", c.Function, "table", c.Table), Timeout: c.Timeout,
		})
	}
	return out, nil
}
