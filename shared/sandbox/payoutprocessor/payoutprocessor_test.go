package payoutprocessor

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cardpayouts"
	cardrules "github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func TestSandboxPayoutCardsAreValidCards(t *testing.T) {
	for number, outcome := range cards {
		assert.True(t, cardrules.Luhn(number), "%s (%s) passes Luhn", number, outcome)
		assert.Contains(t, []string{"visa", "mc"}, cardrules.Brand(number), number)
	}
	assert.Equal(t, ReasonNotSandboxCard, Outcome("4111111111111111"))
}

// TestPaysOncePerPayout: asked twice, the sandbox answers its first answer
// and keeps one record; the timeout card gets no answer and no record; a
// live payout is refused.
func TestPaysOncePerPayout(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	p := New(st, func() time.Time { return at })
	ctx := context.Background()

	paid := p.Enrol("4000056655665556")
	res, err := p.Pay(ctx, cardpayouts.Request{PayoutID: "po_1", Amount: 100, Currency: "EUR", Card: paid})
	require.NoError(t, err)
	assert.Equal(t, cardpayouts.Result{Paid: true, At: at}, res)
	again, err := p.Pay(ctx, cardpayouts.Request{PayoutID: "po_1", Card: p.Enrol("4000000000009995")})
	require.NoError(t, err)
	assert.Equal(t, res, again, "the first answer stands")

	_, err = p.Pay(ctx, cardpayouts.Request{PayoutID: "po_2", Card: p.Enrol("4000000000000119")})
	assert.ErrorIs(t, err, cardpayouts.ErrNoAnswer)
	_, found, err := p.Lookup(ctx, "po_2")
	require.NoError(t, err)
	assert.False(t, found)

	res, err = p.Pay(ctx, cardpayouts.Request{PayoutID: "po_3", Livemode: true, Card: paid})
	require.NoError(t, err)
	assert.Equal(t, cardpayouts.ReasonUnavailable, res.Reason)
	assert.EqualValues(t, 4, p.Calls.Load())
}
