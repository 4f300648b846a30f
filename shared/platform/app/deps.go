package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/paygate/paygate/shared/domain/cardkeys"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
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
	// Parameters reads the stack's secret parameters (SSM in AWS); nil on
	// the embedded store.
	Parameters Parameters
	// CardKeys holds the card encryption keys' private halves (KMS in AWS,
	// for the function that asks for them); nil: key files under the data
	// directory.
	CardKeys cardkeys.Backend
	// Secrets seals the secrets stored for reading back (webhook signing
	// secrets, TOTP secrets): a KMS key's data keys in AWS (for the
	// functions that open it with WithSecretBox), a key file under the data
	// directory on the embedded store, a key of the process's memory in
	// tests; nil in a deployed function that did not ask for it.
	Secrets secretbox.Box
	// Connectors are the function's own connections to outside systems;
	// builders read them through shared/platform/connect, where an unset
	// one is the system's sandbox.
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

// Cloud is what a deployed function opens in its cloud: the store over the
// stack's tables and the secret parameters.
type Cloud struct {
	Store      store.Store
	Tables     map[string]string // physical table names by logical name
	Parameters Parameters
}

// CloudOpener opens a deployed function's store and parameters
// (shared/aws/awsapp.Open). It is handed in, not called from here, so that
// app, the tests and the local gateway link no cloud SDK.
type CloudOpener func(context.Context, Config) (Cloud, error)

// QueueOpener builds the deployed queue (shared/aws/sqsapp): apart from the
// cloud opener so that functions which never touch a queue do not link the
// SQS client.
type QueueOpener func(Config) (queue.Queue, error)

// CardKeysOpener builds the deployed card keys' backend
// (shared/aws/kmsapp), for the one function that decrypts cards.
type CardKeysOpener func(Config) (cardkeys.Backend, error)

// SecretBoxOpener builds the deployed secret box (shared/aws/kmsapp); a nil
// box without an error leaves the choice to Open (a local run).
type SecretBoxOpener func(Config) (secretbox.Box, error)

// Option tunes what Open builds: each function opens only what it uses,
// because everything opened or linked is paid for on every cold start.
type Option func(*openOptions)

type openOptions struct {
	cloud    CloudOpener
	queue    bool
	sqs      QueueOpener
	cardKeys CardKeysOpener
	secrets  SecretBoxOpener
}

// OnCloud is how Open opens a deployed function (STORE=dynamodb).
func OnCloud(open CloudOpener) Option { return func(o *openOptions) { o.cloud = open } }

// WithQueue opens the queue: the embedded one locally, the deployed one
// (through open) in the cloud. Functions that send or consume messages ask
// for it.
func WithQueue(open QueueOpener) Option {
	return func(o *openOptions) { o.queue, o.sqs = true, open }
}

// WithCardKeys opens the deployed card keys' backend (through open); on the
// embedded store Deps.CardKeys stays nil and the keys are local files.
func WithCardKeys(open CardKeysOpener) Option {
	return func(o *openOptions) { o.cardKeys = open }
}

// WithSecretBox opens the deployed secret box (through open); on the
// embedded store Deps.Secrets is the data directory's key file.
func WithSecretBox(open SecretBoxOpener) Option {
	return func(o *openOptions) { o.secrets = open }
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
		d.Secrets = secretbox.New(filekeys.New(filekeys.Dir(cfg.DataDir)), d.Clock)
	default:
		if err = d.openCloud(ctx, cfg, o); err != nil {
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
	d := &Deps{Log: log, Clock: clock, Store: st, Queue: q}
	d.Secrets = secretbox.New(filekeys.Memory(), clock)
	return d.withServices()
}

func (d *Deps) withServices() *Deps {
	d.Accounts = accounts.NewRepo(d.Store, d.Clock)
	d.Keys = auth.NewKeys(d.Store, d.Accounts, d.Clock)
	d.Idem = idempotency.New(d.Store, d.Clock).WithFingerprintKey(d.Config.FingerprintKey)
	return d
}

func (d *Deps) openCloud(ctx context.Context, cfg Config, o openOptions) error {
	if o.cloud == nil {
		return fmt.Errorf("STORE=%s needs a cloud opener (a Lambda main starts through shared/aws/awsapp)", cfg.Store)
	}
	c, err := o.cloud(ctx, cfg)
	if err != nil {
		return err
	}
	d.Store, d.Tables, d.Parameters = c.Store, c.Tables, c.Parameters
	if o.queue {
		if o.sqs == nil {
			return fmt.Errorf("this function needs a queue but was started without a queue opener")
		}
		if d.Queue, err = o.sqs(cfg); err != nil {
			return fmt.Errorf("queue: %w", err)
		}
	}
	if o.cardKeys != nil {
		if d.CardKeys, err = o.cardKeys(cfg); err != nil {
			return fmt.Errorf("card keys: %w", err)
		}
	}
	if o.secrets != nil {
		if d.Secrets, err = o.secrets(cfg); err != nil {
			return fmt.Errorf("secret box: %w", err)
		}
	}
	if d.Secrets == nil && cfg.Environment == "local" { // STORE=dynamodb make run, the invoker, the tests on DynamoDB Local
		keys := filekeys.Memory()
		if cfg.DataDir != "" {
			keys = filekeys.New(filekeys.Dir(cfg.DataDir))
		}
		d.Secrets = secretbox.New(keys, d.Clock)
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
