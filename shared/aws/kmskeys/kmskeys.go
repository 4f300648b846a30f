// Package kmskeys is the keyring backend of a deployed stack: each key is an
// asymmetric RSA_2048 KMS key (ENCRYPT_DECRYPT); the private half never
// leaves KMS, which unwraps a JWE's content-encryption key with one Decrypt
// (RSAES_OAEP_SHA_256) per payment. Only the roles of the functions that take
// cards (DirectPaymentsFunction; CheckoutPaymentsFunction,
// CheckoutClientFunction and HostedPageFunction for the Drop-in's encrypted
// fields) may call Decrypt: the key policy says so (template.yaml, DirectCardKey),
// and Create gives every rotated-in key the policy and tags of the key it
// replaces.
package kmskeys

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/paygate/paygate/shared/domain/cardkeys"
)

// API is the part of the KMS client the backend calls.
type API interface {
	Decrypt(context.Context, *kms.DecryptInput, ...func(*kms.Options)) (*kms.DecryptOutput, error)
	GetPublicKey(context.Context, *kms.GetPublicKeyInput, ...func(*kms.Options)) (*kms.GetPublicKeyOutput, error)
	CreateKey(context.Context, *kms.CreateKeyInput, ...func(*kms.Options)) (*kms.CreateKeyOutput, error)
	GetKeyPolicy(context.Context, *kms.GetKeyPolicyInput, ...func(*kms.Options)) (*kms.GetKeyPolicyOutput, error)
	ListResourceTags(context.Context, *kms.ListResourceTagsInput, ...func(*kms.Options)) (*kms.ListResourceTagsOutput, error)
}

// Backend keeps keys in KMS.
type Backend struct{ api API }

// New is the backend over a KMS client.
func New(api API) *Backend { return &Backend{api: api} }

// Name is "kms".
func (b *Backend) Name() string { return "kms" }

// Create makes a key with like's key policy and tags (like is the ARN of
// the current key; a first key is the template's, registered with Adopt).
func (b *Backend) Create(ctx context.Context, like string) (string, *rsa.PublicKey, error) {
	if like == "" {
		return "", nil, errors.New("kmskeys: no key to copy the key policy from: adopt the stack's DirectCardKey first (admin direct-keys rotate --adopt <its ARN>)")
	}
	pol, err := b.api.GetKeyPolicy(ctx, &kms.GetKeyPolicyInput{KeyId: aws.String(like), PolicyName: aws.String("default")})
	if err != nil {
		return "", nil, fmt.Errorf("kmskeys: read the key policy of %s: %w", like, err)
	}
	var tags []types.Tag
	var marker *string
	for {
		page, err := b.api.ListResourceTags(ctx, &kms.ListResourceTagsInput{KeyId: aws.String(like), Marker: marker})
		if err != nil {
			return "", nil, fmt.Errorf("kmskeys: read the tags of %s: %w", like, err)
		}
		tags = append(tags, page.Tags...)
		if !page.Truncated {
			break
		}
		marker = page.NextMarker
	}
	out, err := b.api.CreateKey(ctx, &kms.CreateKeyInput{
		KeySpec: types.KeySpecRsa2048, KeyUsage: types.KeyUsageTypeEncryptDecrypt,
		Description: aws.String("paygate direct payments: client-side card encryption (rotated in by admin direct-keys rotate)"),
		Policy:      pol.Policy, Tags: tags,
	})
	if err != nil {
		return "", nil, fmt.Errorf("kmskeys: create a key: %w", err)
	}
	ref := aws.ToString(out.KeyMetadata.Arn)
	pub, err := b.PublicKey(ctx, ref)
	return ref, pub, err
}

// PublicKey reads ref's public half (GetPublicKey).
func (b *Backend) PublicKey(ctx context.Context, ref string) (*rsa.PublicKey, error) {
	out, err := b.api.GetPublicKey(ctx, &kms.GetPublicKeyInput{KeyId: aws.String(ref)})
	if err != nil {
		return nil, fmt.Errorf("kmskeys: public key of %s: %w", ref, err)
	}
	if out.KeyUsage != types.KeyUsageTypeEncryptDecrypt {
		return nil, fmt.Errorf("kmskeys: %s is not an ENCRYPT_DECRYPT key", ref)
	}
	pub, err := x509.ParsePKIXPublicKey(out.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("kmskeys: public key of %s: %w", ref, err)
	}
	rsaPub, ok := pub.(*rsa.PublicKey)
	if !ok {
		return nil, fmt.Errorf("kmskeys: %s is not an RSA key", ref)
	}
	return rsaPub, nil
}

// DecryptKey is one Decrypt call (RSAES_OAEP_SHA_256). KMS's answers that
// the ciphertext, the key or its state rule out are ErrUndecryptable; any
// other failure (throttling, the network) is returned as it is.
func (b *Backend) DecryptKey(ctx context.Context, ref string, encryptedKey []byte) ([]byte, error) {
	out, err := b.api.Decrypt(ctx, &kms.DecryptInput{
		KeyId: aws.String(ref), CiphertextBlob: encryptedKey,
		EncryptionAlgorithm: types.EncryptionAlgorithmSpecRsaesOaepSha256,
	})
	switch {
	case err == nil:
		return out.Plaintext, nil
	case RuledOut(err):
		return nil, cardkeys.ErrUndecryptable
	default:
		return nil, fmt.Errorf("kmskeys: decrypt: %w", err)
	}
}

// RuledOut reports whether a Decrypt failed because the ciphertext, the key
// or its state rule it out (not because KMS could not be asked: throttling,
// the network), the answers the backends report as undecryptable.
func RuledOut(err error) bool {
	var (
		invalid   *types.InvalidCiphertextException
		incorrect *types.IncorrectKeyException
		state     *types.KMSInvalidStateException
		disabled  *types.DisabledException
		notFound  *types.NotFoundException
	)
	return errors.As(err, &invalid) || errors.As(err, &incorrect) || errors.As(err, &state) ||
		errors.As(err, &disabled) || errors.As(err, &notFound)
}
