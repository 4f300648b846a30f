package balance

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// PayoutCard is a saved payout card as the API shows it: never its number.
type PayoutCard struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Brand       string            `json:"brand"`
	Last4       string            `json:"last4"`
	ExpiryMonth int               `json:"expiry_month"`
	ExpiryYear  int               `json:"expiry_year"`
	HolderName  string            `json:"holder_name"`
	Livemode    bool              `json:"livemode"`
	Metadata    map[string]string `json:"metadata"`
	CreatedAt   time.Time         `json:"created_at"`
}

// card is the stored record: the view and the processor's reference of the
// card (Outcome, its stored name: the sandbox's reference is the outcome its
// test card stands for). See doc.go.
type card struct {
	PayoutCard
	AccountID string `json:"account_id"`
	Outcome   string `json:"outcome"`
}

func (c *card) View() PayoutCard {
	v := c.PayoutCard
	v.Object = KindCard
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	return v
}

func (c *card) item() (store.Item, error) {
	data, err := json.Marshal(c)
	return store.Item{Key: cardKey(c.AccountID, c.ID), Data: data}, err
}

func decodeCard(it store.Item) (*card, error) {
	var c card
	if err := json.Unmarshal(it.Data, &c); err != nil {
		return nil, apierr.Wrap("balance.decodeCard", apierr.Internal, err)
	}
	return &c, nil
}

// CardRequest is the body of POST /v1/payouts/cards.
type CardRequest struct {
	Number      *string           `json:"number" maxlen:"19"`
	ExpiryMonth *int64            `json:"expiry_month"`
	ExpiryYear  *int64            `json:"expiry_year"`
	HolderName  *string           `json:"holder_name" maxlen:"100"`
	Metadata    map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// MaxHolderName is the longest holder name.
const MaxHolderName = 100

// validate checks the card at now; errors name the field and never echo the
// number. It returns the digits and the brand.
func (in *CardRequest) validate(now time.Time) (number, brand string, err error) {
	if in.Number == nil {
		return "", "", apierr.Missing("number")
	}
	number = *in.Number
	if len(number) < 12 || len(number) > 19 || strings.Trim(number, "0123456789") != "" {
		return "", "", apierr.Invalidf("number", "number must be the card number's 12 to 19 digits, without spaces")
	}
	if !cards.Luhn(number) {
		return "", "", apierr.New(cards.CodeInvalidNumber, "number is not a valid card number").WithParam("number")
	}
	brand = cards.Brand(number)
	if brand != "visa" && brand != "mc" {
		return "", "", apierr.New(cards.CodeCardNotSupported, "payouts go to visa and mc cards only").WithParam("number")
	}
	if in.ExpiryMonth == nil {
		return "", "", apierr.Missing("expiry_month")
	}
	if *in.ExpiryMonth < 1 || *in.ExpiryMonth > 12 {
		return "", "", apierr.Invalidf("expiry_month", "expiry_month must be 1 to 12")
	}
	if in.ExpiryYear == nil {
		return "", "", apierr.Missing("expiry_year")
	}
	now = now.UTC()
	y, m := *in.ExpiryYear, *in.ExpiryMonth
	if y < 2000 || y > int64(now.Year())+20 {
		return "", "", apierr.Invalidf("expiry_year", "expiry_year must be the four-digit year, at most 20 years ahead")
	}
	// Valid through the last day of its expiry month.
	if !now.Before(time.Date(int(y), time.Month(m)+1, 1, 0, 0, 0, 0, time.UTC)) {
		return "", "", apierr.New(cards.CodeExpiredCard, "the card expired in %02d/%d", m, y).WithParam("expiry_year")
	}
	if in.HolderName == nil {
		return "", "", apierr.Missing("holder_name")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(*in.HolderName)); n < 1 || n > MaxHolderName {
		return "", "", apierr.Invalidf("holder_name", "holder_name must be 1 to %d characters", MaxHolderName)
	}
	if err := metadata.Check(in.Metadata); err != nil {
		return "", "", err
	}
	return number, brand, nil
}
