// Package ssmkeys reads the session-signing keys from an SSM SecureString
// parameter: the adapter that keeps the AWS SDK out of package sessiondata.
// Only the checkout functions link it, so no other function pays for the SSM
// client at cold start.
package ssmkeys

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ssm"

	"github.com/paygate/paygate/shared/checkout/sessiondata"
)

// Source returns a key source for sessiondata.NewRefreshing: each call is one
// GetParameter of name with decryption (the function's role needs
// ssm:GetParameter on the parameter and kms:Decrypt through SSM). endpoint
// overrides AWS's (moto in tests); empty means AWS.
func Source(cfg aws.Config, endpoint, name string) func(context.Context) ([][]byte, error) {
	client := ssm.NewFromConfig(cfg, func(o *ssm.Options) {
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	})
	return func(ctx context.Context) ([][]byte, error) {
		out, err := client.GetParameter(ctx, &ssm.GetParameterInput{Name: aws.String(name), WithDecryption: aws.Bool(true)})
		if err != nil {
			return nil, fmt.Errorf("ssmkeys: read %s: %w", name, err)
		}
		if out.Parameter == nil || out.Parameter.Value == nil {
			return nil, fmt.Errorf("ssmkeys: %s has no value", name)
		}
		keys, err := sessiondata.ParseKeys(*out.Parameter.Value)
		if err != nil {
			return nil, fmt.Errorf("ssmkeys: %s: %w", name, err)
		}
		return keys, nil
	}
}
