// Package kmsapp opens the card keys' KMS backend for the function that
// decrypts cards (app.WithCardKeys(kmsapp.Open)); apart from awsapp so that
// no other function links the KMS client.
package kmsapp

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/kms"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/kmskeys"
	"github.com/paygate/paygate/shared/domain/cardkeys"
	"github.com/paygate/paygate/shared/platform/app"
)

// EndpointVar overrides KMS's endpoint (moto, in tests).
const EndpointVar = "KMS_ENDPOINT"

// Open builds the KMS backend.
func Open(cfg app.Config) (cardkeys.Backend, error) {
	ac, err := awsapp.Config(cfg)
	if err != nil {
		return nil, err
	}
	return kmskeys.New(kms.NewFromConfig(ac, func(o *kms.Options) {
		if ep := cfg.Getenv(EndpointVar); ep != "" {
			o.BaseEndpoint = aws.String(ep)
		}
	})), nil
}
