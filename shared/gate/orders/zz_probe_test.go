package orders

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store/dynamostore/dynamotest"
)

func TestZZProbe(t *testing.T) {
	c := dynamotest.Client(t)
	tables := dynamotest.Tables(t, c)
	tb := tables["ledger"]
	ctx := context.Background()
	key := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "b"}, "sk": &types.AttributeValueMemberS{Value: "USD"}}
	_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: &tb, Item: map[string]types.AttributeValue{"pk": key["pk"], "sk": key["sk"], "v": &types.AttributeValueMemberN{Value: "1"}}})
	if err != nil {
		t.Fatal(err)
	}
	var cc, conf, ok, other atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for i := range 150 {
		wg.Go(func() {
			for j := 0; j < 3; j++ {
				_, err := c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
					{Update: &types.Update{TableName: &tb, Key: key, UpdateExpression: aws.String("SET v = v + :one"), ConditionExpression: aws.String("v = :v"),
						ExpressionAttributeValues: map[string]types.AttributeValue{":one": &types.AttributeValueMemberN{Value: "1"}, ":v": &types.AttributeValueMemberN{Value: "1"}}}},
					{Put: &types.Put{TableName: &tb, Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "x"}, "sk": &types.AttributeValueMemberS{Value: fmt.Sprint(i, j)}}}},
				}})
				var tx *types.TransactionCanceledException
				switch {
				case err == nil:
					ok.Add(1)
				case errors.As(err, &tx):
					if aws.ToString(tx.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
						cc.Add(1)
					} else {
						conf.Add(1)
						if conf.Load() < 3 {
							t.Log(err)
						}
					}
				default:
					other.Add(1)
					t.Log(err)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%s ok=%d ccf=%d conflict=%d other=%d", time.Since(start), ok.Load(), cc.Load(), conf.Load(), other.Load())
}
