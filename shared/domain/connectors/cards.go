package connectors

import (
	"context"

	"github.com/paygate/paygate/shared/domain/cards"
)

// Directory holds the connectors configured per account and mode (the
// admin CLI's `connectors set`): a connector is a remote card processor,
// a provider's live environment for live keys or its test environment for
// test keys.
type Directory interface {
	// CardConnector is the connector configured for account's mode:
	// id "" (and no error) when none is.
	CardConnector(ctx context.Context, account string, livemode bool) (id string, p cards.Processor, err error)
	// CardConnectorByID is account's connector id, configured or removed
	// since (a payment it authorised is captured and refunded through it):
	// an apierr NotFound when the account never had it.
	CardConnectorByID(ctx context.Context, account, id string) (cards.Processor, error)
}

// Cards picks the card processor of each call, in one place: the
// connector configured for the account's mode, else the sandbox for test
// keys and the one live_mode_unavailable for live keys.
type Cards struct {
	Default   cards.Processor // test keys without a connector: the sandbox, or a test double
	Directory Directory       // nil: no connector anywhere
}

// For is the processor of a new payment of account in mode livemode, and
// the id of its connector ("" for the sandbox), which the payment keeps.
func (c Cards) For(ctx context.Context, account string, livemode bool) (cards.Processor, string, error) {
	if c.Directory != nil {
		id, p, err := c.Directory.CardConnector(ctx, account, livemode)
		if err != nil {
			return nil, "", err
		}
		if id != "" {
			return p, id, nil
		}
	}
	if livemode {
		return nil, "", Unavailable()
	}
	return c.Default, "", nil
}

// Of is the processor that authorised a payment of account: its connector
// (id), or the sandbox where id is "".
func (c Cards) Of(ctx context.Context, account, id string) (cards.Processor, error) {
	if id == "" || c.Directory == nil {
		return c.Default, nil
	}
	return c.Directory.CardConnectorByID(ctx, account, id)
}
