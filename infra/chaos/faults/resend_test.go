package faults

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
)

// TestASingleWriteResentAfterItsCommitAppliesOnce: each single-item write
// of the DynamoDB adapter commits, loses its answer and is resent by the
// SDK. It succeeds, applied once: a put-if-absent does not fail on its own
// item, a version-conditioned put not on its own version, an add does not
// add twice. (Found by make chaos: before the adapter stamped its writes,
// the first two answered a failed condition and the add added twice.)
func TestASingleWriteResentAfterItsCommitAppliesOnce(t *testing.T) {
	tr := New(Plan{Rate: 1, Kinds: []Kind{LostAnswer}}, nil)
	clean := dynamotest.Client(t)
	tables := dynamotest.Tables(t, clean)
	faulty := dynamotest.Client(t, func(o *dynamodb.Options) { o.HTTPClient = &http.Client{Transport: tr} })
	st, plain := dynamostore.New(faulty, tables, time.Now), dynamostore.New(clean, tables, time.Now)
	ctx := context.Background()
	key := func(sk string) store.Key { return store.Key{Table: store.TableOrders, PK: "resend", SK: sk} }
	once := func(op store.Op) {
		t.Helper()
		before := tr.Counts()[LostAnswer]
		tr.plan.Limit = before + 1 // this write's first send loses its answer; the resend goes through
		require.NoError(t, st.Write(ctx, op))
		require.Equal(t, before+1, tr.Counts()[LostAnswer], "the answer was lost once")
	}

	once(store.Put(store.Item{Key: key("a"), Data: []byte(`{"x":1}`)}, store.IfAbsent))
	a, err := plain.Get(ctx, key("a"))
	require.NoError(t, err)
	assert.EqualValues(t, 1, a.Version)

	once(store.Put(store.Item{Key: key("a"), Data: []byte(`{"x":2}`)}, store.IfVersion(1)))
	a, err = plain.Get(ctx, key("a"))
	require.NoError(t, err)
	assert.EqualValues(t, 2, a.Version, "applied once")
	assert.JSONEq(t, `{"x":2}`, string(a.Data))

	once(store.Add(key("n"), 5, false, store.Always))
	n, err := plain.Get(ctx, key("n"))
	require.NoError(t, err)
	assert.EqualValues(t, 5, n.N, "added once")

	// Another writer's item still fails the condition.
	err = plain.Write(ctx, store.Put(store.Item{Key: key("a"), Data: []byte(`{}`)}, store.IfAbsent))
	_, failed := store.IsConditionFailed(err)
	assert.True(t, failed, "%v", err)
	err = st.Write(ctx, store.Put(store.Item{Key: key("a"), Data: []byte(`{}`)}, store.IfAbsent))
	_, failed = store.IsConditionFailed(err)
	assert.True(t, failed, "%v", err)
}
