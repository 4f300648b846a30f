package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
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
