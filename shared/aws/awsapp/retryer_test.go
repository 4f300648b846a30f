package awsapp_test

import (
	"testing"
	"time"

	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
)

// The clients' pauses between attempts fit a request path: the SDK's own
// went up to 2 s before the second attempt and 4 s before the third (make
// chaos: most of a money route's p99 past 3 s under throttling). Throttles
// pause longer than other errors. Fails with the SDK's default retryer.
func TestRetriesPauseBriefly(t *testing.T) {
	ac, err := awsapp.Config(app.Config{Region: "us-east-1", DynamoEndpoint: "http://127.0.0.1:1", Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	require.NotNil(t, ac.Retryer)
	r := ac.Retryer()
	assert.Equal(t, 3, r.MaxAttempts(), "the SDK's three attempts")
	throttle := &smithy.GenericAPIError{Code: "ProvisionedThroughputExceededException"}
	other := &smithy.GenericAPIError{Code: "InternalServerError"}
	var total time.Duration
	for range 200 {
		for attempt := 1; attempt <= 2; attempt++ {
			d, err := r.RetryDelay(attempt, other)
			require.NoError(t, err)
			assert.LessOrEqual(t, d, 400*time.Millisecond)
			td, err := r.RetryDelay(attempt, throttle)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, td, 100*time.Millisecond, "a throttle waits for capacity")
			assert.LessOrEqual(t, td, 800*time.Millisecond)
			total += d + td
		}
	}
	assert.Less(t, total/200, 1500*time.Millisecond, "both pauses of a call, throttled and not, together")
}
