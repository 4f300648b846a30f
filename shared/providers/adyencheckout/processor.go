package adyencheckout

import (
	"context"
	"errors"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Processor is one connector: the card processor port over Adyen's API.
type Processor struct {
	cfg Config
}

var _ cards.Processor = (*Processor)(nil)

// New is the connector of c.
func New(c Config) (*Processor, error) {
	if c.URL == "" || c.MerchantAccount == "" || c.APIKey == "" {
		return nil, errors.New("adyencheckout: URL, MerchantAccount and APIKey are required")
	}
	return &Processor{cfg: c}, nil
}

// TODO(adapter): the calls below are being written; until then every one
// answers that the provider is unavailable.
func (p *Processor) unavailable() error {
	return apierr.Wrap("adyencheckout", apierr.Unavailable, errors.New("the Adyen connector is not built yet"))
}

func (p *Processor) AuthoriseCard(context.Context, cards.Charge, cards.Card) (cards.Outcome, error) {
	return cards.Outcome{}, p.unavailable()
}

func (p *Processor) AuthoriseStored(context.Context, cards.Charge, cards.SavedCard, bool) (cards.Outcome, error) {
	return cards.Outcome{}, p.unavailable()
}

func (p *Processor) AuthoriseNetworkToken(context.Context, cards.Charge, cards.Card, bool) (cards.Outcome, error) {
	return cards.Outcome{}, p.unavailable()
}

func (p *Processor) AuthoriseWallet(context.Context, cards.Charge, string, string) (cards.Outcome, error) {
	return cards.Outcome{}, p.unavailable()
}

func (p *Processor) Continue(context.Context, cards.Charge, cards.Step) (cards.Outcome, error) {
	return cards.Outcome{}, p.unavailable()
}

func (p *Processor) Reference(string) cards.Profile                    { return "" }
func (p *Processor) ThreeDS() cards.ThreeDS                            { return cards.ThreeDS{} }
func (p *Processor) Capture(context.Context, cards.Modification) error { return p.unavailable() }
func (p *Processor) Cancel(context.Context, cards.Modification) error  { return p.unavailable() }
func (p *Processor) Refund(context.Context, cards.Modification) error  { return p.unavailable() }
