package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// syncBuffer is written by the gateway and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type gateway struct {
	addr string
	out  *syncBuffer
	stop func()
}

// start runs the gateway in-process on a free port and stops it at cleanup.
func start(t *testing.T, dataDir string, env map[string]string, consumers []wiring.Consumer) *gateway {
	t.Helper()
	return startWith(t, dataDir, env, func(o *options) { o.Consumers = consumers })
}

// startWith is start with the options adjusted by set.
func startWith(t *testing.T, dataDir string, env map[string]string, set func(*options)) *gateway {
	t.Helper()
	getenv := func(k string) string {
		switch k {
		case "DATA_DIR":
			return dataDir
		case "PORT":
			return "0"
		}
		return env[k]
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	g := &gateway{out: &syncBuffer{}}
	o := options{Getenv: getenv, Stdout: g.out, Logs: io.Discard, Ready: ready}
	set(&o)
	go func() { done <- run(ctx, o) }()
	select {
	case g.addr = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("gateway did not start: %v", err)
	case <-time.After(90 * time.Second): // on DynamoDB Local it creates the tables first
		cancel()
		t.Fatal("gateway did not start in time")
	}
	var once sync.Once
	g.stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(15 * time.Second):
				t.Fatal("gateway did not stop")
			}
		})
	}
	t.Cleanup(g.stop)
	return g
}

func (g *gateway) get(t *testing.T, path, key string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://"+g.addr+path, nil)
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

var (
	keyLine     = regexp.MustCompile(`sandbox secret key: (sk_test_[0-9A-Za-z]+)`)
	accountLine = regexp.MustCompile(`sandbox account: (\S+)`)
)

func banner(t *testing.T, out string) (account, key string) {
	t.Helper()
	m := accountLine.FindStringSubmatch(out)
	require.NotNil(t, m, "no account in banner:\n%s", out)
	if k := keyLine.FindStringSubmatch(out); k != nil {
		key = k[1]
	}
	return m[1], key
}

// countAccounts reads the closed store file directly: the store port has no
// scan, and the test must see every account, not one it already knows.
func countAccounts(t *testing.T, dataDir string) int {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dataDir, "store.db"), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err)
	defer db.Close()
	n := 0
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(store.TableAccounts)).ForEach(func(k, _ []byte) error {
			if strings.HasPrefix(string(k), "acct#") && strings.HasSuffix(string(k), "\x00profile") {
				n++
			}
			return nil
		})
	}))
	return n
}

func TestFirstStartRestartAndSandboxKey(t *testing.T) {
	dir := t.TempDir()
	g := start(t, dir, nil, nil)
	status, _ := g.get(t, "/health", "")
	require.Equal(t, http.StatusOK, status)

	account, key := banner(t, g.out.String())
	require.NotEmpty(t, key, "first start must print a key:\n%s", g.out.String())
	status, body := g.get(t, "/v1/merchants/me", key)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, account, body["id"])
	require.Equal(t, "Sandbox", body["name"])
	require.Equal(t, false, body["livemode"])
	status, _ = g.get(t, "/v1/merchants/me", "sk_test_"+strings.Repeat("x", 32))
	require.Equal(t, http.StatusUnauthorized, status)
	g.stop()
	require.Equal(t, 1, countAccounts(t, dir))

	// A restart reuses the account and shows no key.
	g = start(t, dir, nil, nil)
	out := g.out.String()
	again, _ := banner(t, out)
	require.Equal(t, account, again)
	require.NotContains(t, out, "sk_test_")
	require.Contains(t, out, "shown at first start")
	require.Contains(t, out, "go run ./infra/admin keys create --data-dir "+dir+" --account "+account)
	status, _ = g.get(t, "/v1/merchants/me", key)
	require.Equal(t, http.StatusOK, status)
	g.stop()
	require.Equal(t, 1, countAccounts(t, dir))

	// SANDBOX_API_KEY on an existing data dir joins the same account.
	envKey := "sk_test_scriptkey0123456789abcdefghij"
	g = start(t, dir, map[string]string{"SANDBOX_API_KEY": envKey}, nil)
	require.NotContains(t, g.out.String(), envKey)
	status, body = g.get(t, "/v1/merchants/me", envKey)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, account, body["id"])
	g.stop()
	require.Equal(t, 1, countAccounts(t, dir))
}

func TestSandboxAPIKeyOnFirstStart(t *testing.T) {
	dir := t.TempDir()
	envKey := "sk_test_scriptkey0123456789abcdefghij"
	g := start(t, dir, map[string]string{"SANDBOX_API_KEY": envKey}, nil)
	out := g.out.String()
	account, printed := banner(t, out)
	require.Empty(t, printed, "no random key when SANDBOX_API_KEY is set:\n%s", out)
	require.Contains(t, out, "SANDBOX_API_KEY (sk_test_scri...)")
	status, body := g.get(t, "/v1/merchants/me", envKey)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, account, body["id"])
	g.stop()

	// The same key on the next start is a no-op, not a conflict.
	g = start(t, dir, map[string]string{"SANDBOX_API_KEY": envKey}, nil)
	status, _ = g.get(t, "/v1/merchants/me", envKey)
	require.Equal(t, http.StatusOK, status)
}

func TestBadSandboxAPIKeyFailsStart(t *testing.T) {
	getenv := func(k string) string {
		return map[string]string{"DATA_DIR": t.TempDir(), "PORT": "0", "SANDBOX_API_KEY": "sk_live_nope"}[k]
	}
	err := run(context.Background(), options{Getenv: getenv, Stdout: io.Discard})
	require.ErrorContains(t, err, "SANDBOX_API_KEY")
}

func TestWorkersConsumeQueues(t *testing.T) {
	var d *app.Deps
	got := make(chan queue.Message, 1)
	consumer := wiring.Consumer{Function: "TestConsumer", Queue: queue.Fulfilment, Build: func(deps *app.Deps) (queue.Handler, error) {
		d = deps
		return func(_ context.Context, batch []queue.Message) []string {
			for _, m := range batch {
				got <- m
			}
			return nil
		}, nil
	}}
	dir := t.TempDir()
	g := start(t, dir, nil, []wiring.Consumer{consumer})
	require.NotNil(t, d)
	id, err := d.Queue.Send(context.Background(), queue.Fulfilment, []byte(`{"order":"o1"}`), 0)
	require.NoError(t, err)
	select {
	case m := <-got:
		require.Equal(t, id, m.ID)
		require.Equal(t, `{"order":"o1"}`, string(m.Body))
		require.Equal(t, 1, m.ReceiveCount)
		require.NotEmpty(t, m.Receipt)
	case <-time.After(5 * time.Second):
		t.Fatal("the worker did not deliver the message")
	}
	g.stop() // returns only once the worker has stopped

	// The handled message was deleted: even long past its visibility timeout
	// it does not come back.
	later := func() time.Time { return time.Now().Add(time.Hour) }
	q, err := boltqueue.Open(filepath.Join(dir, "queue.db"), later)
	require.NoError(t, err)
	defer q.Close()
	msgs, err := q.Receive(context.Background(), queue.Fulfilment, 10, time.Second, 0)
	require.NoError(t, err)
	require.Empty(t, msgs)
}

// Stream consumers are fed from the embedded change feed: a committed event
// reaches the handler as a DynamoDB stream record; one committed while the
// gateway was down reaches it after the restart, and what was handled
// before is not handed over again.
func TestStreamConsumersGetCommittedEvents(t *testing.T) {
	var d *app.Deps
	got := make(chan store.Change, 10)
	consumer := wiring.StreamConsumer{Function: "TestPublisherFunction", Table: store.TableEvents,
		Build: func(deps *app.Deps) (store.ChangeHandler, error) {
			d = deps
			return func(_ context.Context, changes []store.Change) int {
				for _, c := range changes {
					got <- c
				}
				return len(changes)
			}, nil
		}}
	next := func() store.Change {
		t.Helper()
		select {
		case r := <-got:
			return r
		case <-time.After(5 * time.Second):
			t.Fatal("the stream consumer got nothing")
		}
		return store.Change{}
	}
	put := func(s store.Store, sk string) {
		t.Helper()
		k := store.Key{Table: store.TableEvents, PK: "evt#test", SK: sk}
		require.NoError(t, s.Write(context.Background(), store.Put(store.Item{Key: k, Data: []byte(`{}`)}, store.IfAbsent)))
	}
	dir := t.TempDir()
	g := startWith(t, dir, nil, func(o *options) { o.Streams = []wiring.StreamConsumer{consumer} })
	require.NotNil(t, d)
	// The gateway's own writes (the sandbox seed) may come first.
	put(d.Store, "evt_1")
	for c := next(); c.Item.SK != "evt_1"; c = next() {
	}
	g.stop()

	s, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	put(s, "evt_2") // committed while no consumer runs
	require.NoError(t, s.Close())

	g = startWith(t, dir, nil, func(o *options) { o.Streams = []wiring.StreamConsumer{consumer} })
	c := next()
	require.Equal(t, "evt_2", c.Item.SK, "after the restart, exactly the event not yet handled")
	require.Equal(t, store.ChangeInsert, c.Kind)
	require.Equal(t, store.TableEvents, c.Item.Table, "the logical table, from the record's stream ARN")
	require.JSONEq(t, `{}`, string(c.Item.Data))
	g.stop()
}

func TestConfigDefaultsToTheEmbeddedStore(t *testing.T) {
	ctx := context.Background()
	cfg, port, err := config(ctx, func(string) string { return "" })
	require.NoError(t, err)
	require.Equal(t, "embedded", cfg.Store)
	require.Equal(t, ".data", cfg.DataDir)
	require.Equal(t, "8080", port)
	_, _, err = config(ctx, func(k string) string { return map[string]string{"PORT": "http"}[k] })
	require.Error(t, err)
	_, _, err = config(ctx, func(k string) string { return map[string]string{"STORE": "s3"}[k] })
	require.ErrorContains(t, err, "STORE must be")
	// dynamodb runs on the emulators only: never on AWS by accident.
	_, _, err = config(ctx, func(k string) string { return map[string]string{"STORE": "dynamodb"}[k] })
	require.ErrorContains(t, err, "DYNAMODB_ENDPOINT")
}
