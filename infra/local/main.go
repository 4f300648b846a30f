// Command local is the local gateway behind `make run`: every HTTP function
// group served from one process on 127.0.0.1:$PORT, every queue consumer
// polling its queue and every stream consumer fed from the embedded change
// feed in the background, all on the embedded store and queue under
// $DATA_DIR. No cloud, no containers.
//
// With STORE=dynamodb, DYNAMODB_ENDPOINT and SQS_ENDPOINT it runs the same
// on DynamoDB Local and moto's SQS instead (package localcloud): the stack's
// tables and queues are created there if missing, and the stream consumers
// read DynamoDB Local's streams, so the whole API can be driven on the real
// servers' APIs. FAULTS (with STORE=dynamodb) injects DynamoDB and SQS
// failures into those calls by a seeded plan (infra/chaos/faults; `make
// chaos` drives it).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/paygate/paygate/infra/chaos/faults"
	"github.com/paygate/paygate/shared/aws/localcloud"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/queue"
)

func main() {
	app.TuneGC(os.Getenv) // as every function's main does (app.StartHTTP and the others)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, options{Getenv: os.Getenv, Stdout: os.Stdout}); err != nil {
		fmt.Fprintln(os.Stderr, "local gateway:", err)
		os.Exit(1)
	}
}

// options are run's inputs, so tests can start the gateway in-process.
type options struct {
	Getenv    func(string) string
	Stdout    io.Writer               // the banner
	Logs      io.Writer               // JSON logs; nil means Stdout
	Ready     chan<- string           // gets the listen address once serving
	HTTP      []app.HTTPBuilder       // nil means wiring.HTTP()
	Consumers []wiring.Consumer       // nil means wiring.SQS()
	Tasks     []wiring.Task           // nil means wiring.Periodic()
	Streams   []wiring.StreamConsumer // nil means wiring.Streams()
	Timeouts  *timeouts               // nil means gatewayTimeouts
}

// timeouts are the HTTP server's limits. The deployed stack sits behind API
// Gateway (HTTP API), which buffers a whole request before it invokes a
// function, so a slow or stalled client never holds a function, and gives the
// integration at most 30 s. The local gateway has no such front, so it cuts
// off slow or stalled clients itself: a connection that sends headers and
// then never sends its body cannot hold a goroutine and a socket forever.
type timeouts struct {
	ReadHeader time.Duration // request line and headers
	Read       time.Duration // the whole request, body included
	Write      time.Duration // from the end of the headers to the end of the response
	Idle       time.Duration // a keep-alive connection between requests
}

// gatewayTimeouts are the values `make run` uses. Read and write are API
// Gateway's 30 s integration timeout: no request the deployed stack would
// serve is cut short locally, and none runs longer than it could there.
// Headers get 10 s (far more than any real client needs); an idle
// keep-alive connection only costs its client a reconnect after 60 s.
var gatewayTimeouts = timeouts{
	ReadHeader: 10 * time.Second,
	Read:       30 * time.Second,
	Write:      30 * time.Second,
	Idle:       60 * time.Second,
}

// shutdownGrace bounds how long in-flight requests may finish on shutdown.
const shutdownGrace = 10 * time.Second

// run serves until ctx is done, then shuts down in order: stop accepting and
// drain requests, stop the workers (a batch in flight finishes), close the
// store and queue.
func run(ctx context.Context, o options) error {
	cfg, port, err := config(ctx, o.Getenv)
	if err != nil {
		return err
	}
	opts := []app.Option{app.WithQueue(nil)} // embedded: the local queue
	if cfg.Store == storeDynamo {
		opts = localcloud.Options()
	}
	d, err := app.Open(ctx, cfg, opts...)
	if err != nil {
		return err
	}
	defer d.Close()
	logs := o.Logs
	if logs == nil {
		logs = o.Stdout
	}
	d.Log = app.NewLogger(logs, cfg.LogLevel)

	builders, consumers := o.HTTP, o.Consumers
	if builders == nil {
		// The groups are served as declared; a broken declaration (a route
		// twice, overlapping key prefixes) stops here, not in a deploy.
		if errs := wiring.Check(); len(errs) > 0 {
			return fmt.Errorf("group declarations: %w", errors.Join(errs...))
		}
		builders = wiring.HTTP()
	}
	if consumers == nil {
		consumers = wiring.SQS()
	}
	srv, err := d.ServeAll(builders...)
	if err != nil {
		return err
	}
	pollers, err := buildPollers(d, consumers)
	if err != nil {
		return err
	}
	if err := releaseHeld(ctx, d, consumers); err != nil {
		return err
	}
	tasks := o.Tasks
	if tasks == nil {
		tasks = wiring.Periodic()
	}
	periodics, err := buildPeriodic(d, tasks)
	if err != nil {
		return err
	}
	streams := o.Streams
	if streams == nil {
		streams = wiring.Streams()
	}
	feeds, err := buildFeedRunners(d, streams)
	if err != nil {
		return err
	}
	sb, err := ensureSandbox(ctx, d, o.Getenv("SANDBOX_API_KEY"))
	if err != nil {
		return fmt.Errorf("sandbox account: %w", err)
	}
	if err := ensureDashboardOwner(ctx, d, sb, o.Getenv("SANDBOX_DASHBOARD_PASSWORD")); err != nil {
		return fmt.Errorf("sandbox dashboard owner: %w", err)
	}
	if err := seed(ctx, d, sb.AccountID); err != nil {
		return err
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		return err
	}
	// The sample link's url needs the address just taken (PORT may be 0).
	link, err := ensureSampleLink(ctx, d, sb.AccountID, "http://"+ln.Addr().String())
	if err != nil {
		ln.Close()
		return fmt.Errorf("sample payment link: %w", err)
	}
	to := gatewayTimeouts
	if o.Timeouts != nil {
		to = *o.Timeouts
	}
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: to.ReadHeader,
		ReadTimeout:       to.Read,
		WriteTimeout:      to.Write,
		IdleTimeout:       to.Idle,
	}
	stopPprof, err := servePprof(o.Getenv("PPROF_ADDR"))
	if err != nil {
		ln.Close()
		return err
	}
	defer stopPprof()
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	wctx, stopWorkers := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, p := range pollers {
		wg.Go(func() { p.Run(wctx) })
	}
	for _, f := range feeds {
		wg.Go(func() { f.Run(wctx) })
	}
	startPeriodic(wctx, &wg, periodics)

	addr := ln.Addr().String()
	printBanner(o.Stdout, "http://"+addr, cfg.DataDir, sb, link)
	d.Log.Info("local gateway listening", "addr", addr, "data_dir", cfg.DataDir,
		"routes", len(srv.Routes()), "workers", len(pollers), "stream_consumers", len(feeds))
	if o.Ready != nil {
		o.Ready <- addr
	}

	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if serr := hs.Shutdown(sctx); serr != nil && err == nil {
		err = serr
	}
	stopWorkers()
	wg.Wait()
	d.Log.Info("local gateway stopped")
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// storeDynamo is STORE's value that runs the gateway on DynamoDB Local and
// moto (localcloud); unset or "embedded" runs it on the embedded store.
const storeDynamo = "dynamodb"

// config reads the app configuration, the store embedded unless STORE is
// dynamodb (whose tables and queues it provisions), and the port (default
// 8080; 0 picks a free one).
func config(ctx context.Context, getenv func(string) string) (app.Config, string, error) {
	env := func(k string) string {
		if k == "STORE" && getenv(k) == "" {
			return "embedded" // make run's default; a deployed function's is dynamodb
		}
		if k == "DATA_DIR" && getenv(k) == "" {
			return ".data" // the embedded store's files, or the stream checkpoints on dynamodb
		}
		return getenv(k)
	}
	if s := env("STORE"); s != "embedded" && s != storeDynamo {
		return app.Config{}, "", fmt.Errorf("STORE must be embedded (the default) or dynamodb, not %q", s)
	}
	if env("STORE") == storeDynamo {
		var err error
		if env, err = localcloud.Provision(ctx, env); err != nil {
			return app.Config{}, "", err
		}
	}
	cfg, err := app.ConfigFromEnv(env)
	if err != nil {
		return cfg, "", err
	}
	if spec := getenv("FAULTS"); spec != "" {
		if cfg.Store != storeDynamo {
			return cfg, "", errors.New("FAULTS injects DynamoDB and SQS failures: it needs STORE=dynamodb")
		}
		plan, err := faults.Parse(spec)
		if err != nil {
			return cfg, "", err
		}
		cfg.Transport = faults.New(plan, nil)
	}
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return cfg, "", fmt.Errorf("PORT must be a port number, not %q", port)
	}
	return cfg, port, nil
}

// buildPollers builds every consumer and its worker, as the event source
// mappings of the template would.
// releaseHeld makes the messages a previous run had received and not
// finished (it crashed, or was killed) visible at once, instead of after
// their visibility timeout: this process is the embedded queue's only
// consumer, so nobody else holds them.
func releaseHeld(ctx context.Context, d *app.Deps, consumers []wiring.Consumer) error {
	rq, ok := d.Queue.(interface {
		ReleaseReceived(context.Context, string) (int, error)
	})
	if !ok {
		return nil
	}
	for _, c := range consumers {
		n, err := rq.ReleaseReceived(ctx, c.Queue)
		if err != nil {
			return fmt.Errorf("release %s: %w", c.Queue, err)
		}
		if n > 0 {
			d.Log.Info("messages held by the previous run released", "queue", c.Queue, "messages", n)
		}
	}
	return nil
}

// sqsPollWait is the long poll of the local pollers on a real queue
// server. A long poll outlives its poller: killed (kill -9, a test's
// crash) or cut off (a reset connection), its ReceiveMessage still waits at
// the server and takes the next messages sent, which then stay invisible
// for the whole visibility timeout (make chaos: payouts sent just after a
// restart waited two minutes for the settlement task's re-queue). A short
// poll ends with its poller. The embedded queue lives in this process and
// keeps app.DefaultWait; the event source mapping on AWS polls for us.
const sqsPollWait = time.Second

func pollWait(q queue.Queue) time.Duration {
	if _, embedded := q.(interface {
		ReleaseReceived(context.Context, string) (int, error)
	}); embedded {
		return app.DefaultWait
	}
	return sqsPollWait
}

func buildPollers(d *app.Deps, consumers []wiring.Consumer) ([]*app.Poller, error) {
	var out []*app.Poller
	for _, c := range consumers {
		h, err := c.Build(d)
		if err != nil {
			return nil, fmt.Errorf("build %s: %w", c.Function, err)
		}
		// The function's timeout per batch, and a visibility six times as
		// long, as template.yaml's queues give their consumers.
		out = append(out, &app.Poller{
			Queue: d.Queue, Name: c.Queue, Handler: cutSQS(d, c.Function, app.SQSLambda(h)), Region: d.Config.Region,
			Log: d.Log.With("function", c.Function, "queue", c.Queue), Timeout: c.Timeout, Visibility: 6 * c.Timeout,
			Wait: pollWait(d.Queue),
		})
	}
	return out, nil
}
