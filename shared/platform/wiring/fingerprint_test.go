package wiring_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestNoIdempotencyRecordHoldsAnUnkeyedHashOfACard: the idempotency
// records of a card payout and of a /v2 payment with a card number hold a
// keyed fingerprint (HMAC under the deployment's key), never the unkeyed
// SHA-256 of the body (a hash of the card number), nor the number itself.
func TestNoIdempotencyRecordHoldsAnUnkeyedHashOfACard(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	for _, c := range []struct {
		path, key string
		number    string
		body      map[string]any
	}{
		{"/v1/payouts/cards", "fp-payout", "4000056655665556", map[string]any{"number": "4000056655665556", "expiry_month": 3,
			"expiry_year": 2030, "holder_name": "J. Smith"}},
		{"/v2/payments", "fp-payment", "4111111111111111", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
			"reference": "fp-1", "returnUrl": "https://shop.example/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03",
				"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}}},
	} {
		r := e.Do("POST", c.path, c.body, "Idempotency-Key", c.key)
		require.Contains(t, []int{200, 201}, r.Status, "%s: %s", c.path, r.Body)
		raw, err := json.Marshal(c.body) // sorted keys: the canonical form
		require.NoError(t, err)
		plain := sha256.Sum256(append([]byte("POST "+c.path+"\n"), raw...))
		it, err := e.Deps.Store.Get(context.Background(), store.Key{Table: store.TableIdempotency, PK: "idem#" + e.Account.ID + "#" + c.key, SK: "rec"})
		require.NoError(t, err, "%s: the record", c.path)
		var rec struct {
			Fingerprint string `json:"fingerprint"`
		}
		require.NoError(t, json.Unmarshal(it.Data, &rec))
		assert.Equal(t, e.Deps.Idem.Fingerprint("POST", c.path, raw), rec.Fingerprint, c.path)
		assert.NotContains(t, string(it.Data), hex.EncodeToString(plain[:]), "%s: the unkeyed SHA-256 of the body", c.path)
		assert.NotContains(t, string(it.Data), c.number, c.path)
		assert.Equal(t, "true", e.Do("POST", c.path, c.body, "Idempotency-Key", c.key).Header.Get("Idempotent-Replayed"), "%s: a retry still replays", c.path)
	}
}
