package dynamostore

import (
	"context"
	"maps"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// CallCounter counts SDK calls per operation name (GetItem, Query, ...), one
// per call whatever the SDK's own retries; benchmarks use it to prove the
// round trips of a request.
type CallCounter struct {
	mu     sync.Mutex
	counts map[string]int
}

// NewCallCounter returns an empty counter.
func NewCallCounter() *CallCounter { return &CallCounter{counts: map[string]int{}} }

// Register counts every call of clients built from cfg.
func (c *CallCounter) Register(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, c.addMiddleware)
}

// Option counts the calls of one client: dynamodb.NewFromConfig(cfg, c.Option()).
func (c *CallCounter) Option() func(*dynamodb.Options) {
	return func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, c.addMiddleware) }
}

// Counts returns a copy of the counts so far.
func (c *CallCounter) Counts() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.counts)
}

// Reset forgets the counts so far.
func (c *CallCounter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.counts)
}

func (c *CallCounter) addMiddleware(stack *middleware.Stack) error {
	// Initialize runs once per call, before the retry loop.
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("paygateCallCounter",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			c.mu.Lock()
			c.counts[awsmiddleware.GetOperationName(ctx)]++
			c.mu.Unlock()
			return next.HandleInitialize(ctx, in)
		}), middleware.After)
}
