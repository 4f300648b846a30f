package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/app"
)

// functionEnv is the function's environment: the template's literal
// variables, then the store settings of o (what the template sets with !Ref
// only exists in a deployed stack).
func functionEnv(fn function, o options) (map[string]string, error) {
	env := map[string]string{}
	for k, v := range fn.Env {
		env[k] = v
	}
	switch o.store {
	case "embedded":
		dir, err := filepath.Abs(o.dataDir)
		if err != nil {
			return nil, err
		}
		env["STORE"], env["DATA_DIR"] = "embedded", dir
	case "dynamodb":
		// Local only: the invoker seeds an account, which must never happen
		// in a real AWS account.
		if o.endpoint == "" {
			return nil, errors.New("-store dynamodb needs -endpoint (or DYNAMODB_ENDPOINT): the invoker only talks to DynamoDB Local")
		}
		env["STORE"], env["DYNAMODB_ENDPOINT"] = "dynamodb", o.endpoint
		for logical, physical := range dynamostore.TablesWithPrefix(o.tablePrefix) {
			env[dynamostore.EnvVar(logical)] = physical
		}
		// DynamoDB Local takes any credentials but the SDK wants some.
		for k, dflt := range map[string]string{"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"} {
			env[k] = dflt
			if v := os.Getenv(k); v != "" {
				env[k] = v
			}
		}
		if v := os.Getenv("SQS_ENDPOINT"); v != "" {
			env["SQS_ENDPOINT"] = v
		}
	default:
		return nil, fmt.Errorf("-store must be embedded or dynamodb, not %q", o.store)
	}
	return env, nil
}

// seed opens the store the function will use, creates the DynamoDB Local
// tables when missing, and makes sure the sample-events account exists. It
// closes the store before returning: the embedded file has one owner.
func seed(ctx context.Context, env map[string]string) error {
	getenv := func(k string) string { return env[k] }
	cfg, err := app.ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	if cfg.Store == "dynamodb" {
		// app.Open reads credentials from this process's environment.
		for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
			if os.Getenv(k) == "" {
				os.Setenv(k, env[k])
			}
		}
	}
	d, err := app.Open(ctx, cfg, app.OnCloud(awsapp.Open))
	if err != nil {
		return err
	}
	defer d.Close()
	if cfg.Store == "dynamodb" {
		tables, err := dynamostore.TablesFromEnv(getenv)
		if err != nil {
			return err
		}
		ac, err := awsapp.Config(cfg)
		if err != nil {
			return err
		}
		client := dynamodb.NewFromConfig(ac, func(o *dynamodb.Options) {
			o.BaseEndpoint = aws.String(cfg.DynamoEndpoint)
			// DynamoDB Local's DescribeTable answers fail the CRC32 check
			// the waiter makes; the data calls are not affected.
			o.DisableValidateResponseChecksum = true
		})
		if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
			return err
		}
	}
	_, err = sample.EnsureAccount(ctx, d.Accounts, d.Keys)
	return err
}
