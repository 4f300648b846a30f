// Package awsapp opens a deployed function's AWS clients for package app:
// every Lambda main hands Open to app's Start function (app.StartHTTP(build,
// awsapp.Open, ...)), so app itself, the tests and the local gateway link no
// AWS SDK. The queue and the card keys have their own openers (sqsapp,
// kmsapp), linked only by the functions that use them.
package awsapp

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/ssmkeys"
	"github.com/paygate/paygate/shared/aws/xray"
	"github.com/paygate/paygate/shared/platform/app"
)

// Open is app's cloud opener on AWS: the DynamoDB store over the stack's
// tables (TABLE_* variables) and the SSM parameters.
func Open(_ context.Context, cfg app.Config) (app.Cloud, error) {
	ac, err := Config(cfg)
	if err != nil {
		return app.Cloud{}, err
	}
	tables, err := dynamostore.TablesFromEnv(cfg.Getenv)
	if err != nil {
		return app.Cloud{}, err
	}
	ddb := dynamodb.NewFromConfig(ac, func(o *dynamodb.Options) {
		if cfg.DynamoEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.DynamoEndpoint)
		}
	})
	return app.Cloud{
		Store:      dynamostore.New(ddb, tables, time.Now),
		Tables:     tables,
		Parameters: ssmkeys.NewParameters(ac, cfg.SSMEndpoint),
	}, nil
}

// Config builds the SDK config from the environment Lambda provides
// (region and the execution role's credentials as env vars): every call of
// every client built from it is bounded by DefaultTimeouts, retried with
// short pauses (retryer) and, when Tracing is Active, an X-Ray subsegment
// of the invocation. Not using the SDK's config package keeps SSO, STS and
// IMDS, and their start-up cost, out of every function binary: they are a
// third of a cold start. Tools that run on a workstation (the admin CLI)
// use the full default chain instead.
func Config(cfg app.Config) (aws.Config, error) {
	id, secret := cfg.Getenv("AWS_ACCESS_KEY_ID"), cfg.Getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" || secret == "" {
		if cfg.DynamoEndpoint == "" && cfg.SQSEndpoint == "" {
			return aws.Config{}, fmt.Errorf("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them from the execution role)")
		}
		// Local emulators accept any credentials.
		id, secret = "local", "local"
	}
	ac := aws.Config{
		Region:      cfg.Region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(id, secret, cfg.Getenv("AWS_SESSION_TOKEN"))),
	}
	if cfg.Transport != nil {
		ac.HTTPClient = clientOver(cfg.Transport)
	}
	ac.Retryer = retryer
	DefaultTimeouts.Register(&ac)
	xray.FromEnv(cfg.Getenv).Register(&ac)
	return ac, nil
}
