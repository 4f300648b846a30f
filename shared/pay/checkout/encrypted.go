package checkout

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Card fields encrypted in the browser (Adyen's client-side encryption, as
// the Drop-in and Adyen's own components send them): each of
// encryptedCardNumber, encryptedExpiryMonth, encryptedExpiryYear and
// encryptedSecurityCode is a compact JWE (RSA-OAEP-256, A256CBC-HS512,
// version 1) to one of the platform's card keys (shared/domain/cse, the
// keyring direct payments use), over a JSON payload of its field and the
// generationtime: {"number": ..., "generationtime": ...}. The Drop-in puts
// the holder's name in the number's payload ("holderName"), as Adyen's
// card JSON allows, so no card field of the page travels in clear; a clear
// paymentMethod.holderName is taken too, as Adyen's components send it.
//
// With a test key an encrypted field may instead be test_ and the plain
// value (the sandbox's scripts), or the card may come in clear (number,
// expiryMonth, expiryYear, cvc); a live key takes JWEs only.

// encryptedField is one encrypted field of a card: where it goes, the
// request field that carried it and the payload's field that holds it.
type encryptedField struct {
	dst     *string
	param   string // paymentMethod.<field>
	value   string // the JWE
	payload func(cse.Card) string
}

// CodeEncryptedCardInvalid is every JWE of a card that cannot be opened
// (direct payments' encrypted_card and checkout's encrypted fields alike):
// the one answer says what to do, never why it failed.
var CodeEncryptedCardInvalid = apierr.Register(apierr.CodeInfo{Name: "encrypted_card_invalid", Kind: apierr.Invalid,
	Meaning: "The encrypted card is not a JWE this account's client-side encryption key opens, or its fields are malformed; param names the field."})

// undecryptable is the answer to a field that does not open with an active
// key, or whose payload lacks its field.
func undecryptable(param string) *apierr.Error {
	return apierr.New(CodeEncryptedCardInvalid, "%s could not be decrypted: encrypt it with the current key (the session setup's clientEncryptionKey, or GET /v1/payments/direct/keys: alg RSA-OAEP-256, enc A256CBC-HS512, version 1), at most 24 hours before the payment", param).WithParam(param)
}

// isJWE reports whether an encrypted field carries a JWE rather than test_
// data (empty: not sent).
func isJWE(v string) bool { return v != "" && !strings.HasPrefix(v, testPrefix) }

// openEncrypted decrypts the method's encrypted fields into c, at once (one
// Decrypt each, deployed: a KMS call), and returns the holder's name the
// number's payload carried, if any. Errors: Invalid
// (encrypted_card_invalid naming the first field that does not open;
// encrypted_data_unsupported where the service holds no card keys),
// Unavailable (the keyring or its backend cannot be reached).
func (svc *Service) openEncrypted(ctx context.Context, m *MethodDetails, c *cards.Card) (holder string, err error) {
	fields := []encryptedField{
		{&c.Number, "paymentMethod.encryptedCardNumber", m.EncryptedCardNumber, func(p cse.Card) string { return p.Number }},
		{&c.ExpiryMonth, "paymentMethod.encryptedExpiryMonth", m.EncryptedExpiryMonth, func(p cse.Card) string { return p.ExpiryMonth }},
		{&c.ExpiryYear, "paymentMethod.encryptedExpiryYear", m.EncryptedExpiryYear, func(p cse.Card) string { return p.ExpiryYear }},
		{&c.CVC, "paymentMethod.encryptedSecurityCode", m.EncryptedSecurityCode, func(p cse.Card) string { return p.CVC }},
	}
	var open []encryptedField
	for _, f := range fields {
		if isJWE(f.value) {
			open = append(open, f)
		}
	}
	if len(open) == 0 {
		return "", nil
	}
	if svc.cardKeys == nil {
		return "", invalid(open[0].param, CodeEncryptedDataUnsupported, "this function holds no card keys: send encrypted card fields to /v2/payments or the Drop-in's /v2/client routes")
	}
	got := make([]cse.Card, len(open))
	errs := make([]error, len(open))
	var wg sync.WaitGroup
	for i, f := range open {
		wg.Go(func() { got[i], errs[i] = svc.cardKeys.Open(ctx, f.value) })
	}
	wg.Wait()
	for i, f := range open {
		switch {
		case errors.Is(errs[i], cse.ErrUndecryptable):
			return "", undecryptable(f.param)
		case errs[i] != nil:
			return "", apierr.Wrap("checkout.openEncrypted", apierr.Unavailable, errs[i])
		}
		v := f.payload(got[i])
		if v == "" {
			return "", undecryptable(f.param)
		}
		*f.dst = v
		if f.dst == &c.Number {
			holder = got[i].HolderName
		}
	}
	return holder, nil
}

// EncryptionKey is a card key's public half as the Drop-in takes it: the
// JWK WebCrypto imports, and the format's parameters. Nothing in it is
// secret (direct payments list the same keys, GET /v1/payments/direct/keys).
type EncryptionKey struct {
	KID     string         `json:"kid"`
	Alg     string         `json:"alg"`
	Enc     string         `json:"enc"`
	Version string         `json:"version"`
	JWK     map[string]any `json:"jwk"`
}

// encryptionKey is the current card key, or nil where the service holds no
// keyring or the keyring no key. The ring is read at most once a minute
// (cse.CacheFor), so a setup costs no read for it. Errors: Unavailable.
func (svc *Service) encryptionKey(ctx context.Context) (*EncryptionKey, error) {
	if svc.cardKeys == nil {
		return nil, nil
	}
	k, ok, err := svc.cardKeys.Current(ctx)
	if err != nil {
		return nil, apierr.Wrap("checkout.encryptionKey", apierr.Unavailable, err)
	}
	if ok {
		jwk, err := k.JWKMap()
		if err != nil {
			return nil, apierr.Wrap("checkout.encryptionKey", apierr.Internal, err)
		}
		return &EncryptionKey{KID: k.KID, Alg: cse.Alg, Enc: cse.Enc, Version: cse.Version, JWK: jwk}, nil
	}
	return nil, nil
}
