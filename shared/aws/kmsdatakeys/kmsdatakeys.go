// Package kmsdatakeys is the secretbox backend of a deployed stack: a
// symmetric KMS key (SYMMETRIC_DEFAULT) draws each sealed secret's data key
// (GenerateDataKey, AES_256) and unwraps it again (Decrypt), both under the
// encryption context paygate:purpose=secretbox, which the key policy or the
// functions' IAM policies can require. The data key is used and cached in
// the function (secretbox.Envelope); KMS never sees a secret.
package kmsdatakeys

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/aws/aws-sdk-go-v2/service/kms/types"

	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/domain/secretbox"
)

// API is the part of the KMS client the backend calls.
type API interface {
	GenerateDataKey(context.Context, *kms.GenerateDataKeyInput, ...func(*kms.Options)) (*kms.GenerateDataKeyOutput, error)
	Decrypt(context.Context, *kms.DecryptInput, ...func(*kms.Options)) (*kms.DecryptOutput, error)
}

// Context is the encryption context of every data key.
var Context = map[string]string{"paygate:purpose": "secretbox"}

// Backend draws data keys from one KMS key.
type Backend struct {
	api   API
	keyID string
}

// New is the backend over the KMS key keyID (an id, ARN or alias).
func New(api API, keyID string) *Backend { return &Backend{api: api, keyID: keyID} }

// Name is "kms".
func (b *Backend) Name() string { return "kms" }

// Generate is one GenerateDataKey (AES_256).
func (b *Backend) Generate(ctx context.Context) (plain, wrapped []byte, err error) {
	out, err := b.api.GenerateDataKey(ctx, &kms.GenerateDataKeyInput{
		KeyId: aws.String(b.keyID), KeySpec: types.DataKeySpecAes256, EncryptionContext: Context,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("kmsdatakeys: generate a data key with %s: %w", b.keyID, err)
	}
	return out.Plaintext, out.CiphertextBlob, nil
}

// Unwrap is one Decrypt. KMS's answers that the ciphertext, the key or its
// state rule out are secretbox.ErrUnopenable; any other failure
// (throttling, the network) is returned as it is.
func (b *Backend) Unwrap(ctx context.Context, wrapped []byte) ([]byte, error) {
	out, err := b.api.Decrypt(ctx, &kms.DecryptInput{
		KeyId: aws.String(b.keyID), CiphertextBlob: wrapped, EncryptionContext: Context,
	})
	switch {
	case err == nil:
		return out.Plaintext, nil
	case kmskeys.RuledOut(err):
		return nil, secretbox.ErrUnopenable
	default:
		return nil, fmt.Errorf("kmsdatakeys: decrypt a data key: %w", err)
	}
}
