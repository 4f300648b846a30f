package ssmkeys_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ssm"
	"github.com/aws/aws-sdk-go-v2/service/ssm/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/ssmkeys"
	"github.com/paygate/paygate/shared/pay/checkout/sessiondata"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// endpoint is moto server's: one moto server answers every service, so
// SQS's endpoint serves SSM too.
func endpoint(t *testing.T) string {
	return realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
}

// TestParametersReadSecureString: the keys come from a SecureString parameter,
// decrypted, signing key first; a missing parameter fails the cold start.
func TestParametersReadSecureString(t *testing.T) {
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

	signer, err := sessiondata.NewRefreshing(ctx, sessiondata.KeysFrom(ssmkeys.NewParameters(cfg, ep).String(name), name), nil)
	require.NoError(t, err)
	key := make([]byte, 32)
	for i := range key {
		key[i] = 0x1f
	}
	tok, err := signer.Seal("cs", map[string]string{"a": "b"})
	require.NoError(t, err)
	assert.Equal(t, sessiondata.KeyID(key), strings.Split(tok, ".")[2], "the token names the key that signed it: the current one")

	_, err = sessiondata.NewRefreshing(ctx, sessiondata.KeysFrom(ssmkeys.Parameter(cfg, ep, name+"-missing"), name+"-missing"), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), name+"-missing")
}

// TestParameterSignsItsCall: the hand-sent GetParameter is what SSM's JSON 1.1
// protocol asks for, signed with SigV4 for service ssm in the config's
// region, and an error answer names SSM's error type.
func TestParameterSignsItsCall(t *testing.T) {
	var got *http.Request
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, body = r, must(io.ReadAll(r.Body))
		if strings.Contains(string(body), "missing") {
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"__type":"com.amazonaws.ssm#ParameterNotFound","message":"not here"}`))
			return
		}
		_, _ = w.Write([]byte(`{"Parameter":{"Name":"/p","Type":"SecureString","Value":"` + strings.Repeat("1f", 32) + `"}}`))
	}))
	defer srv.Close()
	cfg := aws.Config{Region: "eu-west-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", "TOKEN")}

	keys, err := sessiondata.KeysFrom(ssmkeys.Parameter(cfg, srv.URL, "/p"), "/p")(context.Background())
	require.NoError(t, err)
	require.Len(t, keys, 1)
	assert.Equal(t, "AmazonSSM.GetParameter", got.Header.Get("X-Amz-Target"))
	assert.Equal(t, "application/x-amz-json-1.1", got.Header.Get("Content-Type"))
	assert.JSONEq(t, `{"Name":"/p","WithDecryption":true}`, string(body))
	assert.Regexp(t, `^AWS4-HMAC-SHA256 Credential=AKID/\d{8}/eu-west-1/ssm/aws4_request, SignedHeaders=[^,]*x-amz-target[^,]*, Signature=[0-9a-f]{64}$`,
		got.Header.Get("Authorization"))
	assert.Equal(t, "TOKEN", got.Header.Get("X-Amz-Security-Token"))

	_, err = ssmkeys.Parameter(cfg, srv.URL, "/missing")(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "ParameterNotFound")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
