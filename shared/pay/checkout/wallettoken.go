package checkout

import (
	"context"
	"errors"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// A decoded wallet token (shared/domain/wallettokens: an Apple Pay or Google
// Pay token the wallet routes decoded into a payment_token_id) pays on
// /v2/payments as paymentMethod {"type": "applepay" or "googlepay",
// "paymentTokenId": "ptok_..."}, instead of the wallet's own token: the
// sealed card is opened with the card keys (one KMS Decrypt, deployed), run
// through the card processor as a network token (the wallet's cryptogram,
// when it had one, stands for 3-D Secure), and the token is marked used in
// the payment's own transaction, conditioned on the version read, so one
// token pays once whatever the retries or the races. It is the merchant's
// server that holds a payment_token_id, so a session's client route (the
// shopper's browser) does not take one.

const paramPaymentTokenID = "paymentMethod.paymentTokenId"

// runWalletToken authorises the payment of amount with the method's
// paymentTokenId. Errors: Invalid (the id's form, the wallet's token beside
// it, a type other than the token's, payment_token_expired,
// amount_mismatch, encrypted_data_unsupported without card keys), NotFound
// (no such token for the account), Conflict (payment_token_used), Forbidden
// (live keys: no live processor), Unavailable.
func (svc *Service) runWalletToken(ctx context.Context, c Caller, ch cards.Charge, m *MethodDetails, amount Amount) (*attempt, error) {
	switch {
	case !wallettokens.ValidID(m.PaymentTokenID):
		return nil, apierr.Invalidf(paramPaymentTokenID, "paymentMethod.paymentTokenId must be %s and 32 hex digits, as the wallet decode routes answer it", wallettokens.TokenIDPrefix)
	case m.Type != cards.ApplePay && m.Type != cards.GooglePay:
		return nil, apierr.Invalidf("paymentMethod.type", "a paymentTokenId pays as the wallet it came from: paymentMethod.type must be applepay or googlepay")
	case m.ApplePayToken != "" || m.GooglePayToken != "":
		return nil, apierr.Invalidf(paramPaymentTokenID, "send the wallet's token or its paymentTokenId, not both")
	}
	proc, conn, err := svc.router.For(ctx, c.AccountID, !c.TestMode)
	if err != nil {
		return nil, err
	}
	if svc.cardKeys == nil {
		return nil, invalid(paramPaymentTokenID, CodeEncryptedDataUnsupported, "this function holds no card keys: pay with a paymentTokenId on POST /v2/payments")
	}
	tok, err := wallettokens.NewTokens(svc.st, svc.cardKeys).Get(ctx, c.AccountID, m.PaymentTokenID)
	if err != nil {
		return nil, err
	}
	if string(tok.Type) != m.Type {
		return nil, apierr.Invalidf("paymentMethod.type", "payment token %s is a %s token: paymentMethod.type must be %s", tok.ID, tok.Type, tok.Type)
	}
	if err := tok.Payable(c.Now, amount.Value, amount.Currency, paramPaymentTokenID); err != nil {
		if errors.Is(err, wallettokens.ErrAmountMismatch) {
			return nil, invalid("amount", CodeAmountMismatch, "amount must be the amount the shopper approved in the wallet (%d %s)", tok.Amount.Value, tok.Amount.Currency)
		}
		return nil, err
	}
	card, err := svc.cardKeys.Open(ctx, tok.Sealed)
	switch {
	case errors.Is(err, cse.ErrUndecryptable):
		// Sealed to a card key that expired since: the token is stale.
		return nil, wallettokens.Expired(paramPaymentTokenID)
	case err != nil:
		return nil, apierr.Wrap("checkout.runWalletToken", apierr.Unavailable, err)
	}
	out, err := proc.AuthoriseNetworkToken(ctx, ch, cards.Card{Number: card.Number, ExpiryMonth: card.ExpiryMonth,
		ExpiryYear: card.ExpiryYear, HolderName: card.HolderName}, card.Cryptogram != "")
	if err != nil {
		e := *apierr.As(err)
		e.Param = paramPaymentTokenID
		return nil, &e
	}
	return &attempt{out: out, connector: conn, method: string(tok.Type), wallet: tok}, nil
}

// walletTokenLost words a commit that failed because another payment used
// tok first (nil when that is not why).
func (svc *Service) walletTokenLost(ctx context.Context, c Caller, tok *wallettokens.PaymentToken, paymentID string) error {
	t, err := wallettokens.NewTokens(svc.st, svc.cardKeys).Get(ctx, c.AccountID, tok.ID)
	if err != nil || t.TransactionID == "" || t.TransactionID == paymentID {
		return nil
	}
	return t.Used()
}
