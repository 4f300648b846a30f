package apitest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sandbox processor's test cards (docs/payments.md, "Sandbox processor"), each as
// the guide prints it, with spaces.
var sandboxCards = []string{
	"4111 1111 1111 1111", "5555 5555 5555 4444", "3700 0000 0000 002", "4917 6100 0000 0000",
	"5454 5454 5454 5454", "4212 3456 7890 1237", "4000 0000 0000 0010", "4000 0000 0000 0002", "4000 0000 0000 0341",
}

func TestFindCardDataCatchesEverySandboxCard(t *testing.T) {
	for _, card := range sandboxCards {
		whole := strings.ReplaceAll(card, " ", "")
		dashed := strings.ReplaceAll(card, " ", "-")
		for _, line := range []string{
			`{"level":"INFO","msg":"request","number":"` + whole + `"}`,
			`{"level":"INFO","msg":"request","number":"` + card + `"}`,
			`{"msg":"body","encryptedCardNumber":"test_` + whole + `"}`,
			`card ` + dashed + ` declined`,
			whole,
		} {
			found := FindCardData(line)
			if assert.Len(t, found, 1, "%s", line) {
				assert.Contains(t, found[0], "card number "+whole[:6]+"*")
				assert.NotContains(t, found[0], whole, "the report masks the number")
			}
		}
	}
}

func TestFindCardDataCatchesOtherShapes(t *testing.T) {
	for _, line := range []string{
		`pan=378282246310005`,                        // Amex, whole
		`card 3782 822463 10005 on file`,             // Amex, 4-6-5
		`{"n":"6011 1111 1111 1117"}`,                // Discover
		`{"n":"2223000048400011"}`,                   // Mastercard 2-series
		`{"n":"4111111111111111110"}`,                // 19-digit Visa passing Luhn
		`amount 1000 4111111111111111`,               // beside another number
		`"a":"4111111111111111","b":"0000"`,          // followed by more
		"line one\nsecond line 5555555555554444 end", // any line
	} {
		assert.NotEmpty(t, FindCardData(line), "%s", line)
	}
	found := FindCardData("ok\nok\n4111111111111111")
	require.Len(t, found, 1)
	assert.Contains(t, found[0], "line 3:")
	assert.Len(t, FindCardData(`"a":"4111111111111111","b":"5555555555554444"`), 2, "two cards on one line")
}

// What a log holds besides cards must not trip the scan: it would fail every
// run, and a scan people learn to ignore catches nothing.
func TestFindCardDataIgnoresWhatIsNotACard(t *testing.T) {
	for _, line := range []string{
		`{"request_id":"01936c1a-4f8e-7c3b-9a2d-1e5f6a7b8c9d","latency_ms":0.412}`,
		`{"id":"12345678-1234-7234-8234-123456789012"}`,               // an all-digit UUID
		`{"hash":"55555555555544449b0c3f2e1d4a5b6c7d8e9f0a1b2c3d4e"}`, // digits inside hex
		`{"ref":"bench-pay-1732377600123456789-17"}`,                  // a Unix time in ns
		`{"n":"4111111111111112"}`,                                    // fails Luhn
		`{"n":"7111111111111117"}`,                                    // no card network starts with 7
		`{"n":"411111111111"}`,                                        // 12 digits: too short
		`{"time":"2026-11-23T17:05:58.123456789Z","amount":100000}`,
		`{"code":"invalid_cvc","param":"paymentMethod.cvc","message":"cvc must have 3 digits"}`,
		`{"msg":"expiry","expiryMonth":"03","expiryYear":"2030"}`,
		`{"pspReference":"1732377600123456"}`,
	} {
		assert.Empty(t, FindCardData(line), "%s", line)
	}
}

func TestFindCardDataCatchesCVCs(t *testing.T) {
	for _, line := range []string{
		`{"cvc":"737"}`,
		`{"cvc": "7373"}`,
		`{"paymentMethod":{"type":"scheme","cvc":737}}`,
		`cvc=737`,
		`GET /x?cvv=123`,
		`{"CVV2":"123"}`,
		`{"securityCode":"737"}`,
		`{"security_code":"737"}`,
		`{"encryptedSecurityCode":"test_737"}`,
		`{"encryptedSecurityCode": "adyenjs_0_1_25$MIIB..."}`,
	} {
		found := FindCardData(line)
		if assert.Len(t, found, 1, "%s", line) {
			assert.Equal(t, "line 1: a CVC", found[0])
		}
	}
}

func TestLuhn(t *testing.T) {
	assert.True(t, luhn("4111111111111111"))
	assert.True(t, luhn("370000000000002"))
	assert.True(t, luhn("79927398713"))
	assert.False(t, luhn("79927398710"))
	assert.False(t, luhn("4111111111111112"))
}

func TestScanKeys(t *testing.T) {
	keys := []string{"sk_test_abcdefghijklmnopqrstuvwx", "ck_test_ABCDEFGHIJKLMNOPQRSTUVWX"}
	assert.NoError(t, scanKeys(`{"msg":"request","account":"acc_1"}`, keys))
	assert.ErrorContains(t, scanKeys(`{"authorization":"sk_test_abcdefghijklmnopqrstuvwx"}`, keys), "1 of 2 keys")
	assert.ErrorContains(t, scanKeys(`{"k":"ABCDEFGHIJKLMNOPQRSTUVWX"}`, keys), "1 of 2 keys", "the random part alone")
	assert.ErrorContains(t, scanKeys("", keys), "no log output")
	assert.ErrorContains(t, scanKeys("x", nil), "no keys")
}

func TestFindCardDataCatchesCryptograms(t *testing.T) {
	for _, line := range []string{
		`{"onlinePaymentCryptogram":"AgAAAAAABk4DWZ4C28yUQAAAAAA="}`,
		`{"paymentData":{"onlinePaymentCryptogram": "Af9x/QwAA/DjmU65oyc1MAABAAA="}}`,
		`cryptogram=AgAAAAAABk4DWZ4C28yUQAAAAAA=`,
		`{"Cryptogram":"AgAAAAAABk4DWZ4C28yUQAAAAAA="}`,
	} {
		assert.NotEmpty(t, FindCardData(line), "%s", line)
	}
	for _, line := range []string{`{"cryptogram_present":true}`, `{"msg":"no cryptogram"}`, `"cryptogram":""`} {
		assert.Empty(t, FindCardData(line), "%s", line)
	}
}

// TestRememberedValuesAreScanned: a value a test remembered fails the scan
// when a log holds it, without repeating it.
func TestRememberedValuesAreScanned(t *testing.T) {
	secret := "eyJhbGciOiJSU0EtT0FFUC0yNTYiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0.remembered"
	RememberSensitive(secret, "short")
	_, _ = Logs.Write([]byte(`{"msg":"nothing sensitive"}` + "\n"))
	require.NoError(t, NoCardDataLogged())
	saved := Logs.String()
	_, _ = Logs.Write([]byte(`{"msg":"oops","v":"` + secret + `"}` + "\n"))
	err := NoCardDataLogged()
	require.Error(t, err)
	assert.NotContains(t, err.Error(), secret)
	// Leave the run's logs as they were, or this test's line would fail it.
	Logs.mu.Lock()
	Logs.buf.Reset()
	Logs.buf.WriteString(saved)
	Logs.mu.Unlock()
}
