package adyencheckout

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/cards"
)

// TestSealedCardsAreBounded: the cache of sealed fields forgets an entry
// after sealedFor, holds at most sealedMax (the oldest goes first), and
// keys by the card as well as the idempotency key.
func TestSealedCardsAreBounded(t *testing.T) {
	s := newSealedCards()
	t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	c := cards.Card{Number: "4111111111111111", ExpiryMonth: "03", ExpiryYear: "2030", CVC: "737"}
	s.put(s.id("k0", c), methodDetails{EncryptedCardNumber: "jwe0"}, t0)
	got, ok := s.get(s.id("k0", c), t0.Add(time.Minute))
	assert.True(t, ok)
	assert.Equal(t, "jwe0", got.EncryptedCardNumber)
	_, ok = s.get(s.id("k0", c), t0.Add(sealedFor+time.Second))
	assert.False(t, ok, "expired")
	other := c
	other.CVC = "738"
	_, ok = s.get(s.id("k0", other), t0)
	assert.False(t, ok, "another card under the same key")

	for i := 1; i <= sealedMax; i++ {
		s.put(s.id(fmt.Sprint("k", i), c), methodDetails{}, t0.Add(time.Duration(i)*time.Millisecond))
	}
	assert.Len(t, s.entries, sealedMax)
	_, ok = s.get(s.id("k0", c), t0.Add(2*time.Second))
	assert.False(t, ok, "the oldest went first")
	_, ok = s.get(s.id(fmt.Sprint("k", sealedMax), c), t0.Add(2*time.Second))
	assert.True(t, ok)
}
