package eventlog_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/stores"
)

type thing struct {
	ID     string `json:"id"`
	Amount int64  `json:"amount"`
}

func TestAppendWritesOneRecordWithItsExpiry(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		at := time.Now().UTC().Truncate(time.Second)
		op, err := eventlog.Append(eventlog.Event{Type: "payment.authorised", Account: "acct_1", Livemode: true, At: at,
			Data: thing{ID: "pay_1", Amount: 9007199254740993}})
		require.NoError(t, err)
		assert.Equal(t, store.IfAbsent, op.Cond, "a new id: the put never fails on its own")
		require.NoError(t, st.Write(ctx, op))

		it, err := st.Get(ctx, op.Item.Key)
		require.NoError(t, err)
		assert.Equal(t, eventlog.PK("acct_1"), it.PK)
		assert.True(t, eventlog.IsRecord(it.Key))
		assert.Equal(t, at.Add(eventlog.Retention).Unix(), it.ExpiresAt.Unix(), "expires Retention after it was created")

		r, err := eventlog.Get(ctx, st, "acct_1", it.SK)
		require.NoError(t, err)
		assert.Equal(t, "payment.authorised", r.Type)
		assert.Equal(t, at.Unix(), r.Created)
		assert.True(t, r.Livemode)
		assert.JSONEq(t, `{"id":"pay_1","amount":9007199254740993}`, string(r.Data), "data kept exactly")

		_, err = eventlog.Get(ctx, st, "acct_2", it.SK)
		assert.True(t, apierr.Is(err, apierr.NotFound), "another account's event is not found")
		_, err = eventlog.Get(ctx, st, "acct_1", "not-an-id")
		assert.True(t, apierr.Is(err, apierr.NotFound))
	})
}

func TestAppendRefusesDataThatDoesNotEncode(t *testing.T) {
	_, err := eventlog.Append(eventlog.Event{Type: "x", Account: "a", At: time.Now(), Data: func() {}})
	assert.True(t, apierr.Is(err, apierr.Internal))
}

func TestDecodeReadsRecordsWrittenBeforeAppend(t *testing.T) {
	// A payment event kept its mode in data, and an early record its id only
	// in the sort key.
	it := store.Item{Key: eventlog.Key("acct_1", "evt_0192f1c4-7a1e-7000-8000-000000000001"),
		Data: []byte(`{"type":"payment.charged","created":1700000000,"account":"acct_1","data":{"id":"pay_1","livemode":true}}`)}
	r, err := eventlog.Decode(it)
	require.NoError(t, err)
	assert.Equal(t, it.SK, r.ID)
	assert.True(t, r.Livemode, "mode read from data")
	it.Data = []byte(`{"id":"evt_x","type":"order.completed","created":1700000000,"account":"acct_1","livemode":false,"data":{"livemode":true}}`)
	r, err = eventlog.Decode(it)
	require.NoError(t, err)
	assert.False(t, r.Livemode, "the top-level mode wins")
	it.Data = []byte(`{"id":"evt_x","type":"t","created":1}`)
	r, err = eventlog.Decode(it)
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(r.Data))
	assert.Equal(t, "acct_1", r.Account)
	_, err = eventlog.Decode(store.Item{Data: []byte("nope")})
	assert.Error(t, err)
}

func TestBackfillExpiryIsBoundedAndIdempotent(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Second)
		var keys []store.Key
		// Five records written without an expiry (as orders and wallet did),
		// one of them older than Retention, and one written by Append.
		for i := 0; i < 5; i++ {
			op, err := eventlog.Append(eventlog.Event{Type: "order.completed", Account: "acct_1", At: now.Add(-time.Duration(i) * time.Hour), Data: thing{ID: "o"}})
			require.NoError(t, err)
			op.Item.ExpiresAt = time.Time{}
			if i == 4 {
				var r eventlog.Record
				require.NoError(t, json.Unmarshal(op.Item.Data, &r))
				r.Created = now.Add(-eventlog.Retention - time.Hour).Unix()
				op.Item.Data, _ = json.Marshal(r)
			}
			require.NoError(t, st.Write(ctx, op))
			keys = append(keys, op.Item.Key)
		}
		op, err := eventlog.Append(eventlog.Event{Type: "order.failed", Account: "acct_1", At: now, Data: thing{ID: "o"}})
		require.NoError(t, err)
		require.NoError(t, st.Write(ctx, op))

		b, err := eventlog.BackfillExpiry(ctx, st, "acct_1", "", 2)
		require.NoError(t, err)
		assert.Equal(t, 2, b.Read, "bounded by the budget")
		assert.NotEmpty(t, b.Next)
		total := b.Fixed
		for b.Next != "" {
			b, err = eventlog.BackfillExpiry(ctx, st, "acct_1", b.Next, 2)
			require.NoError(t, err)
			total += b.Fixed
		}
		assert.Equal(t, 5, total, "every record without an expiry, once")

		for i, k := range keys {
			it, err := st.Get(ctx, k)
			if i == 4 {
				assert.ErrorIs(t, err, store.ErrNotFound, "older than Retention: expired at once")
				continue
			}
			require.NoError(t, err)
			assert.False(t, it.ExpiresAt.IsZero(), "record %d has its expiry", i)
		}
		again, err := eventlog.BackfillExpiry(ctx, st, "acct_1", "", 100)
		require.NoError(t, err)
		assert.Zero(t, again.Fixed, "a second run changes nothing")
		_, err = eventlog.BackfillExpiry(ctx, st, "acct_1", "garbage!", 10)
		assert.True(t, apierr.Is(err, apierr.Invalid))
	})
}

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range eventlog.Catalogue {
		assert.False(t, seen[c.Type], "%s listed twice", c.Type)
		seen[c.Type] = true
		assert.NotEmpty(t, c.Description)
		assert.True(t, eventlog.Known(c.Type))
	}
	assert.False(t, eventlog.Known("payment.exploded"))
	assert.Len(t, eventlog.Types(), len(eventlog.Catalogue))
}
