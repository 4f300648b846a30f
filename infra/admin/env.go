package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// env is what a command works with: the store flags, the output, and the
// dependencies, opened on first use.
type env struct {
	Out    io.Writer
	Getenv func(string) string
	JSON   bool

	Store       string // embedded or dynamodb
	DataDir     string
	Endpoint    string
	Region      string
	TablePrefix string

	deps   *app.Deps
	dynamo *dynamodb.Client
}

// defaults come from the same environment variables the services read.
func (e *env) defaults() {
	e.Store = "embedded"
	e.DataDir = or(e.Getenv("DATA_DIR"), ".data")
	e.Endpoint = e.Getenv("DYNAMODB_ENDPOINT")
	e.Region = or(e.Getenv("AWS_REGION"), "us-east-1")
	e.TablePrefix = e.Getenv("TABLE_PREFIX")
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// commonFlags binds the store and output flags; each default is the value
// held so far, so flags given before the command carry over.
func (e *env) commonFlags(fs *flag.FlagSet) {
	fs.StringVar(&e.Store, "store", e.Store, "embedded (the file make run uses) or dynamodb")
	fs.StringVar(&e.DataDir, "data-dir", e.DataDir, "embedded store directory ($DATA_DIR)")
	fs.StringVar(&e.Endpoint, "endpoint", e.Endpoint, "DynamoDB endpoint, e.g. http://127.0.0.1:8000 for DynamoDB Local ($DYNAMODB_ENDPOINT); empty means AWS")
	fs.StringVar(&e.Region, "region", e.Region, "AWS region ($AWS_REGION)")
	fs.StringVar(&e.TablePrefix, "table-prefix", e.TablePrefix, "DynamoDB tables are <prefix><logical name> ($TABLE_PREFIX); empty means the TABLE_* variables")
	fs.BoolVar(&e.JSON, "json", e.JSON, "print JSON for scripts")
}

// Deps opens the store (once) and the services over it.
func (e *env) Deps(ctx context.Context) (*app.Deps, error) {
	if e.deps != nil {
		return e.deps, nil
	}
	switch e.Store {
	case "embedded":
		if err := os.MkdirAll(e.DataDir, 0o700); err != nil {
			return nil, err
		}
		st, err := boltstore.Open(filepath.Join(e.DataDir, "store.db"), nil)
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("the store in %s is in use by another process (is `make run` running? stop it first)", e.DataDir)
		}
		if err != nil {
			return nil, err
		}
		e.deps = app.WithStore(st, nil, nil, nil)
	case "dynamodb":
		client, err := e.Dynamo(ctx)
		if err != nil {
			return nil, err
		}
		tables, err := e.Tables()
		if err != nil {
			return nil, err
		}
		e.deps = app.WithStore(dynamostore.New(client, tables, nil), nil, nil, nil)
	default:
		return nil, usagef("--store must be embedded or dynamodb, not %q", e.Store)
	}
	return e.deps, nil
}

// Tables are the physical table names: by prefix, or from TABLE_* variables.
func (e *env) Tables() (map[string]string, error) {
	if e.TablePrefix != "" {
		return dynamostore.TablesWithPrefix(e.TablePrefix), nil
	}
	tables, err := dynamostore.TablesFromEnv(e.Getenv)
	if err != nil {
		return nil, usagef("%v (or pass --table-prefix)", err)
	}
	return tables, nil
}

// Dynamo is the DynamoDB client. Against a local endpoint with no AWS
// credentials configured, dummy ones are used: DynamoDB Local only needs
// requests to be signed, not by whom.
func (e *env) Dynamo(ctx context.Context) (*dynamodb.Client, error) {
	if e.dynamo != nil {
		return e.dynamo, nil
	}
	if e.Store != "dynamodb" {
		return nil, usagef("this command needs --store dynamodb")
	}
	cfg, err := e.awsConfig(ctx, e.Endpoint)
	if err != nil {
		return nil, err
	}
	e.dynamo = dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		if e.Endpoint != "" {
			o.BaseEndpoint = aws.String(e.Endpoint)
		}
	})
	return e.dynamo, nil
}

// awsConfig is the SDK config of the commands that call AWS: the default
// chain, or with a local endpoint (DynamoDB Local, moto) and no credentials
// configured, dummy ones (emulators only need requests signed).
func (e *env) awsConfig(ctx context.Context, endpoint string) (aws.Config, error) {
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(e.Region)}
	if endpoint != "" && e.Getenv("AWS_ACCESS_KEY_ID") == "" && e.Getenv("AWS_PROFILE") == "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("aws config: %w", err)
	}
	return cfg, nil
}

func (e *env) close() {
	if e.deps != nil {
		_ = e.deps.Close()
	}
}

// print writes v as JSON with --json, else the text form.
func (e *env) print(v any, text func(w io.Writer)) error {
	if e.JSON {
		enc := json.NewEncoder(e.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	text(e.Out)
	return nil
}

// accountDeps is the start of every command on one account: --account is
// required, and the account must exist before anything else is done to it.
func (e *env) accountDeps(ctx context.Context, id string) (*app.Deps, error) {
	if err := required([2]string{"account", id}); err != nil {
		return nil, err
	}
	d, err := e.Deps(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := d.Accounts.Get(ctx, id); err != nil {
		return nil, err
	}
	return d, nil
}
