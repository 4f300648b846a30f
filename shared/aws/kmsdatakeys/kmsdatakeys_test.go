package kmsdatakeys_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/kmsdatakeys"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// client is a KMS client of moto server (one moto answers every service, so
// the SQS endpoint serves KMS too), counting its calls by operation.
func client(t *testing.T) (*kms.Client, *dynamostore.CallCounter) {
	t.Helper()
	ep := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	counter := dynamostore.NewCallCounter()
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	counter.Register(&cfg)
	return kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(ep) }), counter
}

func symmetricKey(t *testing.T, c *kms.Client) string {
	t.Helper()
	out, err := c.CreateKey(context.Background(), &kms.CreateKeyInput{Description: aws.String("paygate secretbox test")})
	require.NoError(t, err)
	return aws.ToString(out.KeyMetadata.Arn)
}

// TestSealAndOpenOnMoto: a secret sealed with a KMS data key opens again;
// sealing is one GenerateDataKey, opening one Decrypt, and opening again
// while the data key is cached no call at all; another KMS key cannot open
// it.
func TestSealAndOpenOnMoto(t *testing.T) {
	ctx := context.Background()
	c, counter := client(t)
	key := symmetricKey(t, c)
	counter.Reset()
	box := secretbox.New(kmsdatakeys.New(c, key), nil)
	sealed, err := box.Seal(ctx, []byte("whsec_on_moto"))
	require.NoError(t, err)
	assert.True(t, secretbox.IsSealed(sealed))
	assert.NotContains(t, sealed, "whsec_on_moto")
	assert.Equal(t, map[string]int{"GenerateDataKey": 1}, counter.Counts())

	counter.Reset()
	fresh := secretbox.New(kmsdatakeys.New(c, key), nil) // another instance: nothing cached
	for range 5 {
		got, err := fresh.Open(ctx, sealed)
		require.NoError(t, err)
		assert.Equal(t, "whsec_on_moto", string(got))
	}
	assert.Equal(t, map[string]int{"Decrypt": 1}, counter.Counts(), "one Decrypt, then the cached data key")

	_, err = secretbox.New(kmsdatakeys.New(c, symmetricKey(t, c)), nil).Open(ctx, sealed)
	// KMS answers IncorrectKeyException (ErrUnopenable); moto answers
	// AccessDeniedException, which stays an error of its own.
	assert.Error(t, err, "another KMS key")
}
