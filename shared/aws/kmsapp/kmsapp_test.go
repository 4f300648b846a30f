package kmsapp_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/kmsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// The function that decrypts cards opens its KMS backend from the
// environment (KMS_ENDPOINT: moto here) and reads a key's public half.
func TestOpenReachesKMSAtTheConfiguredEndpoint(t *testing.T) {
	ep := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start") // one moto answers every service
	ctx := context.Background()
	c := kms.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")},
		func(o *kms.Options) { o.BaseEndpoint = aws.String(ep) })
	key, err := c.CreateKey(ctx, &kms.CreateKeyInput{KeySpec: types.KeySpecRsa2048, KeyUsage: types.KeyUsageTypeEncryptDecrypt})
	require.NoError(t, err)

	env := map[string]string{"STORE": "dynamodb", "SQS_ENDPOINT": ep, kmsapp.EndpointVar: ep}
	cfg, err := app.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	backend, err := kmsapp.Open(cfg)
	require.NoError(t, err)
	assert.Equal(t, "kms", backend.Name())
	pub, err := backend.PublicKey(ctx, aws.ToString(key.KeyMetadata.Arn))
	require.NoError(t, err)
	assert.Equal(t, 2048, pub.N.BitLen())
}

// The functions that keep webhook or TOTP secrets open the secret box over
// the KMS key SECRETBOX_KMS_KEY names, and refuse to start without one.
func TestOpenSecretBoxSealsWithTheConfiguredKey(t *testing.T) {
	ep := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	ctx := context.Background()
	c := kms.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")},
		func(o *kms.Options) { o.BaseEndpoint = aws.String(ep) })
	key, err := c.CreateKey(ctx, &kms.CreateKeyInput{})
	require.NoError(t, err)

	env := map[string]string{"STORE": "dynamodb", "SQS_ENDPOINT": ep, kmsapp.EndpointVar: ep}
	cfg, err := app.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	box, err := kmsapp.OpenSecretBox(cfg)
	require.NoError(t, err)
	require.Nil(t, box, "locally, app.Open picks a local key")
	env["ENVIRONMENT"], env[app.FingerprintKeyEnv] = "prod", "0123456789abcdef0123456789abcdef"
	cfg, err = app.ConfigFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	_, err = kmsapp.OpenSecretBox(cfg)
	require.ErrorContains(t, err, kmsapp.SecretsKeyVar, "a deployed function does not start without the key")

	env[kmsapp.SecretsKeyVar] = aws.ToString(key.KeyMetadata.Arn)
	box, err = kmsapp.OpenSecretBox(cfg)
	require.NoError(t, err)
	sealed, err := box.Seal(ctx, []byte("JBSWY3DPEHPK3PXP"))
	require.NoError(t, err)
	assert.Contains(t, sealed, ".kms.")
	got, err := box.Open(ctx, sealed)
	require.NoError(t, err)
	assert.Equal(t, "JBSWY3DPEHPK3PXP", string(got))
}
