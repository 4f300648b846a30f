package dynamostore

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/store"
)

// writeAttempts bounds the retries of a write that lost a race with a
// concurrent transaction (or had to reset an expired counter).
const writeAttempts = 6

// errRetry marks an attempt to run again at once (a plan was rewritten).
var errRetry = errors.New("retry")

// Write runs one op as a single-item call, several as TransactWriteItems.
func (s *Store) Write(ctx context.Context, ops ...store.Op) (err error) {
	ops, landed, err := store.AttachExtras(ctx, ops)
	if err != nil {
		return err
	}
	defer func() { err = landed(err) }()
	if err := store.ValidateOps(ops); err != nil {
		return err
	}
	now := s.clock()
	plans := make([]plan, len(ops))
	for i, op := range ops {
		table, err := s.table(op.Item.Table)
		if err != nil {
			return err
		}
		plans[i] = newPlan(op, table, now)
	}
	for attempt := range writeAttempts {
		if len(plans) == 1 {
			err = s.writeOne(ctx, plans, now)
		} else {
			err = s.transact(ctx, plans, now)
		}
		switch {
		case errors.Is(err, errRetry):
			continue
		case !isConflict(err):
			return err
		}
		if werr := conflictBackoff.Sleep(ctx, attempt); werr != nil {
			return apierr.Wrap("dynamostore.Write", apierr.Unavailable, werr)
		}
	}
	if errors.Is(err, errRetry) {
		return apierr.Wrap("dynamostore.Write", apierr.Internal, errors.New("expired item kept changing"))
	}
	return &apierr.Error{Kind: apierr.Conflict, Message: "the record was changed concurrently; retry", Op: "dynamostore.Write", Err: err}
}

// conflictBackoff spaces retries of a transaction conflict: 5ms, 10ms,
// 20ms... halved at random (equal jitter) so racing writers spread out.
var conflictBackoff = retry.Backoff{Base: 5 * time.Millisecond, Jitter: retry.Equal}

func isConflict(err error) bool {
	var tc *types.TransactionConflictException
	if errors.As(err, &tc) {
		return true
	}
	var tx *types.TransactionCanceledException
	if errors.As(err, &tx) {
		for _, r := range tx.CancellationReasons {
			if aws.ToString(r.Code) == "TransactionConflict" {
				return true
			}
		}
	}
	return false
}

// writeOne runs plans[0] as UpdateItem or DeleteItem. A failed condition
// returns the item as it stood (ALL_OLD), so no second read is needed.
func (s *Store) writeOne(ctx context.Context, plans []plan, now time.Time) error {
	p := plans[0]
	key := keyAttrs(p.op.Item.Key)
	n, v := used(p.values, p.update, p.cond)
	var err error
	if p.op.Kind == store.OpDelete {
		_, err = s.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: &p.table, Key: key, ConditionExpression: optional(p.cond),
			ExpressionAttributeNames: n, ExpressionAttributeValues: v,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
	} else {
		update, cond, token := stamped(p)
		n, v = used(p.values, update, cond)
		v[":wt"] = &types.AttributeValueMemberS{Value: token}
		_, err = s.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: &p.table, Key: key, UpdateExpression: &update, ConditionExpression: &cond,
			ExpressionAttributeNames: n, ExpressionAttributeValues: v,
			ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
		})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) && ownWrite(ccf.Item, token) {
			return nil
		}
	}
	var ccf *types.ConditionalCheckFailedException
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ccf):
		return conditionFailed(plans, 0, ccf.Item, now)
	case isConflict(err):
		return err
	}
	return wrapErr("dynamostore.Write", err)
}

// A single-item update is stamped with a token of its own (attribute wt)
// and conditioned on the item not bearing it yet. When its answer is lost
// (a reset, a timeout) the SDK sends it again; the resend then fails that
// condition on the item the first send wrote, and the old item it gets back
// bears the token: the write committed once and succeeded. Without it, a
// resent put-if-absent or version-conditioned write failed on its own
// commit, and a resent add added twice (found by make chaos). A
// transaction needs none: DynamoDB answers a resent TransactWriteItems by
// its ClientRequestToken.
func stamped(p plan) (update, cond, token string) {
	var b [12]byte
	_, _ = rand.Read(b[:])
	token = base64.RawStdEncoding.EncodeToString(b[:])
	update = strings.Replace(p.update, "SET ", "SET #w = :wt, ", 1)
	cond = notMine
	if p.cond != "" {
		cond = p.cond + " AND " + notMine
	}
	return update, cond, token
}

// notMine is the condition of a stamped write: the item is not yet this write's.
const notMine = "(attribute_not_exists(#w) OR #w <> :wt)"

// ownWrite reports whether old (the item a failed condition returned)
// bears token: written by an earlier send of the same write.
func ownWrite(old map[string]types.AttributeValue, token string) bool {
	w, ok := old[attrWrite].(*types.AttributeValueMemberS)
	return ok && w.Value == token
}

// conditionFailed turns a failed condition on plans[i] into the port's error
// (a failed condition or a bound, told apart by store.Judge over the item as
// it stood, exactly as the embedded adapter decides), or rewrites the plan and
// asks for a retry when the item was only expired.
func conditionFailed(plans []plan, i int, old map[string]types.AttributeValue, now time.Time) error {
	it, err := decode(plans[i].op.Item.Table, old)
	if err != nil {
		return err
	}
	live := it
	if live != nil && live.Expired(now) {
		live = nil
	}
	switch store.Judge(plans[i].op, live) {
	case store.OutOfBound:
		return store.OutOfRange(i, plans[i].op.Item.Key)
	case store.Holds:
		if canReset(plans[i].op, it, now) {
			plans[i] = resetPlan(plans[i], it)
			return errRetry
		}
	}
	return &store.ConditionFailedError{Index: i, Current: live}
}

// transact runs plans as one TransactWriteItems.
func (s *Store) transact(ctx context.Context, plans []plan, now time.Time) error {
	items := make([]types.TransactWriteItem, len(plans))
	for i, p := range plans {
		key := keyAttrs(p.op.Item.Key)
		n, v := used(p.values, p.update, p.cond)
		allOld := types.ReturnValuesOnConditionCheckFailureAllOld
		switch p.op.Kind {
		case store.OpCheck:
			items[i].ConditionCheck = &types.ConditionCheck{
				TableName: &p.table, Key: key, ConditionExpression: &p.cond,
				ExpressionAttributeNames: n, ExpressionAttributeValues: v,
				ReturnValuesOnConditionCheckFailure: allOld,
			}
		case store.OpDelete:
			items[i].Delete = &types.Delete{
				TableName: &p.table, Key: key, ConditionExpression: optional(p.cond),
				ExpressionAttributeNames: n, ExpressionAttributeValues: v,
				ReturnValuesOnConditionCheckFailure: allOld,
			}
		default:
			items[i].Update = &types.Update{
				TableName: &p.table, Key: key, UpdateExpression: &p.update, ConditionExpression: optional(p.cond),
				ExpressionAttributeNames: n, ExpressionAttributeValues: v,
				ReturnValuesOnConditionCheckFailure: allOld,
			}
		}
	}
	_, err := s.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tx *types.TransactionCanceledException
	if err == nil || !errors.As(err, &tx) {
		if err != nil {
			return wrapErr("dynamostore.Write", err)
		}
		return nil
	}
	// Report the first real condition failure; rewrite expired counters.
	retry := false
	for i, r := range tx.CancellationReasons {
		if aws.ToString(r.Code) != "ConditionalCheckFailed" || i >= len(plans) {
			continue
		}
		switch cerr := conditionFailed(plans, i, r.Item, now); {
		case errors.Is(cerr, errRetry):
			retry = true
		default:
			return cerr
		}
	}
	switch {
	case retry:
		return errRetry
	case isConflict(err):
		return err
	}
	for _, r := range tx.CancellationReasons {
		switch aws.ToString(r.Code) {
		case "ThrottlingError", "ProvisionedThroughputExceeded", "RequestLimitExceeded":
			return apierr.Wrap("dynamostore.Write", apierr.Unavailable, err)
		}
	}
	return wrapErr("dynamostore.Write", err)
}
