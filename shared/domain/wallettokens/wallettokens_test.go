package wallettokens_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestPayable(t *testing.T) {
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	tok := wallettokens.PaymentToken{ID: wallettokens.TokenID("acct", wallettokens.ApplePay, "txn"), ExpiresAt: now.Add(time.Hour),
		Amount: &money.Amount{Value: 1000, Currency: "EUR"}}
	assert.NoError(t, tok.Payable(now, 1000, "EUR", "payment_token_id"))
	assert.ErrorIs(t, tok.Payable(now, 999, "EUR", "payment_token_id"), wallettokens.ErrAmountMismatch)
	assert.ErrorIs(t, tok.Payable(now, 1000, "USD", "payment_token_id"), wallettokens.ErrAmountMismatch)

	err := tok.Payable(now.Add(time.Hour), 1000, "EUR", "paymentMethod.paymentTokenId")
	assert.True(t, apierr.HasCode(err, wallettokens.CodePaymentTokenExpired), "%v", err)
	assert.Equal(t, "paymentMethod.paymentTokenId", apierr.As(err).Param, "the caller's field")

	used := tok
	used.TransactionID = "pay_1"
	err = used.Payable(now, 1000, "EUR", "payment_token_id")
	assert.True(t, apierr.HasCode(err, wallettokens.CodePaymentTokenUsed), "%v", err)
	assert.Contains(t, err.Error(), "pay_1", "names the payment that used it")
	assert.False(t, errors.Is(err, wallettokens.ErrAmountMismatch))

	// Google Pay's tokens carry no amount: any amount pays.
	tok.Amount = nil
	assert.NoError(t, tok.Payable(now, 1, "KZT", "payment_token_id"))
}

func TestIDs(t *testing.T) {
	id := wallettokens.TokenID("acct", wallettokens.GooglePay, "msg-1")
	assert.True(t, wallettokens.ValidID(id))
	assert.Equal(t, id, wallettokens.TokenID("acct", wallettokens.GooglePay, "msg-1"), "the same wallet payment, the same token")
	assert.NotEqual(t, id, wallettokens.TokenID("other", wallettokens.GooglePay, "msg-1"), "per account")
	assert.NotEqual(t, id, wallettokens.TokenID("acct", wallettokens.ApplePay, "msg-1"), "per wallet")
	for _, bad := range []string{"", "ptok_", "ptok_XYZ", id + "0", "tok_" + id[5:], "ptok_" + "G123456789abcdef0123456789abcdef"} {
		assert.False(t, wallettokens.ValidID(bad), bad)
	}
}
