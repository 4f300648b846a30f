package faults

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLostTransactionAnswerIsRetriedAsOne: a TransactWriteItems whose
// answer was lost is retried by the SDK with the same ClientRequestToken,
// which DynamoDB (and DynamoDB Local) answers as the first commit: the
// retry succeeds instead of failing the transaction's own conditions.
func TestLostTransactionAnswerIsRetriedAsOne(t *testing.T) {
	ddb, _, tr := clients(t, Plan{Rate: 1, Kinds: []Kind{LostAnswer}, Limit: 1})
	clean, _, _ := clients(t, Plan{})
	tbl := table(t, clean)
	_, err := ddb.TransactWriteItems(context.Background(), &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{Put: &types.Put{
		TableName: aws.String(tbl), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}},
		ConditionExpression: aws.String("attribute_not_exists(pk)")}}}})
	require.NoError(t, err)
	assert.Equal(t, 1, tr.Counts()[LostAnswer])
	assert.True(t, stored(t, clean, tbl, "a"))
}
