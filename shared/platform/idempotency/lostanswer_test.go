package idempotency

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/lostanswer"
)

// TestLostAnswersOfTheKeysOwnWrites: the claim's put and the result's put
// each commit, lose their answer and are sent again (as the SDK retries);
// the second run fails its condition on the first one's record. Claim
// knows its own claim and Complete its own result: before the fix (found
// by make chaos) the request answered 409 idempotency_in_flight to itself,
// and its retries waited out the lease.
func TestLostAnswersOfTheKeysOwnWrites(t *testing.T) {
	backends(t, func(t *testing.T, newStore newStoreFunc) {
		_, st, clock := newStore(t)
		w := lostanswer.Wrap(st, func(op store.Op) bool { return op.Kind == store.OpPut })
		s := New(w, clock.Now)
		ctx := context.Background()
		r := Request{Account: "a", Key: "k", Fingerprint: "f"}
		prev, c, err := s.Claim(ctx, r)
		require.NoError(t, err, "our own claim is ours")
		require.Nil(t, prev)
		require.NotNil(t, c)
		require.NoError(t, s.Complete(ctx, c, Result{Status: 201, Body: []byte(`{"id":"o_1"}`)}), "our own result is ours")
		assert.Equal(t, 2, w.Hits())

		prev, _, err = New(st, clock.Now).Claim(ctx, r)
		require.NoError(t, err)
		require.NotNil(t, prev, "a retry replays")
		assert.JSONEq(t, `{"id":"o_1"}`, string(prev.Body))

		// Another request's claim, and another holder's result, are not ours.
		other := Request{Account: "a", Key: "k2", Fingerprint: "f"}
		_, c2, err := New(st, clock.Now).Claim(ctx, other)
		require.NoError(t, err)
		_, _, err = s.Claim(ctx, other)
		assert.ErrorIs(t, err, inFlight)
		require.NoError(t, New(st, clock.Now).Complete(ctx, c2, Result{Status: 201, Body: []byte(`{"id":"o_2"}`)}))
	})
}
