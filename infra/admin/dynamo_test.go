package main

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/kms"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/kmsdatakeys"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest/realservers"
)

// TestDynamoDB drives the CLI against DynamoDB Local (DYNAMODB_ENDPOINT),
// on tables of its own prefix.
func TestDynamoDB(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	prefix := "admintest-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + "-"
	dyn := func(args ...string) result {
		t.Helper()
		all := append([]string{"--store", "dynamodb", "--endpoint", endpoint, "--region", "us-east-1", "--table-prefix", prefix}, args...)
		r := cli(t, nil, all...)
		require.Equal(t, 0, r.code, "admin %v: %s", args, r.stderr)
		return r
	}

	tables := decode[struct{ Tables map[string]string }](t, dyn("tables", "create", "--json")).Tables
	require.Len(t, tables, len(store.AllTables))
	require.Equal(t, prefix+store.TableAccounts, tables[store.TableAccounts])
	dyn("tables", "create") // creating again is a no-op

	created := decode[struct {
		Account struct{ ID string } `json:"account"`
		createdKey
	}](t, dyn("accounts", "create", "--name", "Dynamo shop", "--json"))
	require.True(t, strings.HasPrefix(created.Secret, "sk_test_"))
	extra := decode[createdKey](t, dyn("keys", "create", "--account", created.Account.ID, "--json"))

	list := decode[struct{ Keys []keyView }](t, dyn("keys", "list", "--account", created.Account.ID, "--json"))
	require.Len(t, list.Keys, 2)
	ids := []string{list.Keys[0].ID, list.Keys[1].ID}
	require.ElementsMatch(t, []string{created.Key.ID, extra.Key.ID}, ids)

	// The keys authenticate against the tables, and a revoked one stops.
	e := &env{Getenv: func(string) string { return "" }, Store: "dynamodb", Endpoint: endpoint, Region: "us-east-1", TablePrefix: prefix}
	defer e.close()
	d, err := e.Deps(context.Background())
	require.NoError(t, err)
	_, err = d.Keys.Authenticate(context.Background(), extra.Secret)
	require.NoError(t, err)
	dyn("keys", "revoke", "--account", created.Account.ID, "--key", extra.Key.ID)
	_, err = d.Keys.Authenticate(context.Background(), extra.Secret)
	require.Error(t, err)
	_, err = d.Keys.Authenticate(context.Background(), created.Secret)
	require.NoError(t, err)
}

// TestDynamoDBConnectors: on DynamoDB, connectors set seals the keys with
// the KMS key --kms-key names (moto's, here), as the deployed functions open
// them.
func TestDynamoDBConnectors(t *testing.T) {
	endpoint := dynamotest.Endpoint(t)
	kmsEndpoint := realservers.Endpoint(t, "SQS_ENDPOINT", "infra/scripts/moto.sh start")
	ctx := context.Background()
	client := kms.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("local", "local", "")},
		func(o *kms.Options) { o.BaseEndpoint = aws.String(kmsEndpoint) })
	key, err := client.CreateKey(ctx, &kms.CreateKeyInput{})
	require.NoError(t, err)
	keyARN := aws.ToString(key.KeyMetadata.Arn)
	prefix := "adminconn-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + "-"
	dyn := func(getenv func(string) string, args ...string) result {
		t.Helper()
		return cli(t, getenv, append([]string{"--store", "dynamodb", "--endpoint", endpoint, "--region", "us-east-1", "--table-prefix", prefix}, args...)...)
	}
	require.Equal(t, 0, dyn(nil, "tables", "create").code)
	r := dyn(nil, "accounts", "create", "--name", "Dynamo shop", "--json")
	require.Equal(t, 0, r.code, r.stderr)
	acct := decode[struct {
		Account struct{ ID string } `json:"account"`
	}](t, r).Account.ID

	r = dyn(keysEnv, "connectors", "set", "--account", acct, "--mode", "live", "--url", "https://checkout-test.adyen.com/v71",
		"--merchant-account", "ShopECOM", "--api-key-env", "ADYEN_API_KEY", "--hmac-key-env", "ADYEN_HMAC_KEY",
		"--kms-endpoint", kmsEndpoint, "--kms-key", keyARN)
	require.Equal(t, 0, r.code, r.stderr)
	id := strings.TrimSpace(r.stdout)

	e := &env{Getenv: func(string) string { return "" }, Store: "dynamodb", Endpoint: endpoint, Region: "us-east-1", TablePrefix: prefix}
	defer e.close()
	d, err := e.Deps(ctx)
	require.NoError(t, err)
	box := secretbox.New(kmsdatakeys.New(client, keyARN), nil)
	c, hk, err := connectors.NewRepo(d.Store, box, nil).NotificationKey(ctx, id)
	require.NoError(t, err)
	require.Equal(t, testHMACKey, hk)
	require.Equal(t, acct, c.Account)
	_, k, err := connectors.NewRepo(d.Store, box, nil).Opened(ctx, acct, id)
	require.NoError(t, err)
	require.Equal(t, testAPIKey, k.APIKey, "sealed with the KMS key")
}
