package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

type cardKeys struct {
	Keys []cardKeyView `json:"keys"`
}

// TestDirectKeysRotateEmbedded: make run's keys are files under the data
// directory (0600); a rotation makes the new key current and gives the old
// one an expiry.
func TestDirectKeysRotateEmbedded(t *testing.T) {
	dir := t.TempDir()
	first := decode[cardKeys](t, embedded(t, dir, "direct-keys", "rotate", "--json"))
	require.Len(t, first.Keys, 1)
	assert.Nil(t, first.Keys[0].ExpiresAt)
	assert.Equal(t, "file", first.Keys[0].Backend)
	info, err := os.Stat(filepath.Join(dir, "direct-keys", first.Keys[0].Ref))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	second := decode[cardKeys](t, embedded(t, dir, "direct-keys", "rotate", "--grace", "48h", "--json"))
	require.Len(t, second.Keys, 2)
	assert.NotEqual(t, first.Keys[0].KID, second.Keys[0].KID)
	assert.Nil(t, second.Keys[0].ExpiresAt)
	require.NotNil(t, second.Keys[1].ExpiresAt)
	assert.Equal(t, first.Keys[0].KID, second.Keys[1].KID)
	assert.Contains(t, embedded(t, dir, "direct-keys", "list").stdout, "current")

	r := cli(t, nil, "direct-keys", "rotate", "--adopt", "arn:aws:kms:us-east-1:1:key/x", "--data-dir", dir)
	assert.Equal(t, 2, r.code, "--adopt needs DynamoDB and KMS")
}

// TestDirectKeysRotateKMS: on DynamoDB Local and moto's KMS, the stack's key
// is adopted, then a rotation creates a KMS key with its policy.
func TestDirectKeysRotateKMS(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	kmsEndpoint := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	prefix := "admindk-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + "-"
	dyn := func(args ...string) result {
		t.Helper()
		all := append([]string{"--store", "dynamodb", "--endpoint", endpoint, "--region", "us-east-1", "--table-prefix", prefix}, args...)
		r := cli(t, nil, all...)
		require.Equal(t, 0, r.code, "admin %v: %s", args, r.stderr)
		return r
	}
	dyn("tables", "create")
	client := kms.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")},
		func(o *kms.Options) { o.BaseEndpoint = aws.String(kmsEndpoint) })
	out, err := client.CreateKey(context.Background(), &kms.CreateKeyInput{KeySpec: types.KeySpecRsa2048, KeyUsage: types.KeyUsageTypeEncryptDecrypt})
	require.NoError(t, err)
	arn := aws.ToString(out.KeyMetadata.Arn)

	adopted := decode[cardKeys](t, dyn("direct-keys", "rotate", "--adopt", arn, "--kms-endpoint", kmsEndpoint, "--json"))
	require.Len(t, adopted.Keys, 1)
	assert.Equal(t, arn, adopted.Keys[0].Ref)
	assert.Equal(t, "kms", adopted.Keys[0].Backend)
	rotated := decode[cardKeys](t, dyn("direct-keys", "rotate", "--kms-endpoint", kmsEndpoint, "--json"))
	require.Len(t, rotated.Keys, 2)
	assert.NotEqual(t, arn, rotated.Keys[0].Ref)
	assert.True(t, strings.HasPrefix(rotated.Keys[0].Ref, "arn:aws:kms:"))
	assert.Equal(t, arn, rotated.Keys[1].Ref)
}
