package dynamostore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/storetest"
)

// TestContract runs the suite on one shared set of tables: subtests use
// unique partition keys.
func TestContract(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	storetest.Run(t, func(t *testing.T, clock store.Clock) store.Store {
		return dynamostore.New(client, tables, clock)
	})
}

func TestCreateTablesIsIdempotentAndStreamsEvents(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	ctx := context.Background()
	require.NoError(t, dynamostore.CreateTables(ctx, client, tables))
	out, err := client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tables[store.TableEvents])})
	require.NoError(t, err)
	require.NotNil(t, out.Table.StreamSpecification)
	assert.True(t, aws.ToBool(out.Table.StreamSpecification.StreamEnabled))
	assert.Equal(t, types.StreamViewTypeNewImage, out.Table.StreamSpecification.StreamViewType)
	assert.Equal(t, types.TableStatusActive, out.Table.TableStatus)
}

func TestCallCounterCountsOperations(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	s := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	ctx := context.Background()
	counter.Reset()

	k := store.Key{Table: store.TableAccounts, PK: "acct", SK: "key"}
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte("x")}, store.IfAbsent)))
	_, err := s.Get(ctx, k)
	require.NoError(t, err)
	_, err = s.Query(ctx, store.Query{Table: store.TableAccounts, PK: "acct", Limit: 10})
	require.NoError(t, err)
	// A failed condition costs no second read: the item comes back with it.
	err = s.Write(ctx, store.Put(store.Item{Key: k}, store.IfAbsent))
	_, failed := store.IsConditionFailed(err)
	require.True(t, failed)
	require.NoError(t, s.Write(ctx, store.Add(k, 1, false, store.Always), store.Delete(store.Key{Table: store.TableOrders, PK: "o", SK: "o"}, store.Always)))

	assert.Equal(t, map[string]int{"UpdateItem": 2, "GetItem": 1, "Query": 1, "TransactWriteItems": 1}, counter.Counts())
	counter.Reset()
	assert.Empty(t, counter.Counts())
}

func TestCallCounterRegisterOnConfig(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	cfg, endpoint := dynamotest.Config(t)
	counter.Register(&cfg)
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(endpoint) })
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			_, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.Equal(t, map[string]int{"ListTables": 5}, counter.Counts())
}

func TestTablesFromEnv(t *testing.T) {
	env := map[string]string{}
	for _, logical := range store.AllTables {
		env[dynamostore.EnvVar(logical)] = "prod-" + logical
	}
	tables, err := dynamostore.TablesFromEnv(func(k string) string { return env[k] })
	require.NoError(t, err)
	assert.Equal(t, dynamostore.TablesWithPrefix("prod-"), tables)
	assert.Equal(t, "prod-accounts", tables[store.TableAccounts])
	assert.Equal(t, "TABLE_IDEMPOTENCY", dynamostore.EnvVar(store.TableIdempotency))

	delete(env, "TABLE_LEDGER")
	delete(env, "TABLE_EVENTS")
	_, err = dynamostore.TablesFromEnv(func(k string) string { return env[k] })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "TABLE_LEDGER")
	assert.Contains(t, err.Error(), "TABLE_EVENTS")
}

// TestGetManyBatchesReads: store.GetMany on DynamoDB reads 100 keys per
// BatchGetItem, of any tables, strongly consistent (a key written just
// before is found), and no GetItem.
func TestGetManyBatchesReads(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	s := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	ctx := context.Background()
	var keys []store.Key
	for i := 0; i < 250; i++ {
		k := store.Key{Table: store.TableAccounts, PK: "batch", SK: fmt.Sprintf("k%03d", i)}
		if i%2 == 1 {
			k.Table = store.TableLedger
		}
		require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte("x")}, store.Always)))
		keys = append(keys, k)
	}
	counter.Reset()
	got, err := store.GetMany(ctx, s, keys)
	require.NoError(t, err)
	assert.Len(t, got, 250)
	assert.Equal(t, map[string]int{"BatchGetItem": 3}, counter.Counts())
	_, err = s.GetMany(ctx, keys[:store.MaxBatchGet+1])
	assert.ErrorIs(t, err, store.ErrInvalid, "one call takes at most MaxBatchGet keys")
}

// TestLargeBodiesAreStoredPacked: a body of a KB or so is stored deflated in
// dz, a small one plain in data, and a write of either removes the other
// attribute, so an item never holds two bodies (pack.go).
func TestLargeBodiesAreStoredPacked(t *testing.T) {
	client := dynamotest.Client(t)
	tables := dynamotest.Tables(t, client)
	s := dynamostore.New(client, tables, nil)
	ctx := context.Background()
	k := store.Key{Table: store.TableEvents, PK: "packed", SK: "evt_1"}
	raw := func() map[string]types.AttributeValue {
		out, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tables[store.TableEvents]), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k.PK}, "sk": &types.AttributeValueMemberS{Value: k.SK}}})
		require.NoError(t, err)
		return out.Item
	}
	event := []byte(`{"id":"evt_1","type":"payment.authorised","data":{` + strings.Repeat(`"field":"value of a payment",`, 40) + `"end":true}}`)
	require.Greater(t, len(event), 1024)

	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: event}, store.IfAbsent)))
	item := raw()
	require.Contains(t, item, "dz")
	assert.NotContains(t, item, "data")
	assert.Less(t, len(item["dz"].(*types.AttributeValueMemberB).Value), 512, "deflated")
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	assert.Equal(t, event, got.Data)

	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte(`{"small":true}`)}, store.Always)))
	item = raw()
	assert.NotContains(t, item, "dz", "a plain body removes the packed one")
	assert.Equal(t, []byte(`{"small":true}`), item["data"].(*types.AttributeValueMemberB).Value)

	op := store.Add(k, 1, false, store.Always)
	op.Item.Data = event
	require.NoError(t, s.Write(ctx, op))
	item = raw()
	assert.Contains(t, item, "dz")
	assert.NotContains(t, item, "data", "a packed body removes the plain one")

	// A packed body this adapter cannot read is a malformed item, not a
	// wrong body.
	_, err = client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(tables[store.TableEvents]),
		Key:                       map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k.PK}, "sk": &types.AttributeValueMemberS{Value: k.SK}},
		UpdateExpression:          aws.String("SET dz = :z"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":z": &types.AttributeValueMemberB{Value: []byte{9, 1, 2, 3}}}})
	require.NoError(t, err)
	_, err = s.Get(ctx, k)
	require.Error(t, err)
}
