package direct

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cse"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// TestKeysAndRotation: GET /keys lists the current key with its JWK and
// Adyen form; a rotation makes the new key current at once, the old one
// still pays until it expires, then it is refused like an unknown key.
func TestKeysAndRotation(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		r := e.Do("GET", "/v1/payments/direct/keys", nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var list struct {
			Data []map[string]any `json:"data"`
		}
		r.JSON(t, &list)
		require.Len(t, list.Data, 1)
		k := list.Data[0]
		assert.Equal(t, "RSA-OAEP-256", k["alg"])
		assert.Equal(t, "A256CBC-HS512", k["enc"])
		assert.Equal(t, "1", k["version"])
		assert.Nil(t, k["expires_at"], "the current key does not expire")
		jwk := k["jwk"].(map[string]any)
		assert.Equal(t, "RSA", jwk["kty"])
		assert.Equal(t, k["kid"], jwk["kid"])
		assert.Equal(t, "AQAB", jwk["e"])
		assert.True(t, strings.HasPrefix(k["adyen_key"].(string), "10001|"))
		old := e.current()
		oldJWE := e.encrypt(e.card("4111111111111111", "737"))

		_, err := e.keys.Rotate(context.Background(), 48*time.Hour)
		require.NoError(t, err)
		r = e.Do("GET", "/v1/payments/direct/keys", nil)
		r.JSON(t, &list)
		require.Len(t, list.Data, 2)
		assert.NotEqual(t, old.KID, list.Data[0]["kid"], "the new key is current at once")
		assert.Nil(t, list.Data[0]["expires_at"])
		assert.Equal(t, old.KID, list.Data[1]["kid"])
		assert.NotNil(t, list.Data[1]["expires_at"])

		p := e.pay(body(oldJWE, "order-old-key"))
		require.Equal(t, 201, p.Status, "the old key pays during its grace: %s", p.Body)
		p = e.pay(body(e.encrypt(e.card("4111111111111111", "737")), "order-new-key"))
		require.Equal(t, 201, p.Status, "%s", p.Body)

		e.Clock.Advance(49 * time.Hour)
		stale := e.card("4111111111111111", "737") // generated now, with the expired key
		raw, _ := json.Marshal(stale)
		jwe, err := cse.Encrypt(old.KID, old.PublicKey(), raw)
		require.NoError(t, err)
		p = e.pay(body(jwe, "order-expired-key"))
		require.Equal(t, 400, p.Status, "%s", p.Body)
		code, param, _ := errOf(t, p)
		assert.Equal(t, "encrypted_card_invalid", code)
		assert.Equal(t, "encrypted_card", param)
		r = e.Do("GET", "/v1/payments/direct/keys", nil)
		r.JSON(t, &list)
		assert.Len(t, list.Data, 1, "an expired key is no longer listed")
	})
}

// TestOutcomes: a direct payment answers like a card payment, and its
// transaction is on /v1/transactions with its history and events; an
// automatic capture posts to the merchant's balance in the same write.
func TestOutcomes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		cases := []struct {
			name, number, holder, capture string
			status, reason                string
			events                        []string
		}{
			{"authorised, captured", "4111111111111111", "", "", "charged", "", []string{"payment.authorised", "payment.charged"}},
			{"manual capture", "5555555555554444", "", "manual", "authorized", "", []string{"payment.authorised"}},
			{"refused", "4000000000000010", "", "", "rejected", "Refused", []string{"payment.refused"}},
			{"acquirer error", "4111111111111111", "ERROR", "", "failed", "Acquirer Error", []string{"payment.failed"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				card := e.card(c.number, "737")
				if c.holder != "" {
					card.HolderName = c.holder
				}
				bd := body(e.encrypt(card), "order-"+c.name)
				bd["metadata"] = map[string]string{"cart": "42"}
				if c.capture != "" {
					bd["capture"] = c.capture
				}
				r := e.pay(bd)
				require.Equal(t, 201, r.Status, "%s", r.Body)
				got := r.Map(t)
				assert.Equal(t, c.status, got["status"])
				assert.Nil(t, got["next_action"])
				assert.Equal(t, c.number[12:], got["last4"])
				if c.reason != "" {
					assert.Equal(t, c.reason, got["refusal_reason"])
				}
				tx := e.tx(got["id"].(string))
				assert.Equal(t, c.status, tx["status"])
				assert.Equal(t, "order-"+c.name, tx["merchant_reference"])
				assert.Equal(t, map[string]any{"cart": "42"}, tx["metadata"])
				assert.Equal(t, c.events, e.events(e.Account.ID, got["id"].(string)))
			})
		}
	})
}

// TestThreeDSRedirect: a card enrolled in 3-D Secure waits for the shopper
// (requires_action) with a redirect the merchant hands them; the
// redirectResult they come back with, submitted to /v2/payments/details,
// authorises (and captures) the payment.
func TestThreeDSRedirect(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		for _, number := range []string{"5454545454545454", "4917610000000000", "4212345678901237"} {
			r := e.pay(body(e.encrypt(e.card(number, "737")), "order-3ds-"+number))
			require.Equal(t, 201, r.Status, "%s", r.Body)
			got := r.Map(t)
			require.Equal(t, "requires_action", got["status"], "%s", r.Body)
			assert.Equal(t, number != "4212345678901237", got["secure3d"])
			na := got["next_action"].(map[string]any)
			assert.Equal(t, "redirect", na["type"])
			assert.Equal(t, "GET", na["method"])
			assert.Equal(t, "scheme", na["payment_method_type"])
			u, err := url.Parse(na["url"].(string))
			require.NoError(t, err)
			assert.Equal(t, "shop.example.com", u.Host, "the sandbox issuer sends the shopper straight back to return_url")
			assert.Equal(t, "order-3ds-"+number, u.Query().Get("order"), "return_url's own query is kept")
			result := u.Query().Get("redirectResult")
			require.NotEmpty(t, result)
			assert.NotContains(t, result, got["id"], "the redirect reveals no payment id")

			d := e.Do("POST", "/v2/payments/details", map[string]any{"details": map[string]any{"redirectResult": result}})
			require.Equal(t, 200, d.Status, "%s", d.Body)
			assert.Equal(t, "Authorised", d.Map(t)["resultCode"])
			tx := e.tx(got["id"].(string))
			assert.Equal(t, "charged", tx["status"])
			assert.Equal(t, number != "4212345678901237", tx["secure3d"])
		}
	})
}

// TestEncryptedCardRefusals: every JWE the keyring cannot open is the same
// 400 with no detail of why, and nothing is stored or charged.
func TestEncryptedCardRefusals(t *testing.T) {
	e := newEnv(t, embedded)
	k := e.current()
	good := e.encrypt(e.card("4111111111111111", "737"))
	parts := strings.Split(good, ".")
	tamper := func(i int) string {
		p := append([]string{}, parts...)
		raw, _ := base64.RawURLEncoding.DecodeString(p[i])
		raw[len(raw)-1] ^= 0x01
		p[i] = base64.RawURLEncoding.EncodeToString(raw)
		return strings.Join(p, ".")
	}
	unknownKid := func() string {
		h, _ := json.Marshal(map[string]string{"alg": "RSA-OAEP-256", "enc": "A256CBC-HS512", "version": "1", "kid": "cse_0000000000000000dead"})
		p := append([]string{}, parts...)
		p[0] = base64.RawURLEncoding.EncodeToString(h)
		return strings.Join(p, ".")
	}
	old := e.card("4111111111111111", "737")
	old.GenerationTime = cse.FormatGenerationTime(e.Clock.Now().Add(-25 * time.Hour))
	raw, _ := json.Marshal(e.card("4111111111111111", "737"))
	other, err := cse.Encrypt(k.KID, mustOtherKey(t), raw) // right kid, another key: does not decrypt
	require.NoError(t, err)
	cases := map[string]string{
		"generationtime 25 hours old": e.encrypt(old),
		"fails to decrypt":            other,
		"tampered tag":                tamper(4),
		"tampered ciphertext":         tamper(3),
		"tampered encrypted key":      tamper(1),
		"unknown kid":                 unknownKid(),
		"not a JWE":                   "test_4111111111111111",
	}
	var messages []string
	for name, jwe := range cases {
		t.Run(name, func(t *testing.T) {
			r := e.pay(body(jwe, "order-bad"))
			require.Equal(t, 400, r.Status, "%s", r.Body)
			code, param, msg := errOf(t, r)
			assert.Equal(t, "encrypted_card_invalid", code)
			assert.Equal(t, "encrypted_card", param)
			messages = append(messages, msg)
			for _, leak := range []string{"tag", "kid", "expired", "24 hours old", "OAEP error", "decryption error", "padding"} {
				assert.NotContains(t, strings.ToLower(strings.SplitN(msg, ":", 2)[0]), leak)
			}
		})
	}
	for _, m := range messages {
		assert.Equal(t, messages[0], m, "one message for every reason")
	}
	assert.Empty(t, e.payments(e.Account.ID), "nothing stored")
}

// TestBadInput: each rule of the body is a 400 naming its field, and a card
// that fails its checks names the field inside encrypted_card; nothing is
// stored on any of them.
func TestBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		jwe := e.encrypt(e.card("4111111111111111", "737"))
		with := func(f func(map[string]any)) map[string]any { bd := body(jwe, "order-bad"); f(bd); return bd }
		cards := func(c cse.Card) map[string]any { return body(e.encrypt(c), "order-bad") }
		expired := e.card("4111111111111111", "737")
		expired.ExpiryMonth, expired.ExpiryYear = "01", "2020"
		cases := []struct {
			name, code, param string
			body              map[string]any
		}{
			{"no card", "parameter_missing", "encrypted_card", with(func(b map[string]any) { delete(b, "encrypted_card") })},
			{"card and token", "parameter_invalid", "payment_token_id", with(func(b map[string]any) { b["payment_token_id"] = "ptok_" + strings.Repeat("a", 32) })},
			{"token id malformed", "parameter_invalid", "payment_token_id", with(func(b map[string]any) {
				delete(b, "encrypted_card")
				b["payment_token_id"] = "tok_1"
			})},
			{"no amount", "parameter_missing", "amount", with(func(b map[string]any) { delete(b, "amount") })},
			{"no value", "parameter_missing", "amount.value", with(func(b map[string]any) { b["amount"] = map[string]any{"currency": "EUR"} })},
			{"zero value", "parameter_invalid", "amount.value", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 0, "currency": "EUR"} })},
			{"unknown currency", "parameter_invalid", "amount.currency", with(func(b map[string]any) { b["amount"] = map[string]any{"value": 10, "currency": "EUX"} })},
			{"no order reference", "parameter_missing", "order_reference", with(func(b map[string]any) { delete(b, "order_reference") })},
			{"long order reference", "parameter_invalid", "order_reference", with(func(b map[string]any) { b["order_reference"] = strings.Repeat("x", 129) })},
			{"no return url", "parameter_missing", "return_url", with(func(b map[string]any) { delete(b, "return_url") })},
			{"relative return url", "parameter_invalid", "return_url", with(func(b map[string]any) { b["return_url"] = "/back" })},
			{"capture", "parameter_invalid", "capture", with(func(b map[string]any) { b["capture"] = "later" })},
			{"colour depth", "parameter_invalid", "browser_info.color_depth", with(func(b map[string]any) { b["browser_info"] = map[string]any{"color_depth": 7} })},
			{"time zone", "parameter_invalid", "browser_info.time_zone_offset", with(func(b map[string]any) { b["browser_info"] = map[string]any{"time_zone_offset": 9999} })},
			{"unknown field", "parameter_unknown", "cvc", with(func(b map[string]any) { b["cvc"] = "737" })},
			{"card number", "invalid_number", "encrypted_card.number", cards(e.card("4111111111111112", "737"))},
			{"cvc", "invalid_cvc", "encrypted_card.cvc", cards(e.card("4111111111111111", "12"))},
			{"expired card", "expired_card", "encrypted_card.expiryYear", cards(expired)},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.pay(c.body)
				require.Equal(t, 400, r.Status, "%s", r.Body)
				code, param, _ := errOf(t, r)
				assert.Equal(t, c.code, code)
				assert.Equal(t, c.param, param)
			})
		}
		r := e.Do("POST", "/v1/payments/direct", body(jwe, "order-no-key"))
		require.Equal(t, 400, r.Status, "an Idempotency-Key is required: %s", r.Body)
		assert.Empty(t, e.payments(e.Account.ID), "nothing stored")
	})
}

// TestIdempotency: a retry with the key replays the first answer; 20 copies
// at once make one payment; the key with another body is a 422.
func TestIdempotency(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		bd := body(e.encrypt(e.card("4111111111111111", "737")), "order-idem")
		key := e.key()
		first := e.Do("POST", "/v1/payments/direct", bd, "Idempotency-Key", key)
		require.Equal(t, 201, first.Status, "%s", first.Body)
		again := e.Do("POST", "/v1/payments/direct", bd, "Idempotency-Key", key)
		require.Equal(t, 201, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(first.Body), string(again.Body))
		other := body(e.encrypt(e.card("4111111111111111", "737")), "order-idem-2")
		assert.Equal(t, 422, e.Do("POST", "/v1/payments/direct", other, "Idempotency-Key", key).Status)

		bd = body(e.encrypt(e.card("5555555555554444", "737")), "order-race")
		key = e.key()
		var wg sync.WaitGroup
		ids := make([]string, 20)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.Do("POST", "/v1/payments/direct", bd, "Idempotency-Key", key)
				if r.Status == 201 {
					ids[i] = r.Map(t)["id"].(string)
				} else {
					assert.Equal(t, 409, r.Status, "a copy still in flight: %s", r.Body)
				}
			}()
		}
		wg.Wait()
		seen := map[string]bool{}
		for _, id := range ids {
			if id != "" {
				seen[id] = true
			}
		}
		assert.Len(t, seen, 1, "20 copies, one payment")
		assert.Len(t, e.payments(e.Account.ID), 2)
	})
}

// TestLiveKeys: a live key's card is decrypted (a bad JWE is the same 400)
// and then refused with a 403: no live processor is connected.
func TestLiveKeys(t *testing.T) {
	e := newEnv(t, embedded)
	_, live := e.NewAccount(accounts.Live)
	r := e.DoKey(live, "POST", "/v1/payments/direct", body(e.encrypt(e.card("4111111111111111", "737")), "order-live"), "Idempotency-Key", e.key())
	require.Equal(t, 403, r.Status, "%s", r.Body)
	code, _, _ := errOf(t, r)
	assert.Equal(t, "live_mode_unavailable", code)
	r = e.DoKey(live, "POST", "/v1/payments/direct", body("x.y.z.w.v", "order-live"), "Idempotency-Key", e.key())
	require.Equal(t, 400, r.Status, "%s", r.Body)
}

// TestPaymentTokenPaysOnce: a decoded wallet token pays once, whatever the
// Idempotency-Keys: a second payment is a 409 naming the first, racing
// payments make one, another account's token is a 404; an expired token or
// another amount than the wallet's is a 400. A token with a cryptogram needs
// no 3-D Secure; one without (PAN_ONLY) may.
func TestPaymentTokenPaysOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tokenBody := func(id, ref string) map[string]any {
			bd := body("", ref)
			delete(bd, "encrypted_card")
			bd["payment_token_id"] = id
			return bd
		}
		amount := &money.Amount{Value: 1000, Currency: "EUR"}
		id := e.token(wallettokens.ApplePay, "apple-txn-1", "4111111111111111", "AgAAAAAABk4DWZ4C28yUQAAAAAA=", amount)
		r := e.pay(tokenBody(id, "order-wallet"))
		require.Equal(t, 201, r.Status, "%s", r.Body)
		first := r.Map(t)
		assert.Equal(t, "charged", first["status"])
		assert.Equal(t, "applepay", first["payment_method"])
		assert.Equal(t, "1111", first["last4"])

		r = e.pay(tokenBody(id, "order-wallet-again"))
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, param, msg := errOf(t, r)
		assert.Equal(t, "payment_token_used", code)
		assert.Equal(t, "payment_token_id", param)
		assert.Contains(t, msg, first["id"].(string))

		// The same Apple Pay transaction decoded again is the same token.
		assert.Equal(t, id, wallettokens.TokenID(e.Account.ID, wallettokens.ApplePay, "apple-txn-1"))

		// Racing payments with one token and different keys: one payment.
		id = e.token(wallettokens.GooglePay, "google-msg-1", "5555555555554444", "", nil)
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := e.pay(tokenBody(id, "order-race"))
				mu.Lock()
				statuses[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		assert.Equal(t, map[int]int{201: 1, 409: 9}, statuses)

		_, otherKey := e.NewAccount(accounts.Test)
		other := e.token(wallettokens.ApplePay, "apple-txn-2", "4111111111111111", "AgAA", amount)
		r = e.DoKey(otherKey, "POST", "/v1/payments/direct", tokenBody(other, "order-x"), "Idempotency-Key", e.key())
		assert.Equal(t, 404, r.Status, "another account's token: %s", r.Body)

		r = e.pay(map[string]any{"payment_token_id": other, "amount": map[string]any{"value": 999, "currency": "EUR"},
			"order_reference": "order-y", "return_url": "https://shop.example.com/r"})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param, _ = errOf(t, r)
		assert.Equal(t, "amount_mismatch", code)
		assert.Equal(t, "amount", param)

		// 3-D Secure cards: a cryptogram authorises, PAN_ONLY redirects.
		r = e.pay(tokenBody(e.token(wallettokens.ApplePay, "apple-txn-3ds", "5454545454545454", "AgAA", amount), "order-3ds-crypto"))
		require.Equal(t, 201, r.Status, "%s", r.Body)
		assert.Equal(t, "charged", r.Map(t)["status"])
		r = e.pay(tokenBody(e.token(wallettokens.GooglePay, "google-pan-only", "5454545454545454", "", nil), "order-3ds-pan"))
		require.Equal(t, 201, r.Status, "%s", r.Body)
		assert.Equal(t, "requires_action", r.Map(t)["status"])

		late := e.token(wallettokens.GooglePay, "google-late", "4111111111111111", "", nil)
		e.Clock.Advance(wallettokens.TokenTTL + time.Minute)
		r = e.pay(tokenBody(late, "order-late"))
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, _, _ = errOf(t, r)
		assert.Equal(t, "payment_token_expired", code)
		r = e.pay(tokenBody("ptok_"+strings.Repeat("0", 32), "order-none"))
		assert.Equal(t, 404, r.Status, "%s", r.Body)
	})
}

var embedded = backend{"embedded", func(testing.TB) store.Store { return nil }}

// mustOtherKey is a public key the platform does not hold.
func mustOtherKey(t *testing.T) *rsa.PublicKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return &k.PublicKey
}

// TestNoCardDataStored: after card payments (authorised, refused, waiting
// for 3-D Secure) and a wallet token's payment, the embedded store's file
// holds no card number, CVC or cryptogram in clear (the wallet token keeps
// them only sealed to the card keys).
func TestNoCardDataStored(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	st, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, backend{"file", func(testing.TB) store.Store { return st }})
	numbers := []string{"4111111111111111", "4000000000000010", "5454545454545454"}
	for i, n := range numbers {
		r := e.pay(body(e.encrypt(e.card(n, "737")), fmt.Sprintf("order-stored-%d", i)))
		require.Equal(t, 201, r.Status, "%s", r.Body)
	}
	const cryptogram = "AgAAAAAABk4DWZ4C28yUQAAAAAA="
	id := e.token(wallettokens.ApplePay, "apple-stored", "5555555555554444", cryptogram, &money.Amount{Value: 1000, Currency: "EUR"})
	tb := body("", "order-stored-wallet")
	delete(tb, "encrypted_card")
	tb["payment_token_id"] = id
	r := e.pay(tb)
	require.Equal(t, 201, r.Status, "%s", r.Body)

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(raw), "order-stored-wallet", "the file holds the payments")
	for _, n := range append(numbers, "5555555555554444") {
		assert.NotContains(t, string(raw), n)
		assert.NotContains(t, string(raw), n[:4]+" "+n[4:8]+" "+n[8:12]+" "+n[12:])
	}
	assert.NotContains(t, string(raw), cryptogram)
	assert.NotRegexp(t, `(?i)"cvc"\s*:\s*"?737`, string(raw))
}

// TestAdyenLibraryJWE: a card encrypted as Adyen's own libraries do, with
// GET /keys' adyen_key and no kid in the header, pays like any other.
func TestAdyenLibraryJWE(t *testing.T) {
	e := newEnv(t, embedded)
	r := e.Do("GET", "/v1/payments/direct/keys", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var list struct {
		Data []struct {
			AdyenKey string `json:"adyen_key"`
		} `json:"data"`
	}
	r.JSON(t, &list)
	require.NotEmpty(t, list.Data)
	parts := strings.Split(list.Data[0].AdyenKey, "|")
	require.Len(t, parts, 2)
	exp, ok := new(big.Int).SetString(parts[0], 16)
	require.True(t, ok)
	mod, ok := new(big.Int).SetString(parts[1], 16)
	require.True(t, ok)
	enc, err := jose.NewEncrypter(jose.A256CBC_HS512, jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: &rsa.PublicKey{N: mod, E: int(exp.Int64())}},
		&jose.EncrypterOptions{ExtraHeaders: map[jose.HeaderKey]any{"version": "1"}})
	require.NoError(t, err)
	raw, _ := json.Marshal(e.card("5555555555554444", "737"))
	obj, err := enc.Encrypt(raw)
	require.NoError(t, err)
	jwe, err := obj.CompactSerialize()
	require.NoError(t, err)
	p := e.pay(body(jwe, "order-adyen-library"))
	require.Equal(t, 201, p.Status, "%s", p.Body)
	assert.Equal(t, "charged", p.Map(t)["status"])
	assert.Equal(t, "4444", p.Map(t)["last4"])
}

// guideEncrypt is the direct payments guide's five-line Go example for
// merchants (between the markers, as docs/direct-payments.md shows it;
// TestGuideEncryptionExample holds the two to the same text). Errors are left out there for brevity.
func guideEncrypt(jwk, card []byte) string {
	// guide begin
	var key jose.JSONWebKey
	_ = key.UnmarshalJSON(jwk) // GET /v1/payments/direct/keys: data[0].jwk (its kid included)
	enc, _ := jose.NewEncrypter(jose.A256CBC_HS512, jose.Recipient{Algorithm: jose.RSA_OAEP_256, Key: key.Key, KeyID: key.KeyID}, (&jose.EncrypterOptions{}).WithHeader("version", "1"))
	obj, _ := enc.Encrypt(card) // {"number":"4111111111111111","holderName":"J Smith","cvc":"737","expiryMonth":"03","expiryYear":"2030","generationtime":"2024-05-01T09:00:00.000Z"}
	encryptedCard, _ := obj.CompactSerialize()
	// guide end
	return encryptedCard
}

// TestGuideEncryptionExample: the guide's Go example is guideEncrypt's
// body, and what it makes pays.
func TestGuideEncryptionExample(t *testing.T) {
	src, err := os.ReadFile("direct_test.go")
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(src), "\t// guide begin\n")
	require.True(t, ok)
	snippet, _, ok := strings.Cut(rest, "\t// guide end\n")
	require.True(t, ok)
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(snippet, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	guide, err := os.ReadFile("../../../docs/direct-payments.md")
	require.NoError(t, err)
	assert.Contains(t, string(guide), "```go\n"+strings.Join(lines, "\n")+"\n```\n", "docs/direct-payments.md's merchant encryption example")

	e := newEnv(t, embedded)
	r := e.Do("GET", "/v1/payments/direct/keys", nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var list struct {
		Data []struct {
			JWK json.RawMessage `json:"jwk"`
		} `json:"data"`
	}
	r.JSON(t, &list)
	require.NotEmpty(t, list.Data)
	card, _ := json.Marshal(e.card("4111111111111111", "737"))
	p := e.pay(body(guideEncrypt(list.Data[0].JWK, card), "order-guide"))
	require.Equal(t, 201, p.Status, "%s", p.Body)
	assert.Equal(t, "charged", p.Map(t)["status"])
}
