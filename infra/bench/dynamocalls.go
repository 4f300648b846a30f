package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/console/merchants"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/platform/app"
)

// dynamoCalls is what one authenticated request costs in DynamoDB calls,
// per operation name.
type dynamoCalls struct {
	Auth    map[string]int // Keys.Authenticate alone
	Request map[string]int // GET /v1/merchants/me through the Lambda adapter
}

// measureDynamoCalls counts, on DynamoDB Local at endpoint, the SDK calls of
// authenticating the sample key and of a whole GET /v1/merchants/me. It
// creates its own tables and deletes them afterwards.
func measureDynamoCalls(ctx context.Context, endpoint string) (dynamoCalls, error) {
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return dynamoCalls{}, err
	}
	defer cleanup()
	g, err := merchants.BuildMerchants(d)
	if err != nil {
		return dynamoCalls{}, err
	}
	adapter := httpadapter.NewV2(d.Server(g))

	var out dynamoCalls
	counter.Reset()
	if _, err := d.Keys.Authenticate(ctx, sample.Key); err != nil {
		return out, fmt.Errorf("authenticate: %w", err)
	}
	out.Auth = counter.Counts()

	req := events.APIGatewayV2HTTPRequest{
		Version: "2.0", RouteKey: "GET /v1/merchants/me", RawPath: "/v1/merchants/me",
		Headers: map[string]string{"authorization": sample.Key},
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			Stage: "$default", RequestID: "bench",
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: "GET", Path: "/v1/merchants/me", SourceIP: "127.0.0.1"},
		},
	}
	counter.Reset()
	resp, err := adapter.ProxyWithContext(ctx, req)
	if err != nil {
		return out, err
	}
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("GET /v1/merchants/me answered %d: %s", resp.StatusCode, resp.Body)
	}
	out.Request = counter.Counts()
	return out, nil
}

// dynamoDeps creates a fresh set of tables on DynamoDB Local, with the sample
// account in them, and returns dependencies over them, the table names, and
// a function that deletes the tables.
func dynamoDeps(ctx context.Context, endpoint string, opts ...func(*dynamodb.Options)) (*app.Deps, map[string]string, func(), error) {
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")}
	opts = append([]func(*dynamodb.Options){func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		o.DisableValidateResponseChecksum = true // DynamoDB Local fails the CRC32 check of DescribeTable
	}}, opts...)
	client := dynamodb.NewFromConfig(cfg, opts...)
	tables := dynamostore.TablesWithPrefix(fmt.Sprintf("bench-%d-", time.Now().UnixNano()))
	cleanup := func() {
		for _, name := range tables {
			_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
	}
	if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	d := app.WithStore(dynamostore.New(client, tables, nil), nil, nil, nil)
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		cleanup()
		return nil, nil, nil, err
	}
	return d, tables, cleanup, nil
}

// dynamoEnv is a function environment on fresh, seeded DynamoDB Local
// tables; cleanup deletes them.
func dynamoEnv(ctx context.Context, endpoint string) (map[string]string, func(), error) {
	_, tables, cleanup, err := dynamoDeps(ctx, endpoint)
	if err != nil {
		return nil, nil, err
	}
	env := map[string]string{
		"STORE": "dynamodb", "DYNAMODB_ENDPOINT": endpoint,
		"AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local",
	}
	for logical, physical := range tables {
		env[dynamostore.EnvVar(logical)] = physical
	}
	return env, cleanup, nil
}
