package awsapp

import (
	"context"
	"errors"
	"reflect"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go/middleware"
)

// Timeouts bound every AWS call a function makes, beside the request's own
// deadline (the context's, which always wins when sooner). Without them a
// call whose answer never comes (a dropped connection, a stalled endpoint)
// holds the request until the function's own timeout; with them it fails
// in time for the SDK's retry, and the whole call in time for the request
// to answer within API Gateway's 30 s.
type Timeouts struct {
	// Attempt bounds one HTTP attempt; a timed-out attempt is retried by
	// the SDK as a timeout (TransactWriteItems keeps its ClientRequestToken
	// across attempts, so a retry of a commit whose answer was lost does
	// not commit twice).
	Attempt time.Duration
	// Call bounds the call with its retries.
	Call time.Duration
}

// DefaultTimeouts are the functions': an attempt of DynamoDB, SQS, SSM or
// KMS answers in milliseconds, so 1 s is a stall, and three attempts with
// backoff fit in 5 s. It was 5 s and 12 s until make chaos showed one
// answer held past its deadline costing a money route 5 s (p99 5-13 s
// under faults). A retried attempt of a commit whose answer was lost is
// safe: TransactWriteItems keeps its token, and a single-item write that
// finds its own commit on retry (the idempotency claim, the balance lease)
// knows it as its own. An operation that waits by design (SQS
// ReceiveMessage's WaitTimeSeconds) gets its wait on top of both.
var DefaultTimeouts = Timeouts{Attempt: time.Second, Call: 5 * time.Second}

type waitKey struct{}

// Register adds the timeouts to cfg's clients.
func (t Timeouts) Register(cfg *aws.Config) {
	cfg.APIOptions = append(cfg.APIOptions, t.middlewares)
}

func (t Timeouts) middlewares(stack *middleware.Stack) error {
	call := middleware.InitializeMiddlewareFunc("PaygateCallTimeout", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		wait := WaitOf(in.Parameters)
		ctx = middleware.WithStackValue(ctx, waitKey{}, wait)
		ctx, cancel := context.WithTimeout(ctx, t.Call+wait)
		defer cancel()
		return next.HandleInitialize(ctx, in)
	})
	if err := stack.Initialize.Add(call, middleware.Before); err != nil {
		return err
	}
	// After the retry middleware: each attempt has its own bound.
	attempt := middleware.FinalizeMiddlewareFunc("PaygateAttemptTimeout", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
		wait, _ := middleware.GetStackValue(ctx, waitKey{}).(time.Duration)
		actx, cancel := context.WithTimeout(ctx, t.Attempt+wait)
		defer cancel()
		out, md, err := next.HandleFinalize(actx, in)
		if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			// The SDK retries no canceled request; this one was cut by its
			// own bound while the call may go on, so it is a timeout.
			err = &attemptTimeout{err: err}
		}
		return out, md, err
	})
	return stack.Finalize.Add(attempt, middleware.After)
}

// attemptTimeout is an attempt cut by Timeouts.Attempt: retryable, as a
// network timeout is. It hides the cancellation it wraps (no Unwrap), since
// the SDK's retryer refuses to retry anything canceled.
type attemptTimeout struct{ err error }

func (e *attemptTimeout) Error() string        { return "attempt timed out: " + e.err.Error() }
func (e *attemptTimeout) RetryableError() bool { return true }
func (e *attemptTimeout) Timeout() bool        { return true }

// WaitOf is how long an operation's input asks the service to wait before
// it answers (an int32 WaitTimeSeconds, as SQS ReceiveMessage's), 0 for
// every other input.
func WaitOf(params any) time.Duration {
	v := reflect.ValueOf(params)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0
	}
	f := v.FieldByName("WaitTimeSeconds")
	if !f.IsValid() || f.Kind() != reflect.Int32 {
		return 0
	}
	return time.Duration(f.Int()) * time.Second
}
