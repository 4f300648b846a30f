// Package kmsapp opens the card keys' KMS backend for the function that
// decrypts cards (app.WithCardKeys(kmsapp.Open)) and the secret box for the
// functions that seal or open stored secrets
// (app.WithSecretBox(kmsapp.OpenSecretBox)); apart from awsapp so that no
// other function links the KMS client.
package kmsapp

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmsdatakeys"
	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/domain/cardkeys"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/app"
)

// EndpointVar overrides KMS's endpoint (moto, in tests).
const EndpointVar = "KMS_ENDPOINT"

// SecretsKeyVar names the symmetric KMS key (id, ARN or alias) whose data
// keys seal the stored secrets.
const SecretsKeyVar = "SECRETBOX_KMS_KEY"

// Open builds the KMS backend.
func Open(cfg app.Config) (cardkeys.Backend, error) {
	c, err := client(cfg)
	if err != nil {
		return nil, err
	}
	return kmskeys.New(c), nil
}

// OpenSecretBox builds the secret box over the KMS key SECRETBOX_KMS_KEY
// names; without it the function does not start, unless ENVIRONMENT is
// local (the invoker, STORE=dynamodb make run: app.Open then uses a local
// key).
func OpenSecretBox(cfg app.Config) (secretbox.Box, error) {
	key := cfg.Getenv(SecretsKeyVar)
	if key == "" && cfg.Environment == "local" {
		return nil, nil
	}
	if key == "" {
		return nil, fmt.Errorf("%s is required: the symmetric KMS key that seals webhook and TOTP secrets", SecretsKeyVar)
	}
	c, err := client(cfg)
	if err != nil {
		return nil, err
	}
	return secretbox.New(kmsdatakeys.New(c, key), nil), nil
}

func client(cfg app.Config) (*kms.Client, error) {
	ac, err := awsapp.Config(cfg)
	if err != nil {
		return nil, err
	}
	return kms.NewFromConfig(ac, func(o *kms.Options) {
		if ep := cfg.Getenv(EndpointVar); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	}), nil
}
