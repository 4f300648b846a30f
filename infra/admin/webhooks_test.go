package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// One event delivered to an endpoint answering 500: the CLI lists the event,
// the endpoint and the failed attempt.
func TestEventsAndDeliveries(t *testing.T) {
	dir := t.TempDir()
	acct := decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, embedded(t, dir, "accounts", "create", "--name", "Shop", "--json")).Account.ID
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }))
	defer rc.Close()

	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	q, err := boltqueue.Open(filepath.Join(t.TempDir(), "queue.db"), nil)
	require.NoError(t, err)
	defer q.Close()
	svc := webhooks.New(st, nil)
	ep, err := svc.Create(ctx, webhooks.Caller{AccountID: acct}, webhooks.CreateInput{URL: rc.URL, EnabledEvents: []string{"*"}})
	require.NoError(t, err)
	op, err := eventlog.Append(eventlog.Event{Type: orders.EventCompleted, Account: acct, At: time.Now(),
		Data: orders.Order{ID: ids.New(), Status: orders.StatusCompleted}})
	require.NoError(t, err)
	it := op.Item
	ev := struct{ ID string }{ID: it.SK}
	require.NoError(t, st.Write(ctx, op))
	n, err := webhooks.NewPublisher(svc, q, nil).Publish(ctx, it)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	msgs, err := q.Receive(ctx, queue.Webhooks, 1, time.Minute, time.Second)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	resp, err := app.SQSLambda(webhooks.NewSender(svc, q, webhooks.SenderConfig{}).Consume)(ctx,
		events.SQSEvent{Records: []events.SQSMessage{{MessageId: msgs[0].ID, Body: string(msgs[0].Body)}}})
	require.NoError(t, err)
	require.Empty(t, resp.BatchItemFailures)
	require.NoError(t, st.Close())

	r := embedded(t, dir, "events", "list", "--account", acct)
	require.Contains(t, r.stdout, ev.ID)
	require.Contains(t, r.stdout, "order.completed")
	r = embedded(t, dir, "webhooks", "endpoints", "--account", acct)
	require.Contains(t, r.stdout, ep.ID)
	require.NotContains(t, r.stdout, ep.Secret, "no secrets in the listing")
	r = embedded(t, dir, "webhooks", "deliveries", "--account", acct, "--endpoint-id", ep.ID)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 2, r.stdout)
	require.Contains(t, lines[1], ev.ID)
	require.Contains(t, lines[1], "failed")
	require.Contains(t, lines[1], "500")

	r = cli(t, nil, "webhooks", "deliveries", "--account", acct, "--endpoint-id", "we_00000000000000000000000000000000", "--data-dir", dir)
	require.Equal(t, 1, r.code, "unknown endpoint")
	r = cli(t, nil, "events", "list", "--account", acct, "--type", "nope", "--data-dir", dir)
	require.Equal(t, 2, r.code)
	r = cli(t, nil, "events", "list", "--account", acct, "--limit", "0", "--data-dir", dir)
	require.Equal(t, 2, r.code)
}
