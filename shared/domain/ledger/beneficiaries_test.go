package ledger_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/ledgertest"
)

// TestBeneficiaryAccountsAndAggregates: a distribution in two chunks, a
// transfer back, a payment order paid and one failed move money between
// the merchant's available balance and its beneficiaries' accounts; each
// beneficiary's balances live in its own partition, the aggregates follow
// every move, the merchant's partition holds no beneficiary balance, and
// the check agrees; on both stores.
func TestBeneficiaryAccountsAndAggregates(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now()
		b1, b2, b3 := ids.New(), ids.New(), ids.New()
		var b ledger.Batch
		b.Capture(ledger.Policy{}, ledger.Capture{AccountID: acct, Currency: "KZT", Source: tx("p1"), Amount: 100000}, now)
		require.NoError(t, write(t, st, &b, now))

		m := ledger.DistributionMove{AccountID: acct, Currency: "KZT", DistributionID: ids.New()}
		b = ledger.Batch{}
		head := b.Distribute(m, []ledger.Credit{{BeneficiaryID: b1, Amount: 30000}, {BeneficiaryID: b2, Amount: 20000}}, 10000, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 40000, balance(t, st, acct, "KZT", ledger.Available), "the whole distribution left available")
		assert.EqualValues(t, 10000, balance(t, st, acct, "KZT", ledger.Distributing))
		assert.EqualValues(t, 50000, balance(t, st, acct, "KZT", ledger.BeneficiariesHeld))

		m.Parent = head
		b = ledger.Batch{}
		b.DistributeChunk(m, []ledger.Credit{{BeneficiaryID: b3, Amount: 10000}}, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 0, balance(t, st, acct, "KZT", ledger.Distributing))
		assert.EqualValues(t, 60000, balance(t, st, acct, "KZT", ledger.BeneficiariesHeld))
		assert.EqualValues(t, 10000, balance(t, st, acct, "KZT", ledger.Beneficiary(b3)))

		b = ledger.Batch{}
		b.TransferToMerchant(ledger.BeneficiaryMove{AccountID: acct, Currency: "KZT", BeneficiaryID: b1,
			Source: ledger.Source{Type: ledger.SourceTransfer, ID: ids.New()}, Amount: 5000}, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 45000, balance(t, st, acct, "KZT", ledger.Available))

		paid := ledger.BeneficiaryMove{AccountID: acct, Currency: "KZT", BeneficiaryID: b1,
			Source: ledger.Source{Type: ledger.SourcePaymentOrder, ID: ids.New()}, Amount: 20000}
		failed := paid
		failed.BeneficiaryID, failed.Source.ID, failed.Amount = b2, ids.New(), 15000
		b = ledger.Batch{}
		b.ReserveForPaymentOrder(paid, now)
		b.ReserveForPaymentOrder(failed, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 5000, balance(t, st, acct, "KZT", ledger.Beneficiary(b1)))
		assert.EqualValues(t, 20000, balance(t, st, acct, "KZT", ledger.BeneficiaryReserved(b1)))
		assert.EqualValues(t, 35000, balance(t, st, acct, "KZT", ledger.BeneficiariesReserved))
		assert.EqualValues(t, 20000, balance(t, st, acct, "KZT", ledger.BeneficiariesHeld))

		b = ledger.Batch{}
		b.PaymentOrderPaid(paid, now)
		b.PaymentOrderFailed(failed, now)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 0, balance(t, st, acct, "KZT", ledger.BeneficiaryReserved(b1)))
		assert.EqualValues(t, 20000, balance(t, st, acct, "KZT", ledger.Beneficiary(b2)), "the failed order's reservation came back")
		assert.EqualValues(t, 0, balance(t, st, acct, "KZT", ledger.BeneficiariesReserved))
		assert.EqualValues(t, 35000, balance(t, st, acct, "KZT", ledger.BeneficiariesHeld))
		assert.EqualValues(t, 20000, balance(t, st, acct, "KZT", ledger.Bank))

		// An overdraft of a beneficiary is refused by the store, worded for it.
		b = ledger.Batch{}
		b.TransferToMerchant(ledger.BeneficiaryMove{AccountID: acct, Currency: "KZT", BeneficiaryID: b3,
			Source: ledger.Source{Type: ledger.SourceTransfer, ID: ids.New()}, Amount: 10001}, now)
		ops, err := b.Ops(now)
		require.NoError(t, err)
		e := ledger.Insufficient(st.Write(ctx, ops...), ops, "amount.value")
		require.NotNil(t, e)
		assert.Equal(t, apierr.InsufficientFunds, apierr.KindOf(e))
		assert.Contains(t, apierr.As(e).Message, "beneficiary "+b3+"'s KZT balance is 100.00 KZT")

		// The merchant's partition holds no beneficiary balance; each
		// beneficiary's partition holds its own.
		bs, err := ledger.Balances(ctx, st, acct)
		require.NoError(t, err)
		for _, x := range bs {
			_, _, isBen := x.Account.BeneficiaryID()
			assert.False(t, isBen, "%s in the merchant's partition", x.Account)
		}
		own, err := ledger.BeneficiaryBalances(ctx, st, acct, b1)
		require.NoError(t, err)
		require.Len(t, own, 2)
		assert.Equal(t, ledger.Beneficiary(b1), own[0].Account)
		assert.EqualValues(t, 5000, own[0].Amount)
		assert.Equal(t, ledger.BeneficiaryReserved(b1), own[1].Account)

		r := check(t, st, acct)
		assert.True(t, r.OK(), r.String())
		assert.Equal(t, 8, r.Entries, "the capture (settled at once) and seven moves")

		// A beneficiary's counter or an aggregate moved behind the entries'
		// back is found.
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "KZT", ledger.Beneficiary(b2)), 7, false, store.Always)))
		r = check(t, st, acct)
		require.Len(t, r.Differences, 1, r.String())
		assert.Equal(t, ledger.Difference{AccountID: acct, Currency: "KZT", Account: ledger.Beneficiary(b2), Stored: 20007, Derived: 20000}, r.Differences[0])
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "KZT", ledger.Beneficiary(b2)), -7, false, store.Always)))
		require.NoError(t, st.Write(ctx, store.Add(ledger.BalanceKey(acct, "KZT", ledger.BeneficiariesHeld), -1, false, store.Always)))
		r = check(t, st, acct)
		require.Len(t, r.Differences, 1, r.String())
		assert.Equal(t, ledger.BeneficiariesHeld, r.Differences[0].Account)
	})
}

// TestInvoicePaymentSettlesLikeACapture: a paid invoice comes in from the
// bank to pending, with the fee, and settles to available after the
// settlement delay, as a capture does.
func TestInvoicePaymentSettlesLikeACapture(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		acct, now := ids.New(), time.Now().UTC()
		inv := ids.New()
		var b ledger.Batch
		b.InvoicePayment(ledger.Policy{SettlementDelay: time.Hour, FeeBps: 50}, ledger.InvoicePayment{AccountID: acct, Currency: "KZT", InvoiceID: inv, Amount: 200000}, now)
		require.Len(t, b.Entries, 1)
		assert.Equal(t, ledger.EntryInvoicePayment, b.Entries[0].Type)
		require.NoError(t, write(t, st, &b, now))
		assert.EqualValues(t, 199000, balance(t, st, acct, "KZT", ledger.Pending))
		assert.EqualValues(t, 1000, balance(t, st, acct, "KZT", ledger.Fees))
		assert.EqualValues(t, -200000, balance(t, st, acct, "KZT", ledger.Bank))
		n, err := ledger.Settle(ctx, st, now.Add(time.Hour))
		require.NoError(t, err)
		assert.Equal(t, 1, n)
		assert.EqualValues(t, 199000, balance(t, st, acct, "KZT", ledger.Available))
		es, err := ledgertest.EntriesOf(ctx, st, acct, ledger.Source{Type: ledger.SourceInvoice, ID: inv})
		require.NoError(t, err)
		require.Len(t, es, 2)
		assert.Equal(t, []ledger.EntryType{ledger.EntryInvoicePayment, ledger.EntrySettlement}, []ledger.EntryType{es[0].Type, es[1].Type})
		assert.True(t, check(t, st, acct).OK())
	})
}

func TestBeneficiaryAccountNames(t *testing.T) {
	id := ids.New()
	got, reserved, ok := ledger.Beneficiary(id).BeneficiaryID()
	assert.True(t, ok)
	assert.False(t, reserved)
	assert.Equal(t, id, got)
	_, reserved, ok = ledger.BeneficiaryReserved(id).BeneficiaryID()
	assert.True(t, ok && reserved)
	for _, a := range []ledger.Account{ledger.Beneficiary("x"), ledger.Beneficiary(""), "beneficiary", ledger.BeneficiariesHeld, ledger.BeneficiariesReserved} {
		_, _, ok := a.BeneficiaryID()
		assert.False(t, ok, a)
	}
	assert.True(t, ledger.Beneficiary(id).Valid())
	assert.False(t, ledger.Beneficiary("x").Valid())
	assert.False(t, ledger.BeneficiariesHeld.Valid(), "an aggregate is never posted")
	assert.True(t, ledger.Bank.External())
	assert.False(t, ledger.Distributing.External())
}
