package kmskeys_test

import (
	"context"
	"crypto/rand"
	"path/filepath"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/aws/kmskeys/kmstest"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// client is a KMS client of moto server (one moto answers every service, so
// the SQS endpoint serves KMS too), counting its calls by operation.
func client(t *testing.T) (*kms.Client, *dynamostore.CallCounter) {
	t.Helper()
	ep := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	counter := dynamostore.NewCallCounter() // counts any SDK client's calls
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	counter.Register(&cfg)
	return kms.NewFromConfig(cfg, func(o *kms.Options) { o.BaseEndpoint = aws.String(ep) }), counter
}

const policy = `{"Version":"2012-10-17","Statement":[{"Sid":"DirectPaymentsDecrypt","Effect":"Allow",` +
	`"Principal":{"AWS":"arn:aws:iam::123456789012:role/paygate-test-direct-payments"},"Action":"kms:Decrypt","Resource":"*"}]}`

// templateKey is the key the stack's template creates: RSA_2048,
// ENCRYPT_DECRYPT, its key policy and purpose tag.
func templateKey(t *testing.T, c *kms.Client) string {
	t.Helper()
	out, err := c.CreateKey(context.Background(), &kms.CreateKeyInput{
		KeySpec: types.KeySpecRsa2048, KeyUsage: types.KeyUsageTypeEncryptDecrypt, Policy: aws.String(policy),
		Tags: []types.Tag{{TagKey: aws.String("paygate:purpose"), TagValue: aws.String("direct-card-encryption")}},
	})
	require.NoError(t, err)
	return aws.ToString(out.KeyMetadata.Arn)
}

func keyring(t *testing.T, c *kms.Client, now func() time.Time) *cse.Keyring {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return cse.NewKeyring(st, kmskeys.New(c), now)
}

// TestAdoptAndRotateOnMoto: the template's key is adopted (GetPublicKey);
// a rotation creates an RSA_2048 ENCRYPT_DECRYPT key with the adopted key's
// policy and tags, current at once, the adopted one expiring after grace.
func TestAdoptAndRotateOnMoto(t *testing.T) {
	c, counter := client(t)
	ctx := context.Background()
	arn := templateKey(t, c)
	r := keyring(t, c, nil)

	counter.Reset()
	adopted, err := r.Adopt(ctx, arn, 24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GetPublicKey": 1}, counter.Counts())
	assert.Equal(t, arn, adopted.Ref)
	assert.Equal(t, "kms", adopted.Backend)
	assert.Equal(t, 2048, adopted.PublicKey().N.BitLen())

	counter.Reset()
	rotated, err := r.Rotate(ctx, 24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"GetKeyPolicy": 1, "ListResourceTags": 1, "CreateKey": 1, "GetPublicKey": 1}, counter.Counts())
	keys, err := r.Active(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 2)
	assert.Equal(t, rotated.KID, keys[0].KID)
	assert.Equal(t, adopted.KID, keys[1].KID)
	require.NotNil(t, keys[1].ExpiresAt)

	desc, err := c.DescribeKey(ctx, &kms.DescribeKeyInput{KeyId: aws.String(rotated.Ref)})
	require.NoError(t, err)
	assert.Equal(t, types.KeySpecRsa2048, desc.KeyMetadata.KeySpec)
	assert.Equal(t, types.KeyUsageTypeEncryptDecrypt, desc.KeyMetadata.KeyUsage)
	pol, err := c.GetKeyPolicy(ctx, &kms.GetKeyPolicyInput{KeyId: aws.String(rotated.Ref), PolicyName: aws.String("default")})
	require.NoError(t, err)
	assert.JSONEq(t, policy, aws.ToString(pol.Policy), "the rotated key keeps the decrypt-only-by-the-function policy")
	tags, err := c.ListResourceTags(ctx, &kms.ListResourceTagsInput{KeyId: aws.String(rotated.Ref)})
	require.NoError(t, err)
	require.Len(t, tags.Tags, 1)
	assert.Equal(t, "direct-card-encryption", aws.ToString(tags.Tags[0].TagValue))

	// A first key cannot be rotated in without one to copy the policy from.
	_, err = keyring(t, c, nil).Rotate(ctx, time.Hour)
	require.ErrorContains(t, err, "adopt the stack's DirectCardKey first")
}

// TestOpenOnMotoIsOneDecrypt: a JWE whose content-encryption key KMS
// wrapped opens with exactly one KMS call, Decrypt with RSAES_OAEP_SHA_256
// on the key's ARN. moto's KMS does not implement RSA-OAEP for what was
// encrypted outside it (its Encrypt and Decrypt use its own format), so the
// wrapped key here is moto's own Encrypt of the CEK: the test proves the
// adapter's calls, the keyring's way through them and the call count; that
// KMS opens a browser's RSA-OAEP-256 wrapping is what only a real account
// shows (docs/direct-payments.md). The cryptography itself is proven
// through the local adapter (package cse's tests).
func TestOpenOnMotoIsOneDecrypt(t *testing.T) {
	c, counter := client(t)
	ctx := context.Background()
	r := keyring(t, c, nil)
	key, err := r.Adopt(ctx, templateKey(t, c), time.Hour)
	require.NoError(t, err)

	cek := make([]byte, 64)
	_, _ = rand.Read(cek)
	wrapped, err := c.Encrypt(ctx, &kms.EncryptInput{KeyId: aws.String(key.Ref), Plaintext: cek,
		EncryptionAlgorithm: types.EncryptionAlgorithmSpecRsaesOaepSha256})
	require.NoError(t, err)
	card := `{"number":"4111111111111111","expiryMonth":"03","expiryYear":"2030","cvc":"737","holderName":"J Smith","generationtime":"` +
		cse.FormatGenerationTime(time.Now()) + `"}`
	jwe := kmstest.JWEWithWrappedKey(key.KID, wrapped.CiphertextBlob, cek, []byte(card))

	counter.Reset()
	got, err := r.Open(ctx, jwe)
	require.NoError(t, err)
	assert.Equal(t, "4111111111111111", got.Number)
	assert.Equal(t, map[string]int{"Decrypt": 1}, counter.Counts(), "one KMS call per payment")

	// A wrapped key KMS refuses is the one ErrUndecryptable.
	bad := append([]byte{}, wrapped.CiphertextBlob...)
	bad[len(bad)/2] ^= 1
	_, err = r.Open(ctx, kmstest.JWEWithWrappedKey(key.KID, bad, cek, []byte(card)))
	assert.ErrorIs(t, err, cse.ErrUndecryptable)

	// What a browser makes (RSA-OAEP-256 with the key's public half): moto
	// answers it with an error, which the adapter reads as undecryptable.
	browser, err := cse.Encrypt(key.KID, key.PublicKey(), []byte(card))
	require.NoError(t, err)
	_, err = r.Open(ctx, browser)
	assert.ErrorIs(t, err, cse.ErrUndecryptable)
}

// TestDecryptCallShape: the Decrypt request names the key and RSA-OAEP-256.
func TestDecryptCallShape(t *testing.T) {
	var got *kms.DecryptInput
	b := kmskeys.New(fakeAPI{decrypt: func(in *kms.DecryptInput) (*kms.DecryptOutput, error) {
		got = in
		return &kms.DecryptOutput{Plaintext: []byte("cek")}, nil
	}})
	out, err := b.DecryptKey(context.Background(), "arn:aws:kms:eu-west-1:1:key/k", []byte{1, 2})
	require.NoError(t, err)
	assert.Equal(t, []byte("cek"), out)
	assert.Equal(t, "arn:aws:kms:eu-west-1:1:key/k", aws.ToString(got.KeyId))
	assert.Equal(t, types.EncryptionAlgorithmSpecRsaesOaepSha256, got.EncryptionAlgorithm)
	assert.Equal(t, []byte{1, 2}, got.CiphertextBlob)

	for _, e := range []error{&types.InvalidCiphertextException{}, &types.IncorrectKeyException{}, &types.KMSInvalidStateException{},
		&types.DisabledException{}, &types.NotFoundException{}} {
		b := kmskeys.New(fakeAPI{decrypt: func(*kms.DecryptInput) (*kms.DecryptOutput, error) { return nil, e }})
		_, err := b.DecryptKey(context.Background(), "k", []byte{1})
		assert.ErrorIs(t, err, cse.ErrUndecryptable, "%T", e)
	}
	b = kmskeys.New(fakeAPI{decrypt: func(*kms.DecryptInput) (*kms.DecryptOutput, error) {
		return nil, &types.KMSInternalException{Message: aws.String("down")}
	}})
	_, err = b.DecryptKey(context.Background(), "k", []byte{1})
	assert.NotErrorIs(t, err, cse.ErrUndecryptable, "KMS failing is a 503, not the merchant's 400")
}

type fakeAPI struct {
	kmskeys.API
	decrypt func(*kms.DecryptInput) (*kms.DecryptOutput, error)
}

func (f fakeAPI) Decrypt(_ context.Context, in *kms.DecryptInput, _ ...func(*kms.Options)) (*kms.DecryptOutput, error) {
	return f.decrypt(in)
}
