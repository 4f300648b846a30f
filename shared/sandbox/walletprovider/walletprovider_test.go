package walletprovider

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/phonewallet"
)

func TestShoppersAnswerByPhone(t *testing.T) {
	s := New(2 * time.Second)
	for phone, want := range map[string]phonewallet.Answer{PhoneApprove: phonewallet.Approved, PhoneDecline: phonewallet.Declined,
		PhoneInsufficient: phonewallet.InsufficientFunds, PhoneNoAnswer: phonewallet.Pending, "+77011234567": phonewallet.Pending} {
		a, again := s.Answer(phone, 0)
		assert.Equal(t, want, a, phone)
		assert.Zero(t, again, phone)
	}
	a, again := s.Answer(PhoneApproveLater, 500*time.Millisecond)
	assert.Equal(t, phonewallet.Pending, a)
	assert.Equal(t, 1500*time.Millisecond, again, "due when the delay has passed")
	a, _ = s.Answer(PhoneApproveLater, 2*time.Second)
	assert.Equal(t, phonewallet.Approved, a)
}

func TestHoldsKZTAndUSD(t *testing.T) {
	s := New(0)
	assert.NoError(t, s.CheckCurrency("KZT"))
	assert.NoError(t, s.CheckCurrency("USD"))
	assert.ErrorContains(t, s.CheckCurrency("EUR"), "the sandbox wallet holds KZT and USD only")
}
