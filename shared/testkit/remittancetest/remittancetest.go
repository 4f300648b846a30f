// Package remittancetest is the crash test of a remittance's consumer
// (shared/domain/remittance), which payouts and settlement payment orders share:
// the consumer's process is killed with SIGKILL right after the payer
// answered "paid" and before the consumer recorded it; the server starts
// again on the same data, its consumer receives the message again, asks the
// payer again (which answers the same, idempotent by the remittance's id)
// and records the answer: one outcome, one entry, the money paid out once,
// the books consistent. Server is the testdata main's side, Kill the test's.
package remittancetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest/crashtest"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// Server is a crash test's server: the embedded store and queue in
// $DATA_DIR with the sandbox key $SANDBOX_API_KEY (crashtest.Open), the
// groups Build serves and the consumer it returns, polled in the background
// after the messages a killed run had received are released (as the local
// gateway does at start).
type Server struct {
	Queue string // the consumer's queue
	Calls string // the file of $DATA_DIR each payer call is noted in
	Crash string // the variable that, "1", kills the process right after the payer answered
	// Build wires the service over d, its payer wrapped in a Crashing
	// with outside.
	Build func(d *app.Deps, outside crashtest.Outside) (consume queue.Handler, groups []httpapi.Group, err error)
}

// Main serves until the process is killed (a testdata main's body).
func (s Server) Main() {
	if err := s.run(); err != nil {
		fmt.Fprintln(os.Stderr, "killserver:", err)
		os.Exit(1)
	}
}

func (s Server) run() error {
	ctx := context.Background()
	d, _, err := crashtest.Open(ctx)
	if err != nil {
		return err
	}
	consume, groups, err := s.Build(d, crashtest.OutsideFromEnv(s.Calls, s.Crash))
	if err != nil {
		return err
	}
	if err := crashtest.Consume(ctx, d, s.Queue, app.SQSLambda(consume)); err != nil {
		return err
	}
	return crashtest.Serve(d.Server(groups...))
}

// Payer is the payer a Server wraps (balance.Processor,
// beneficiaries.Bank).
type Payer[Req any] interface {
	Pay(ctx context.Context, r Req) (remittance.Result, error)
	Lookup(ctx context.Context, id string) (remittance.Result, bool, error)
}

// Crashing wraps a Server's payer: it notes each call and, in a crashing
// run, dies right after the payer answered (Outside.Answered).
type Crashing[Req any] struct {
	Payer[Req]
	Outside crashtest.Outside
	ID      func(Req) string // the remittance a request pays
}

// Pay asks the payer, then notes the call (and dies when asked to).
func (c Crashing[Req]) Pay(ctx context.Context, r Req) (remittance.Result, error) {
	res, err := c.Payer.Pay(ctx, r)
	c.Outside.Answered(c.ID(r))
	return res, err
}

// Do calls the running server as the sandbox merchant.
type Do func(method, path string, body any) (int, map[string]any)

// Kill is one crash test.
type Kill struct {
	Server string // the server's main package ("./testdata/killserver")
	Key    string // the sandbox key
	Calls  string // as the Server's
	Crash  string // as the Server's
	Payer  string // names the payer in failures ("the processor")
	// Make funds the account and makes the remittance; it returns its id and
	// the path that reads it (its "status" becomes "paid").
	Make func(t *testing.T, do Do) (id, path string)
	// Paid checks the restarted server's answers once it is paid.
	Paid func(t *testing.T, do Do, id string)
	// The books afterwards: the remittance's entries (its Source's), oldest
	// first, and what the external account the money left by sums to in
	// Currency.
	Source   ledger.SourceType
	Entries  []ledger.EntryType
	External ledger.Account
	Currency string
	Total    int64
}

// Run runs the test (skipped with -short: it builds and kills a server).
func (k Kill) Run(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	bin := crashtest.Build(t, k.Server)
	dataDir := t.TempDir()
	c := crashtest.Client{Key: k.Key}
	var base string
	do := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		return c.Must(t, base, method, path, body)
	}
	env := map[string]string{"DATA_DIR": dataDir, "SANDBOX_API_KEY": k.Key, k.Crash: "1"}
	srv := crashtest.Start(t, bin, env, crashtest.Ready)
	base = srv.URL()
	id, path := k.Make(t, do)

	// The consumer takes the message, the payer pays, the process dies.
	calls := filepath.Join(dataDir, k.Calls)
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(calls)
		return strings.Count(string(b), id) == 1
	}, 15*time.Second, 20*time.Millisecond, "%s was asked", k.Payer)
	require.Eventually(t, func() bool {
		_, _, err := c.Do(base, "GET", "/health", nil, "")
		return err != nil
	}, 10*time.Second, 20*time.Millisecond, "the server died after %s answered", k.Payer)
	srv.Kill()

	env[k.Crash] = "0"
	srv = crashtest.Start(t, bin, env, crashtest.Ready)
	base = srv.URL()
	require.Eventually(t, func() bool {
		st, r := do("GET", path, nil)
		return st == 200 && r["status"] == "paid"
	}, 20*time.Second, 50*time.Millisecond, "paid after the restart")
	b, err := os.ReadFile(calls)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), id), "%s was asked twice", k.Payer)
	k.Paid(t, do, id)
	srv.Kill()

	s, err := boltstore.Open(filepath.Join(dataDir, "store.db"), nil)
	require.NoError(t, err)
	defer s.Close()
	ctx := context.Background()
	key, err := app.WithStore(s, nil, nil, nil).Keys.Authenticate(ctx, k.Key)
	require.NoError(t, err)
	all, err := ledger.CheckAll(ctx, s)
	require.NoError(t, err)
	require.True(t, all.OK(), all.String())
	require.Equal(t, 1, all.Accounts)
	es, err := ledgertest.EntriesOf(ctx, s, key.AccountID, ledger.Source{Type: k.Source, ID: id})
	require.NoError(t, err)
	var types []ledger.EntryType
	for _, e := range es {
		types = append(types, e.Type)
	}
	assert.Equal(t, k.Entries, types, "one outcome, one entry")
	total, err := ledgertest.ExternalTotal(ctx, s, key.AccountID, k.Currency, k.External)
	require.NoError(t, err)
	assert.Equal(t, k.Total, total, "paid out once")
}
