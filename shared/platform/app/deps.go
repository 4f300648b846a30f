package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/ssmkeys"
	"github.com/paygate/paygate/shared/aws/xray"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/auth"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// Deps are the clients and platform services a function group is built from.
type Deps struct {
	Config   Config
	Log      *slog.Logger
	Clock    func() time.Time
	Store    store.Store
	Queue    queue.Queue
	Accounts *accounts.Repo
	Keys     *auth.Keys
	Idem     *idempotency.Store
	AWS      *aws.Config // nil on the embedded store
	// Parameters reads the stack's secret parameters (SSM in AWS); nil on
	// the embedded store.
	Parameters Parameters
	// Connectors are the outside systems' connections; a nil one is the
	// system's sandbox (shared/platform/wiring/connect).
	Connectors connectors.Set
	// Tables are the physical table names by logical name (nil on the
	// embedded store, whose tables are the logical names).
	Tables map[string]string
}

// Parameters reads a stack's SecureString parameters: String(name) is a
// reader of the parameter's current value, read on each call.
type Parameters interface {
	String(name string) func(context.Context) (string, error)
}

// NewLogger is the JSON logger every runtime uses. It never sees keys: the
// platform logs ids, routes and statuses, not headers or bodies.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}

// SQSOpener builds the SQS-backed queue. It lives in package app/sqsapp so
// that functions which never touch a queue do not link the SQS client.
type SQSOpener func(aws.Config, Config) (queue.Queue, error)

// Option tunes what Open builds: each function opens only what it uses,
// because everything opened or linked is paid for on every cold start.
type Option func(*openOptions)

type openOptions struct {
	queue bool
	sqs   SQSOpener
}

// WithQueue opens the queue: the embedded one locally, SQS (through open) in
// AWS. Functions that send or consume messages ask for it.
func WithQueue(open SQSOpener) Option {
	return func(o *openOptions) { o.queue, o.sqs = true, open }
}

// Open builds the dependencies from cfg.
func Open(ctx context.Context, cfg Config, opts ...Option) (*Deps, error) {
	var o openOptions
	for _, opt := range opts {
		opt(&o)
	}
	d := &Deps{Config: cfg, Log: NewLogger(os.Stdout, cfg.LogLevel), Clock: time.Now}
	var err error
	switch cfg.Store {
	case "embedded":
		if err = os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data dir: %w", err)
		}
		if d.Store, err = boltstore.Open(filepath.Join(cfg.DataDir, "store.db"), d.Clock); err != nil {
			return nil, fmt.Errorf("embedded store: %w", err)
		}
		if o.queue {
			if d.Queue, err = boltqueue.Open(filepath.Join(cfg.DataDir, "queue.db"), d.Clock); err != nil {
				d.Store.Close()
				return nil, fmt.Errorf("embedded queue: %w", err)
			}
		}
	default:
		if err = d.openAWS(ctx, cfg, o); err != nil {
			return nil, err
		}
	}
	return d.withServices(), nil
}

// WithStore builds dependencies over an existing store and queue (tests,
// tools).
func WithStore(st store.Store, q queue.Queue, log *slog.Logger, clock func() time.Time) *Deps {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if clock == nil {
		clock = time.Now
	}
	return (&Deps{Log: log, Clock: clock, Store: st, Queue: q}).withServices()
}

func (d *Deps) withServices() *Deps {
	d.Accounts = accounts.NewRepo(d.Store, d.Clock)
	d.Keys = auth.NewKeys(d.Store, d.Accounts, d.Clock)
	d.Idem = idempotency.New(d.Store, d.Clock)
	return d
}

func (d *Deps) openAWS(_ context.Context, cfg Config, o openOptions) error {
	ac, err := lambdaAWSConfig(cfg)
	if err != nil {
		return err
	}
	// With Tracing: Active every DynamoDB and SQS call built from this config
	// is an X-Ray subsegment of the invocation (nil, and nothing, elsewhere).
	xray.FromEnv(cfg.Getenv).Register(&ac)
	d.AWS = &ac
	d.Parameters = ssmkeys.NewParameters(ac, cfg.SSMEndpoint)
	tables, err := dynamostore.TablesFromEnv(cfg.Getenv)
	if err != nil {
		return err
	}
	ddb := dynamodb.NewFromConfig(ac, func(o *dynamodb.Options) {
		if cfg.DynamoEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.DynamoEndpoint)
		}
	})
	d.Store = dynamostore.New(ddb, tables, d.Clock)
	d.Tables = tables
	if o.queue {
		if o.sqs == nil {
			return fmt.Errorf("this function needs a queue but was started without an SQS opener")
		}
		if d.Queue, err = o.sqs(ac, cfg); err != nil {
			return fmt.Errorf("sqs: %w", err)
		}
	}
	return nil
}

// Server builds the HTTP handler of groups over these dependencies.
func (d *Deps) Server(groups ...httpapi.Group) *httpapi.Server {
	return httpapi.NewServer(httpapi.Config{Log: d.Log, Keys: d.Keys, Idem: d.Idem, Clock: d.Clock}, groups...)
}

// Close releases the store and queue.
func (d *Deps) Close() error {
	var err error
	if d.Queue != nil {
		err = d.Queue.Close()
	}
	if d.Store != nil {
		if e := d.Store.Close(); e != nil {
			err = e
		}
	}
	return err
}

// lambdaAWSConfig builds the SDK config from the environment Lambda provides
// (region and the execution role's credentials as env vars). Not using the
// SDK's config package keeps SSO, STS and IMDS, and their start-up cost, out
// of every function binary: they are a third of a cold start. Tools that run
// on a workstation (the admin CLI) use the full default chain instead.
func lambdaAWSConfig(cfg Config) (aws.Config, error) {
	id, secret := cfg.Getenv("AWS_ACCESS_KEY_ID"), cfg.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		if cfg.DynamoEndpoint == "" && cfg.SQSEndpoint == "" {
			return aws.Config{}, fmt.Errorf("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the execution role)")
		}
		// Local emulators accept any credentials.
		id, secret = "local", "local"
	}
	return aws.Config{
		Region:      cfg.Region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(id, secret, cfg.Getenv("AWS_SESSION_TOKEN"))),
	}, nil
}
