package dynamostore

import (
	"context"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/store"
)

// Query is one DynamoDB Query (never a Scan). It asks for Limit+1 items: the
// extra one only tells whether a next page exists, so Next is empty exactly
// when nothing follows. Expired items are dropped from the page.
func (s *Store) Query(ctx context.Context, q store.Query) (store.Page, error) {
	if err := q.Validate(); err != nil {
		return store.Page{}, err
	}
	if !store.KeyFits(store.Key{PK: q.PK}) {
		return store.Page{}, nil // no write accepts such a key: the partition is empty
	}
	table, err := s.table(q.Table)
	if err != nil {
		return store.Page{}, err
	}
	in := &dynamodb.QueryInput{
		TableName:                &table,
		ConsistentRead:           aws.Bool(true),
		ScanIndexForward:         aws.Bool(!q.Desc),
		Limit:                    aws.Int32(int32(q.Limit + 1)),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": &types.AttributeValueMemberS{Value: q.PK},
		},
	}
	cond := "#pk = :pk"
	sk := func(name, v string) string {
		in.ExpressionAttributeNames["#sk"] = attrSK
		in.ExpressionAttributeValues[name] = &types.AttributeValueMemberS{Value: v}
		return name
	}
	switch {
	case q.Prefix != "":
		cond += " AND begins_with(#sk, " + sk(":prefix", q.Prefix) + ")"
	case q.From != "" && q.To != "":
		if q.From > q.To {
			return store.Page{}, nil // DynamoDB rejects an empty BETWEEN
		}
		cond += " AND #sk BETWEEN " + sk(":from", q.From) + " AND " + sk(":to", q.To)
	case q.From != "":
		cond += " AND #sk >= " + sk(":from", q.From)
	case q.To != "":
		cond += " AND #sk <= " + sk(":to", q.To)
	}
	in.KeyConditionExpression = &cond
	if q.Cursor != "" {
		after, err := store.DecodeCursor(q.Cursor)
		if err != nil {
			return store.Page{}, err
		}
		if !store.KeyFits(store.Key{PK: q.PK, SK: after}) {
			return store.Page{}, fmt.Errorf("%w: malformed cursor", store.ErrInvalid) // no key could have produced it
		}
		if !inRange(q, after) {
			return store.Page{}, fmt.Errorf("%w: cursor outside the query range", store.ErrInvalid)
		}
		in.ExclusiveStartKey = keyAttrs(store.Key{PK: q.PK, SK: after})
	}
	out, err := s.client.Query(ctx, in)
	if err != nil {
		return store.Page{}, wrapErr("dynamostore.Query", err)
	}
	raw := out.Items
	var page store.Page
	switch {
	case len(raw) > q.Limit:
		raw = raw[:q.Limit]
		last, _ := raw[q.Limit-1][attrSK].(*types.AttributeValueMemberS)
		if last == nil {
			return store.Page{}, fmt.Errorf("%w in %s: no sk", errBadItem, table)
		}
		page.Next = store.EncodeCursor(last.Value)
	case out.LastEvaluatedKey != nil:
		// DynamoDB stopped early (1 MB page): resume where it did.
		if last, ok := out.LastEvaluatedKey[attrSK].(*types.AttributeValueMemberS); ok {
			page.Next = store.EncodeCursor(last.Value)
		}
	}
	now := s.clock()
	for _, m := range raw {
		it, err := decodeLive(q.Table, m, now)
		if err != nil {
			return store.Page{}, err
		}
		if it != nil {
			page.Items = append(page.Items, *it)
		}
	}
	return page, nil
}

// inRange reports whether sk satisfies the query's SK condition, as the
// embedded adapter does: DynamoDB rejects a start key outside it.
func inRange(q store.Query, sk string) bool {
	switch {
	case q.Prefix != "":
		return strings.HasPrefix(sk, q.Prefix)
	case q.From != "" && sk < q.From:
		return false
	case q.To != "" && sk > q.To:
		return false
	}
	return true
}
