package awsapp

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsretry "github.com/aws/aws-sdk-go-v2/aws/retry"

	"github.com/paygate/paygate/shared/platform/retry"
)

// The pauses between the SDK's attempts of one call. The SDK's own are
// sized for batch clients (up to 2 s before the second attempt and 4 s
// before the third, or the whole 5 s call bound): in a request path they
// were most of what make chaos measured past 3 s at p99 under throttling
// and storms. A call that still fails after three attempts fails the
// request fast (503), and the merchant retries with the same key, which is
// cheaper than holding the request; throttles wait longer than other
// errors, to give the table's capacity room.
var (
	sdkBackoff         = retry.Backoff{Base: 50 * time.Millisecond, Max: 400 * time.Millisecond, Jitter: retry.Full}
	sdkThrottleBackoff = retry.Backoff{Base: 200 * time.Millisecond, Max: 800 * time.Millisecond, Jitter: retry.Equal}
)

// retryer is the SDK's standard retryer (three attempts, its retry quota,
// its rules of what is retryable) with those pauses.
func retryer() aws.Retryer {
	return awsretry.NewStandard(func(o *awsretry.StandardOptions) {
		throttles := awsretry.IsErrorThrottles(o.Throttles)
		o.Backoff = awsretry.BackoffDelayerFunc(func(attempt int, err error) (time.Duration, error) {
			b := sdkBackoff
			if throttles.IsErrorThrottle(err) == aws.TrueTernary {
				b = sdkThrottleBackoff
			}
			return b.Delay(attempt - 1), nil // attempt counts from 1
		})
	})
}
