package checkout_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// walletToken decodes a wallet payment into a payment token for accountID,
// as the wallet routes do (shared/pay/walletpay), and returns its id.
func walletToken(t *testing.T, e *apitest.Env, accountID string, typ wallettokens.TokenType, number, cryptogram string, amount *money.Amount) string {
	t.Helper()
	keys, err := checkout.CardKeyring(e.Deps)
	require.NoError(t, err)
	tok, ops, err := wallettokens.NewTokens(e.Deps.Store, keys).Build(context.Background(), wallettokens.NewToken{
		AccountID: accountID, Type: typ, WalletTransaction: uuid.NewString(), Brand: "visa", ExpiryMonth: 3, ExpiryYear: 2030,
		Card: wallettokens.Card{Number: number, ExpiryMonth: "03", ExpiryYear: "2030", Cryptogram: cryptogram}, Amount: amount, Now: e.Clock.Now(),
	})
	require.NoError(t, err)
	require.NoError(t, e.Deps.Store.Write(context.Background(), ops...))
	return tok.ID
}

func tokenMethod(typ wallettokens.TokenType, id string) map[string]any {
	return map[string]any{"type": string(typ), "paymentTokenId": id}
}

func tokenOf(t *testing.T, e *apitest.Env, id string) *wallettokens.PaymentToken {
	t.Helper()
	keys, err := checkout.CardKeyring(e.Deps)
	require.NoError(t, err)
	tok, err := wallettokens.NewTokens(e.Deps.Store, keys).Get(context.Background(), e.Account.ID, id)
	require.NoError(t, err)
	return tok
}

// TestWalletTokenPaysOnce: a decoded Apple Pay or Google Pay token pays a
// /v2/payments payment (paymentMethod.paymentTokenId), is marked used by it
// in the same write, and pays nothing else.
func TestWalletTokenPaysOnce(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		id := walletToken(t, e, e.Account.ID, wallettokens.GooglePay, "4111111111111111", "AgAAAAAABk4DWZ4C28yUQAAAAAA=", nil)
		p := pay(t, e, "/v2/payments", paymentBody("ord-gpay", tokenMethod(wallettokens.GooglePay, id)), "PaymentResponse")
		assert.Equal(t, "Authorised", p.ResultCode)
		assert.Equal(t, p.PSPReference, tokenOf(t, e, id).TransactionID, "used by the payment")
		var rec *payments.Payment
		for _, sp := range storedPayments(t, e, e.Account.ID) {
			if sp.ID == p.PSPReference {
				rec = sp
			}
		}
		require.NotNil(t, rec)
		assert.Equal(t, "googlepay", rec.PaymentMethod)
		assert.Equal(t, "1111", rec.Last4)

		r := e.Do("POST", "/v2/payments", paymentBody("ord-gpay-2", tokenMethod(wallettokens.GooglePay, id)))
		require.Equal(t, 409, r.Status, "%s", r.Body)
		assert.Equal(t, "payment_token_used", r.Err(t)["code"])
		assert.Contains(t, r.Err(t)["message"], p.PSPReference)

		// An Apple Pay token that carries the approved amount pays that
		// amount only.
		apple := walletToken(t, e, e.Account.ID, wallettokens.ApplePay, "5555555555554444", "AgAA", &money.Amount{Value: 2500, Currency: "EUR"})
		r = e.Do("POST", "/v2/payments", paymentBody("ord-apay", tokenMethod(wallettokens.ApplePay, apple)))
		require.Equal(t, 400, r.Status, "%s", r.Body)
		assert.Equal(t, "amount_mismatch", r.Err(t)["code"])
		body := paymentBody("ord-apay", tokenMethod(wallettokens.ApplePay, apple))
		body["amount"] = map[string]any{"value": 2500, "currency": "EUR"}
		assert.Equal(t, "Authorised", pay(t, e, "/v2/payments", body, "PaymentResponse").ResultCode)
	})
}

// TestWalletTokenRace: twenty payments of one token at once, each with its
// own Idempotency-Key: one is authorised, every other is a 409
// payment_token_used, and one payment is recorded.
func TestWalletTokenRace(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		id := walletToken(t, e, e.Account.ID, wallettokens.GooglePay, "4111111111111111", "", nil)
		before := len(storedPayments(t, e, e.Account.ID))
		const n = 20
		statuses := make([]int, n)
		codes := make([]any, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				r := e.Do("POST", "/v2/payments", paymentBody("ord-race", tokenMethod(wallettokens.GooglePay, id)), "Idempotency-Key", uuid.NewString())
				statuses[i] = r.Status
				if r.Status != 200 {
					codes[i] = r.Err(t)["code"]
				}
			})
		}
		wg.Wait()
		ok := 0
		for i, s := range statuses {
			if s == 200 {
				ok++
				continue
			}
			assert.Equal(t, 409, s)
			assert.Equal(t, "payment_token_used", codes[i])
		}
		assert.Equal(t, 1, ok, "one payment of the token")
		assert.Len(t, storedPayments(t, e, e.Account.ID), before+1)
		assert.NotEmpty(t, tokenOf(t, e, id).TransactionID)
	})
}

func TestWalletTokenBadInput(t *testing.T) {
	e := newEnv(t)
	id := walletToken(t, e, e.Account.ID, wallettokens.GooglePay, "4111111111111111", "", nil)
	other, _ := e.NewAccount(accounts.Test)
	theirs := walletToken(t, e, other.ID, wallettokens.GooglePay, "4111111111111111", "", nil)
	for name, c := range map[string]struct {
		pm           map[string]any
		status       int
		code, param  string
		noParamCheck bool
	}{
		"malformed id":         {tokenMethod(wallettokens.GooglePay, "ptok_xyz"), 400, "parameter_invalid", "paymentMethod.paymentTokenId", false},
		"unknown id":           {tokenMethod(wallettokens.GooglePay, "ptok_"+"0123456789abcdef0123456789abcdef"), 404, "resource_missing", "", true},
		"another account's":    {tokenMethod(wallettokens.GooglePay, theirs), 404, "resource_missing", "", true},
		"another wallet":       {tokenMethod(wallettokens.ApplePay, id), 400, "parameter_invalid", "paymentMethod.type", false},
		"a card type":          {map[string]any{"type": "scheme", "paymentTokenId": id}, 400, "parameter_invalid", "paymentMethod.type", false},
		"both wallet's tokens": {map[string]any{"type": "googlepay", "paymentTokenId": id, "googlePayToken": "test_abc"}, 400, "parameter_invalid", "paymentMethod.paymentTokenId", false},
	} {
		t.Run(name, func(t *testing.T) {
			r := e.Do("POST", "/v2/payments", paymentBody("ord-bad", c.pm))
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			assert.Equal(t, c.code, r.Err(t)["code"])
			if !c.noParamCheck {
				assert.Equal(t, c.param, r.Err(t)["param"])
			}
		})
	}
	assert.Empty(t, tokenOf(t, e, id).TransactionID, "no refused request used the token")

	// Expired: an hour after its decode.
	e.Clock.Advance(wallettokens.TokenTTL + time.Minute)
	r := e.Do("POST", "/v2/payments", paymentBody("ord-late", tokenMethod(wallettokens.GooglePay, id)))
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "payment_token_expired", r.Err(t)["code"])

	// The shopper's browser (a session's client route) does not take one.
	fresh := walletToken(t, e, e.Account.ID, wallettokens.GooglePay, "4111111111111111", "", nil)
	s := createSession(t, e, nil)
	ck := e.NewClientKey(origin)
	r = clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData,
		"paymentMethod": tokenMethod(wallettokens.GooglePay, fresh)})
	require.Equal(t, 400, r.Status, "%s", r.Body)
	assert.Equal(t, "paymentMethod.paymentTokenId", r.Err(t)["param"])
}
