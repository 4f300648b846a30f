package connectors_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
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

type fakeDirectory struct{ proc cards.Processor }

func (d fakeDirectory) CardConnector(_ context.Context, account string, livemode bool) (string, cards.Processor, error) {
	if account == "acct_with" && livemode {
		return "conn_1", d.proc, nil
	}
	return "", nil, nil
}

func (d fakeDirectory) CardConnectorByID(_ context.Context, account, id string) (cards.Processor, error) {
	if account == "acct_with" && id == "conn_1" {
		return d.proc, nil
	}
	return nil, apierr.NotFoundf("no connector %s", id)
}

type namedProcessor struct {
	cards.Processor
	name string
}

func TestCardsPicksTheConnectorElseTheDefaultElseRefuses(t *testing.T) {
	def, remote := namedProcessor{name: "default"}, namedProcessor{name: "remote"}
	c := connectors.Cards{Default: def, Directory: fakeDirectory{remote}}
	ctx := context.Background()

	p, id, err := c.For(ctx, "acct_with", true)
	require.NoError(t, err)
	assert.Equal(t, "conn_1", id)
	assert.Equal(t, remote, p, "a live key of an account with a live connector goes through it")

	p, id, err = c.For(ctx, "acct_with", false)
	require.NoError(t, err)
	assert.Equal(t, "", id)
	assert.Equal(t, def, p, "no test connector: test keys keep the default")

	_, _, err = c.For(ctx, "acct_without", true)
	assert.True(t, apierr.HasCode(err, connectors.CodeLiveUnavailable), "a live key without a connector: the one refusal")

	p, err = c.Of(ctx, "acct_with", "conn_1")
	require.NoError(t, err)
	assert.Equal(t, remote, p, "a payment's modifications go to the connector that authorised it")
	p, err = c.Of(ctx, "acct_with", "")
	require.NoError(t, err)
	assert.Equal(t, def, p)
	_, err = c.Of(ctx, "acct_without", "conn_1")
	assert.True(t, apierr.Is(err, apierr.NotFound), "another account's connector is not found")

	_, _, err = connectors.Cards{Default: def}.For(ctx, "acct_with", true)
	assert.True(t, apierr.HasCode(err, connectors.CodeLiveUnavailable), "no directory: live keys refused")
}
