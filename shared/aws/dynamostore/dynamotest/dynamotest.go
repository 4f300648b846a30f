// Package dynamotest gives tests of any package a DynamoDB-backed store on
// DynamoDB Local (env DYNAMODB_ENDPOINT), kept out of the adapter so binaries
// do not link test helpers.
package dynamotest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// Endpoint is DYNAMODB_ENDPOINT, DynamoDB Local's address. Without it the
// test is skipped, or fails when REQUIRE_REAL_SERVERS=1 (so CI never skips
// silently).
func Endpoint(t testing.TB) string {
	t.Helper()
	return realservers.Endpoint(t, "DYNAMODB_ENDPOINT", "infra/scripts/dynamodb-local.sh start")
}

// Config returns an aws.Config for DynamoDB Local: region us-east-1, dummy
// static credentials, and the endpoint (see Endpoint).
func Config(t testing.TB) (aws.Config, string) {
	t.Helper()
	endpoint := Endpoint(t)
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("local", "local", ""),
	}
	return cfg, endpoint
}

// Client returns a client of DynamoDB Local; opts add to its options.
func Client(t testing.TB, opts ...func(*dynamodb.Options)) *dynamodb.Client {
	t.Helper()
	cfg, endpoint := Config(t)
	opts = append([]func(*dynamodb.Options){func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) }}, opts...)
	return dynamodb.NewFromConfig(cfg, opts...)
}

// Tables creates a fresh, uniquely named set of every table and deletes it
// when the test ends.
func Tables(t testing.TB, client *dynamodb.Client) map[string]string {
	t.Helper()
	prefix := fmt.Sprintf("test-%d-%08x-", time.Now().UnixNano(), rand.Uint32())
	tables := dynamostore.TablesWithPrefix(prefix)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dynamostore.CreateTables(ctx, client, tables); err != nil {
		t.Fatalf("create tables: %v", err)
	}
	t.Cleanup(func() {
		for _, name := range tables {
			_, _ = client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
		}
	})
	return tables
}

// New returns a store on fresh tables of DynamoDB Local. A nil clock means
// time.Now.
func New(t testing.TB, clock store.Clock) *dynamostore.Store {
	t.Helper()
	client := Client(t)
	return dynamostore.New(client, Tables(t, client), clock)
}
