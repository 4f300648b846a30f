package ssmkeys_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/checkout/sessiondata"
	"github.com/paygate/paygate/shared/checkout/sessiondata/ssmkeys"
)

// endpoint is moto server's (SSM_ENDPOINT, else SQS_ENDPOINT: one moto
// server answers every service).
func endpoint(t *testing.T) string {
	for _, k := range []string{"SSM_ENDPOINT", "SQS_ENDPOINT"} {
		if v := os.Getenv(k); v != "" {
			return v
		}
	}
	if os.Getenv("REQUIRE_REAL_SERVERS") == "1" {
		t.Fatal("SSM_ENDPOINT (or SQS_ENDPOINT) is not set and REQUIRE_REAL_SERVERS=1 (start infra/scripts/moto.sh)")
	}
	t.Skip("SSM_ENDPOINT is not set; skipping the SSM test")
	return ""
}

// TestSourceReadsSecureString: the keys come from a SecureString parameter,
// decrypted, signing key first; a missing parameter fails the cold start.
func TestSourceReadsSecureString(t *testing.T) {
	ep := endpoint(t)
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	client := ssm.NewFromConfig(cfg, func(o *ssm.Options) { o.BaseEndpoint = aws.String(ep) })
	ctx := context.Background()
	name := fmt.Sprintf("/paygate/test-%08x/session-signing-secret", rand.Uint32())
	signing, previous := strings.Repeat("1f", 32), strings.Repeat("2e", 32)
	_, err := client.PutParameter(ctx, &ssm.PutParameterInput{Name: aws.String(name), Type: types.ParameterTypeSecureString,
		Value: aws.String(signing + "," + previous)})
	require.NoError(t, err)
	t.Cleanup(func() {
		_, _ = client.DeleteParameter(context.Background(), &ssm.DeleteParameterInput{Name: aws.String(name)})
	})

	signer, err := sessiondata.NewRefreshing(ctx, ssmkeys.Source(cfg, ep, name), nil)
	require.NoError(t, err)
	key := make([]byte, 32)
	for i := range key {
		key[i] = 0x1f
	}
	assert.Equal(t, sessiondata.KeyID(key), signer.SigningKeyID())

	_, err = sessiondata.NewRefreshing(ctx, ssmkeys.Source(cfg, ep, name+"-missing"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), name+"-missing")
}
