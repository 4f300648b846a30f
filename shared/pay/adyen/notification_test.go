package adyen_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/adyen"
)

// Adyen's documented example (its HMAC signature guide), which Adyen's
// Python library's generate_notification_sig also gives.
func TestSignatureIsAdyensKnownAnswer(t *testing.T) {
	it := adyen.NotificationRequestItem{
		PSPReference: "7914073381342284", MerchantAccountCode: "TestMerchant",
		MerchantReference: "TestPayment-1407325143704", Amount: adyen.Amount{Value: 1130, Currency: "EUR"},
		EventCode: "AUTHORISATION", Success: "true",
	}
	const key = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
	assert.Equal(t, "7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true", it.SigningString())
	sig, err := it.Signature(key)
	require.NoError(t, err)
	assert.Equal(t, "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=", sig)

	require.NoError(t, it.Sign(key))
	assert.True(t, it.Valid(key))
	tampered := it
	tampered.Amount.Value = 1131
	assert.False(t, tampered.Valid(key), "a changed amount fails")
	assert.False(t, it.Valid("0F1E2D3C4B5A69788796A5B4C3D2E1F00F1E2D3C4B5A69788796A5B4C3D2E1F0"), "another key fails")
	unsigned := it
	unsigned.AdditionalData = nil
	assert.False(t, unsigned.Valid(key), "no signature fails")
	assert.False(t, it.Valid("not hex"))
	_, err = it.Signature("not hex")
	assert.Error(t, err)
}

func TestAccepted(t *testing.T) {
	for body, want := range map[string]bool{
		"[accepted]": true, "[accepted]\n": true, " [accepted] ": true,
		"": false, "accepted": false, "[ACCEPTED]": false, `{"notificationResponse":"[accepted]"}`: false,
	} {
		assert.Equal(t, want, adyen.IsAccepted([]byte(body)), "%q", body)
	}
}
