package bank

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// TestAnswersByIBAN: the slow IBAN is in process until SlowFor has passed,
// then paid; a refusal's answer stands when asked again; the no-answer IBAN
// never answers nor keeps a record; a live order is refused.
func TestAnswersByIBAN(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	b := New(st, func() time.Time { return now })
	ctx := context.Background()
	iban := func(n string) string {
		for i, o := range IBANs {
			if o == n {
				return i
			}
		}
		t.Fatalf("no IBAN for %s", n)
		return ""
	}

	_, err = b.Pay(ctx, banking.Request{PaymentOrderID: "po_slow", IBAN: iban(OutcomeSlow)})
	assert.ErrorIs(t, err, banking.ErrInProcess)
	now = now.Add(SlowFor)
	res, err := b.Pay(ctx, banking.Request{PaymentOrderID: "po_slow", IBAN: iban(OutcomeSlow)})
	require.NoError(t, err)
	assert.True(t, res.Paid)

	res, err = b.Pay(ctx, banking.Request{PaymentOrderID: "po_closed", IBAN: iban(OutcomeClosed)})
	require.NoError(t, err)
	assert.Equal(t, banking.ReasonAccountClosed, res.Reason)
	again, err := b.Pay(ctx, banking.Request{PaymentOrderID: "po_closed", IBAN: iban(OutcomePaid)})
	require.NoError(t, err)
	assert.Equal(t, res, again, "the first answer stands")

	_, err = b.Pay(ctx, banking.Request{PaymentOrderID: "po_none", IBAN: iban(OutcomeNoAnswer)})
	assert.ErrorIs(t, err, banking.ErrNoAnswer)
	_, found, err := b.Lookup(ctx, "po_none")
	require.NoError(t, err)
	assert.False(t, found)

	res, err = b.Pay(ctx, banking.Request{PaymentOrderID: "po_live", Livemode: true, IBAN: iban(OutcomePaid)})
	require.NoError(t, err)
	assert.Equal(t, banking.ReasonBankUnavailable, res.Reason)
	assert.EqualValues(t, 6, b.Calls.Load())
}
