package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/stores"
)

// TestRaceCountsEveryIncrementOnce: many goroutines change one record
// through Race; every change lands exactly once, on both adapters.
func TestRaceCountsEveryIncrementOnce(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		k := store.Key{Table: store.TablePayments, PK: "race#1", SK: "r"}
		require.NoError(t, st.Write(ctx, store.Put(store.Item{Key: k, Data: []byte(`{"n":0}`)}, store.IfAbsent)))
		const writers, each = 8, 5
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					race := store.Race{Op: "test.inc", What: "record r", Attempts: 100}
					errs <- race.Run(ctx, func(int) error {
						it, err := st.Get(ctx, k)
						if err != nil {
							return err
						}
						var v struct{ N int }
						if err := json.Unmarshal(it.Data, &v); err != nil {
							return err
						}
						v.N++
						data, _ := json.Marshal(v)
						return race.Settle(st.Write(ctx, store.Put(store.Item{Key: k, Data: data}, store.IfVersion(it.Version))))
					})
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		it, err := st.Get(ctx, k)
		require.NoError(t, err)
		assert.JSONEq(t, `{"N":40}`, string(it.Data))
		assert.Equal(t, int64(writers*each+1), it.Version)
	})
}

func TestRaceAnswersBusyAfterItsAttempts(t *testing.T) {
	calls := 0
	err := store.Race{Op: "test.busy", What: "payout po_1", Attempts: 3}.Run(context.Background(), func(int) error {
		calls++
		return store.Lost()
	})
	assert.Equal(t, 3, calls)
	assert.True(t, apierr.HasCode(err, store.CodeBusy))
	assert.Equal(t, apierr.Conflict, apierr.KindOf(err))
	assert.Contains(t, err.Error(), "payout po_1 kept changing")
}

func TestRaceSettle(t *testing.T) {
	r := store.Race{Op: "test.settle"}
	assert.NoError(t, r.Settle(nil))
	own := &store.ConditionFailedError{Index: 0}
	other := &store.ConditionFailedError{Index: 2}
	calls := 0
	run := func(err error, ops ...int) error {
		calls = 0
		return store.Race{Op: "t", Attempts: 2}.Run(context.Background(), func(int) error { calls++; return r.Settle(err, ops...) })
	}
	assert.True(t, apierr.HasCode(run(own), store.CodeBusy), "a failed condition on op 0 is a lost race")
	assert.Equal(t, 2, calls)
	assert.True(t, apierr.HasCode(run(other, 1, 2), store.CodeBusy), "on a named record op too")
	err := run(other)
	assert.Equal(t, 1, calls, "a failed condition on another op is not retried")
	assert.Equal(t, apierr.Unavailable, apierr.KindOf(err))
	err = run(&apierr.Error{Kind: apierr.Conflict, Op: "dynamostore.Write"})
	assert.True(t, apierr.HasCode(err, store.CodeBusy), "a transaction conflict is a lost race")
	err = run(errors.New("connection reset"))
	assert.Equal(t, apierr.Unavailable, apierr.KindOf(err))
	err = run(apierr.Invalidf("metadata", "too large"))
	assert.Equal(t, apierr.Invalid, apierr.KindOf(err), "a client kind is kept")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = store.Race{Op: "t"}.Run(ctx, func(int) error { return store.Lost() })
	assert.Equal(t, apierr.Unavailable, apierr.KindOf(err), "an ended context stops the loop")
}
