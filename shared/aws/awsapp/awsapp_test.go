package awsapp_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/app"
)

// A function opened where Lambda runs an X-Ray daemon has its SDK config
// (every client: DynamoDB, and SQS and KMS through their openers) traced;
// elsewhere not.
func TestSDKClientsTracedWhenLambdaTraces(t *testing.T) {
	for _, daemon := range []string{"", "169.254.79.129:2000"} {
		env := map[string]string{"STORE": "dynamodb", "DYNAMODB_ENDPOINT": "http://127.0.0.1:1", "AWS_XRAY_DAEMON_ADDRESS": daemon}
		cfg, err := app.ConfigFromEnv(func(k string) string { return env[k] })
		require.NoError(t, err)
		ac, err := awsapp.Config(cfg)
		require.NoError(t, err)
		assert.Len(t, ac.APIOptions, map[bool]int{false: 1, true: 2}[daemon != ""], "daemon %q: SDK middlewares registered (the timeouts, and X-Ray's)", daemon)
	}
}

// A deployed function opens its store over the stack's tables and its
// parameters through Open; app refuses a cloud store without an opener, and
// Config refuses to run without credentials outside an emulator.
func TestOpenBuildsTheStoreAndParameters(t *testing.T) {
	tables := dynamostore.TablesWithPrefix("prod-")
	env := map[string]string{"STORE": "dynamodb", "DYNAMODB_ENDPOINT": "http://127.0.0.1:1"}
	for logical, physical := range tables {
		env[dynamostore.EnvVar(logical)] = physical
	}
	cfg, err := app.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	d, err := app.Open(context.Background(), cfg, app.OnCloud(awsapp.Open))
	require.NoError(t, err)
	defer d.Close()
	assert.NotNil(t, d.Store)
	assert.NotNil(t, d.Parameters)
	assert.Equal(t, tables, d.Tables)

	_, err = app.Open(context.Background(), cfg)
	assert.ErrorContains(t, err, "needs a cloud opener")

	cfg.DynamoEndpoint = ""
	_, err = awsapp.Config(cfg)
	assert.ErrorContains(t, err, "AWS_ACCESS_KEY_ID")
}
