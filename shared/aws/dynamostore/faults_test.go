package dynamostore_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// failFirst makes the first n calls fail with err before they are sent
// (DynamoDB Local serializes transactions, so it never conflicts itself).
func failFirst(n int64, err error, calls *atomic.Int64) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			return s.Initialize.Add(middleware.InitializeMiddlewareFunc("inject",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if calls.Add(1) <= n {
						return middleware.InitializeOutput{}, middleware.Metadata{}, err
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	}
}

// offlineStore has no server behind it: every call must be answered by an
// injected fault.
func offlineStore(opt func(*dynamodb.Options)) *dynamostore.Store {
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://127.0.0.1:1"),
		Credentials:  credentials.NewStaticCredentialsProvider("x", "x", ""),
	}, opt)
	return dynamostore.New(client, dynamostore.TablesWithPrefix("t-"), nil)
}

var (
	txConflict = &types.TransactionCanceledException{Message: aws.String("conflict"), CancellationReasons: []types.CancellationReason{
		{Code: aws.String("None")}, {Code: aws.String("TransactionConflict")},
	}}
	itemConflict = &types.TransactionConflictException{Message: aws.String("conflict")}
	twoOps       = []store.Op{
		store.Add(store.Key{Table: store.TableLedger, PK: "a", SK: "b"}, 1, false, store.Always),
		store.Put(store.Item{Key: store.Key{Table: store.TableOrders, PK: "a", SK: "o"}}, store.IfAbsent),
	}
)

func TestPersistentConflictIsConflictKind(t *testing.T) {
	for name, tc := range map[string]struct {
		err error
		ops []store.Op
	}{
		"transaction": {txConflict, twoOps},
		"single item": {itemConflict, twoOps[:1]},
	} {
		var calls atomic.Int64
		s := offlineStore(failFirst(1000, tc.err, &calls))
		err := s.Write(context.Background(), tc.ops...)
		require.Error(t, err, name)
		assert.True(t, apierr.Is(err, apierr.Conflict), "%s: %v", name, err)
		assert.Greater(t, calls.Load(), int64(2), "%s: the adapter retries first", name)
		assert.Less(t, calls.Load(), int64(10), "%s: a few attempts only", name)
	}
}

func TestThrottlingIsUnavailable(t *testing.T) {
	var calls atomic.Int64
	s := offlineStore(failFirst(1000, &smithy.GenericAPIError{Code: "ThrottlingException"}, &calls))
	_, err := s.Get(context.Background(), store.Key{Table: store.TableAccounts, PK: "a", SK: "b"})
	assert.True(t, apierr.Is(err, apierr.Unavailable), "%v", err)
	_, err = s.Query(context.Background(), store.Query{Table: store.TableAccounts, PK: "a", Limit: 1})
	assert.True(t, apierr.Is(err, apierr.Unavailable), "%v", err)
}

func TestConflictRetriedThenCommits(t *testing.T) {
	var calls atomic.Int64
	tables := dynamotest.Tables(t, dynamotest.Client(t))
	s := dynamostore.New(dynamotest.Client(t, failFirst(2, txConflict, &calls)), tables, nil)
	require.NoError(t, s.Write(context.Background(), twoOps...))
	assert.Equal(t, int64(3), calls.Load())
	got, err := s.Get(context.Background(), twoOps[0].Item.Key)
	require.NoError(t, err)
	assert.Equal(t, int64(1), got.N, "applied exactly once")
}
