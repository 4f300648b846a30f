package walletpay

import (
	"context"
	"errors"
	"strconv"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/walletpay/applepay"
	"github.com/paygate/paygate/shared/pay/walletpay/googlepay"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/store"
)

// MaxToken is the longest token accepted (an Apple Pay token with its
// certificates is about 5 KB, a Google Pay one about 2 KB; base64 adds a
// third).
const MaxToken = 20000

// DecodeRequest is the body of both decode routes.
type DecodeRequest struct {
	Token string `json:"token" maxlen:"20000"`
}

// DecodeInput is a decode, typed.
type DecodeInput struct {
	Caller
	Token string
	Idem  *idempotency.Call // optional: honoured when sent
}

// Decoded is a decode's answer: a new payment token (Created), or the
// token of a wallet transaction decoded before (the same token again).
type Decoded struct {
	Token   wallettokens.TokenView
	Created bool
}

func invalidToken(code apierr.Code, reason string) error {
	return apierr.New(code, "%s", reason).WithParam("token")
}

// AppleDecode verifies and decrypts an Apple Pay EC_v1 token (the test
// wallets' root and processing key in test mode; Apple Root CA - G3 and the
// platform's processing keys in live mode) and keeps its card as a
// single-use payment token for POST /v1/payments/direct. The same Apple Pay
// transaction decoded again answers the same payment_token_id (200), so it
// pays once. The decrypted number and cryptogram are never returned,
// logged or stored in clear. Errors: Invalid (token: applepay_token_invalid
// saying which check failed: the signature chain, a signing time more than
// applepay.MaxAge old, not for this merchant, undecryptable;
// currency_not_supported; card_not_supported), Forbidden (live mode not
// configured), IdempotencyMismatch, Unavailable.
func (s *Service) AppleDecode(ctx context.Context, in DecodeInput) (*Decoded, error) {
	if in.Token == "" {
		return nil, apierr.Missing("token")
	}
	s.init()
	pd, err := applepay.Parse(in.Token)
	if err != nil {
		return nil, appleRefusal(err)
	}
	opener := s.test.AppleOpener()
	if !in.TestMode {
		live, err := s.liveConfig(ctx)
		if err != nil {
			return nil, err
		}
		opener = applepay.Opener{Roots: s.appleRoots, Keys: live.AppleKeys}
	}
	d, err := opener.Open(pd, s.clock())
	if err != nil {
		s.log.InfoContext(ctx, "apple pay token refused", "reason", apierr.As(err).Error())
		return nil, appleRefusal(err)
	}
	currency, ok := applepay.CurrencyOf(d.CurrencyCode)
	if !ok {
		return nil, invalidToken(money.CodeCurrencyNotSupported, "the token's currency (ISO 4217 "+d.CurrencyCode+") is not one the platform takes")
	}
	month, year, _ := d.ExpiryMonthYear()
	return s.keep(ctx, in, wallettokens.NewToken{Type: wallettokens.ApplePay, WalletTransaction: d.TransactionID,
		Card:   wallettokens.Card{Number: d.ApplicationPrimaryAccountNumber, ExpiryMonth: twoDigits(month), ExpiryYear: strconv.Itoa(year), Cryptogram: d.PaymentData.OnlinePaymentCryptogram, ECI: d.PaymentData.ECIIndicator},
		Amount: &money.Amount{Value: d.TransactionAmount, Currency: currency}, ExpiryMonth: month, ExpiryYear: year})
}

func appleRefusal(err error) error {
	var e *applepay.Error
	if errors.As(err, &e) {
		return invalidToken(CodeApplePayTokenInvalid, string(e.Reason))
	}
	return apierr.Wrap("walletpay.AppleDecode", apierr.Internal, err)
}

// GoogleDecode verifies and decrypts a Google Pay ECv2 token (the test
// wallets' root key and recipient key in test mode; Google's published
// root keys and the platform's recipient keys in live mode), checks it was
// issued for this account (gatewayMerchantId) and keeps its card as a single-use payment
// token, as AppleDecode does (the same messageId is the same token).
// Errors: Invalid (token: googlepay_token_invalid saying which check
// failed; card_not_supported), Forbidden, IdempotencyMismatch, Unavailable.
func (s *Service) GoogleDecode(ctx context.Context, in DecodeInput) (*Decoded, error) {
	if in.Token == "" {
		return nil, apierr.Missing("token")
	}
	t, err := googlepay.Parse(in.Token)
	if err != nil {
		return nil, googleRefusal(err)
	}
	opener := s.test.GoogleOpener()
	if !in.TestMode {
		live, err := s.liveConfig(ctx)
		if err != nil {
			return nil, err
		}
		roots, err := s.googleRoots(ctx)
		if err != nil {
			return nil, apierr.Wrap("walletpay.GoogleDecode", apierr.Unavailable, err)
		}
		opener = googlepay.Opener{RootKeys: roots, RecipientID: "gateway:" + googlepay.GatewayID, Keys: live.GoogleRecipientKeys}
	}
	m, err := opener.Open(t, s.clock())
	if err != nil {
		s.log.InfoContext(ctx, "google pay token refused", "reason", apierr.As(err).Error())
		return nil, googleRefusal(err)
	}
	if m.GatewayMerchantID != in.AccountID {
		return nil, invalidToken(CodeGooglePayTokenInvalid, "the token was issued for another merchant (its gatewayMerchantId is not this account's): use the PaymentDataRequest of POST /v1/googlepay/sessions")
	}
	if m.PaymentMethod != "CARD" || m.MessageID == "" {
		return nil, invalidToken(CodeGooglePayTokenInvalid, string(googlepay.BadPaymentData))
	}
	pm := m.PaymentMethodDetails
	return s.keep(ctx, in, wallettokens.NewToken{Type: wallettokens.GooglePay, WalletTransaction: m.MessageID,
		Card: wallettokens.Card{Number: pm.PAN, ExpiryMonth: twoDigits(pm.ExpirationMonth), ExpiryYear: strconv.Itoa(pm.ExpirationYear),
			Cryptogram: pm.Cryptogram, ECI: pm.ECIIndicator},
		ExpiryMonth: pm.ExpirationMonth, ExpiryYear: pm.ExpirationYear})
}

func googleRefusal(err error) error {
	var e *googlepay.Error
	if errors.As(err, &e) {
		return invalidToken(CodeGooglePayTokenInvalid, string(e.Reason))
	}
	return apierr.Wrap("walletpay.GoogleDecode", apierr.Internal, err)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// keep seals the card into a payment token and stores it with the keyed
// call's record; a token of the same wallet transaction stored before is
// answered as it stands (200), never written twice.
func (s *Service) keep(ctx context.Context, in DecodeInput, nt wallettokens.NewToken) (*Decoded, error) {
	brand := cards.Brand(nt.Card.Number)
	if brand == "" || !cards.Luhn(nt.Card.Number) {
		return nil, invalidToken(cards.CodeCardNotSupported, "the token's card is not a visa, mc or amex card")
	}
	nt.AccountID, nt.Livemode, nt.Brand, nt.Now = in.AccountID, !in.TestMode, brand, s.clock()
	tok, ops, err := s.tokens.Build(ctx, nt)
	if err != nil {
		return nil, err
	}
	out := &Decoded{Token: tok.View(), Created: true}
	err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Created: true, Kind: wallettokens.KindToken, Value: out.Token}, ops...)
	if _, ok := store.IsConditionFailed(err); ok {
		// Decoded before: the token as it stands (used, perhaps); no token
		// of this account means another account claimed the transaction.
		prev, gerr := s.tokens.Get(ctx, in.AccountID, tok.ID)
		if apierr.KindOf(gerr) == apierr.NotFound {
			return nil, wallettokens.ClaimedElsewhere("token")
		}
		if gerr != nil {
			return nil, gerr
		}
		out = &Decoded{Token: prev.View()}
		err = idempotency.Commit(ctx, s.st, in.Idem, idempotency.Outcome{Kind: wallettokens.KindToken, Value: out.Token})
	}
	if err != nil {
		if idempotency.FromKey(err) {
			return nil, err
		}
		return nil, apierr.Wrap("walletpay.keep", apierr.Unavailable, err)
	}
	return out, nil
}
