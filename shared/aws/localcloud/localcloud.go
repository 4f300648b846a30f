// Package localcloud runs the local gateway (infra/local, `make run` with
// STORE=dynamodb) on DynamoDB Local and moto's SQS instead of its embedded
// store and queue: it creates the stack's tables and queues there when they
// are missing, opens the store and queue as a deployed function does
// (awsapp, sqsapp), and reads the streamed tables' streams for the stream
// consumers as the template's event source mappings do (streamreader), with
// a checkpoint per consumer under the data directory so a restart resumes
// where it stopped. It never reaches AWS itself: both endpoints are required.
package localcloud

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/streamreader"
	"github.com/paygate/paygate/shared/aws/sqsapp"
	"github.com/paygate/paygate/shared/aws/sqsqueue"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// DefaultPrefix starts the names of the local gateway's tables and queues
// (TABLE_PREFIX overrides), so they stand apart from the tests' own.
const DefaultPrefix = "paygate-local-"

// Provision creates, when missing, every table of the stack (streams on the
// streamed ones) on DYNAMODB_ENDPOINT and every queue with its DLQ on
// SQS_ENDPOINT, and returns getenv with TABLE_* and QUEUE_*_URL naming them,
// as the template hands a function its resources. Errors: an endpoint
// missing, or an emulator that does not answer.
func Provision(ctx context.Context, getenv func(string) string) (func(string) string, error) {
	ddbURL, sqsURL := getenv("DYNAMODB_ENDPOINT"), getenv("SQS_ENDPOINT")
	if ddbURL == "" || sqsURL == "" {
		return nil, errors.New("STORE=dynamodb runs on DynamoDB Local and moto's SQS: set DYNAMODB_ENDPOINT and SQS_ENDPOINT (the local gateway never reaches AWS)")
	}
	prefix := getenv("TABLE_PREFIX")
	if prefix == "" {
		prefix = DefaultPrefix
	}
	cfg, err := app.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	ac, err := awsapp.Config(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	tables := dynamostore.TablesWithPrefix(prefix)
	ddb := dynamodb.NewFromConfig(ac, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(ddbURL) })
	if err := dynamostore.CreateTables(ctx, ddb, tables); err != nil {
		return nil, fmt.Errorf("tables on %s: %w", ddbURL, err)
	}
	sq := sqs.NewFromConfig(ac, func(o *sqs.Options) { o.BaseEndpoint = aws.String(sqsURL) })
	urls, err := sqsqueue.CreateQueues(ctx, sq, queue.Names, strings.ReplaceAll(prefix, ".", "-"))
	if err != nil {
		return nil, fmt.Errorf("queues on %s: %w", sqsURL, err)
	}
	env := map[string]string{}
	for logical, physical := range tables {
		env[dynamostore.EnvVar(logical)] = physical
	}
	for name, url := range urls {
		env[sqsqueue.EnvName(name)] = url
	}
	return func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return getenv(k)
	}, nil
}

// Options are app.Open's options on the emulators: the store and tables as
// awsapp opens them, the queue as sqsapp does.
func Options() []app.Option {
	return []app.Option{app.OnCloud(awsapp.Open), app.WithQueue(sqsapp.Open)}
}

// StreamRunner feeds one stream consumer from its table's stream.
type StreamRunner struct {
	cfg   streamreader.Config
	table string // physical
	h     app.StreamHandler
	log   *slog.Logger
}

// NewStreamRunner reads the stream of the logical table for the consumer
// named consumer (its function's logical id), each batch handed to h within
// timeout, the checkpoint kept in dir.
func NewStreamRunner(d *app.Deps, logical, consumer string, h app.StreamHandler, timeout time.Duration, dir string) (*StreamRunner, error) {
	physical := d.Tables[logical]
	if physical == "" {
		return nil, fmt.Errorf("%s: no table %q", consumer, logical)
	}
	ac, err := awsapp.Config(d.Config)
	if err != nil {
		return nil, err
	}
	endpoint := aws.String(d.Config.DynamoEndpoint)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	log := d.Log.With("function", consumer, "table", logical)
	return &StreamRunner{
		cfg: streamreader.Config{
			Streams:    dynamodbstreams.NewFromConfig(ac, func(o *dynamodbstreams.Options) { o.BaseEndpoint = endpoint }),
			Dynamo:     dynamodb.NewFromConfig(ac, func(o *dynamodb.Options) { o.BaseEndpoint = endpoint }),
			Region:     d.Config.Region,
			Poll:       100 * time.Millisecond,
			Retry:      time.Second,
			Checkpoint: &fileCheckpoint{path: filepath.Join(dir, consumer+".json")},
			Timeout:    timeout,
			Logf:       func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) },
		},
		table: physical, log: log, h: h,
	}, nil
}

// Run reads the stream until ctx is done; a failing emulator is retried
// (streamreader keeps polling), so Run returns only when ctx ends or the
// table has no stream.
func (r *StreamRunner) Run(ctx context.Context) {
	for ctx.Err() == nil {
		err := streamreader.Run(ctx, r.cfg, r.table, r.h)
		if err == nil || ctx.Err() != nil {
			return
		}
		r.log.Error("stream reader stopped; starting again", "error", err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// fileCheckpoint keeps a consumer's shard positions in one JSON file,
// replaced whole at each save (write, then rename).
type fileCheckpoint struct {
	path string
	mu   sync.Mutex
	seqs map[string]string
}

func (c *fileCheckpoint) Load() (map[string]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs = map[string]string{}
	b, err := os.ReadFile(c.path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &c.seqs); err != nil {
		return nil, fmt.Errorf("%s: %w", c.path, err)
	}
	out := make(map[string]string, len(c.seqs))
	for k, v := range c.seqs {
		out[k] = v
	}
	return out, nil
}

func (c *fileCheckpoint) Save(shard, seq string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seqs == nil {
		c.seqs = map[string]string{}
	}
	c.seqs[shard] = seq
	b, err := json.Marshal(c.seqs)
	if err != nil {
		return err
	}
	tmp := c.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, c.path)
}
