package adyencheckout

import (
	"crypto/rsa"
	"encoding/json"
	"errors"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/cse"
)

// encrypter seals card fields to the provider's client-side-encryption key.
type encrypter struct {
	kid string
	pub *rsa.PublicKey
}

// parseKey reads a JWK (JSON) holding an RSA public key.
func parseKey(raw string) (*encrypter, error) {
	var k jose.JSONWebKey
	if err := k.UnmarshalJSON([]byte(raw)); err != nil {
		return nil, errors.New("adyencheckout: EncryptionKey is not a JWK")
	}
	pub, ok := k.Key.(*rsa.PublicKey)
	if !ok || !k.IsPublic() {
		return nil, errors.New("adyencheckout: EncryptionKey must be an RSA public key")
	}
	if k.Algorithm != "" && k.Algorithm != cse.Alg {
		return nil, errors.New("adyencheckout: EncryptionKey's alg must be " + cse.Alg)
	}
	return &encrypter{kid: k.KeyID, pub: pub}, nil
}

// field seals one field as Adyen's secured fields do: a JWE over
// {"<name>": value, "generationtime": ...}.
func (e *encrypter) field(name, value string, now time.Time) (string, error) {
	b, err := json.Marshal(map[string]string{name: value, "generationtime": cse.FormatGenerationTime(now)})
	if err != nil {
		return "", err
	}
	return cse.Encrypt(e.kid, e.pub, b)
}

// card fills m's encrypted fields with c's (a CVC only when there is one).
func (e *encrypter) card(m *methodDetails, c cards.Card, now time.Time) error {
	fields := []struct {
		dst         *string
		name, value string
	}{
		{&m.EncryptedCardNumber, "number", c.Number},
		{&m.EncryptedExpiryMonth, "expiryMonth", c.ExpiryMonth},
		{&m.EncryptedExpiryYear, "expiryYear", c.ExpiryYear},
		{&m.EncryptedSecurityCode, "cvc", c.CVC},
	}
	for _, f := range fields {
		if f.value == "" {
			continue
		}
		s, err := e.field(f.name, f.value, now)
		if err != nil {
			return err
		}
		*f.dst = s
	}
	return nil
}
