package connectors_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/platform/apierr"
)

func TestChoose(t *testing.T) {
	assert.NoError(t, connectors.Choose(false, connectors.CardProcessor, nil), "a test key: the sandbox serves it")
	err := connectors.Choose(true, connectors.Bank, nil)
	assert.True(t, apierr.HasCode(err, connectors.CodeLiveUnavailable))
	assert.True(t, apierr.Is(err, apierr.Forbidden), "403")
	assert.NoError(t, connectors.Choose(true, connectors.PaymentTokens, connectors.Live{connectors.PaymentTokens: true}),
		"a live key where a live connector is configured")
	assert.Error(t, connectors.Choose(true, connectors.Bank, connectors.Live{connectors.PaymentTokens: true}),
		"a connector serves its own system only")
}
