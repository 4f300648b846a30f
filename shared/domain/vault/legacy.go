package vault

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// legacyCard is checkout's stored card from before card tokens (it was
// checkout.StoredCard). It kept the sandbox test card's number so the
// processor could replay it; the number is read here only to find the
// card's profile, and the record is deleted by the write that migrates it.
type legacyCard struct {
	ID          string `json:"id"`
	Brand       string `json:"brand"`
	Last4       string `json:"last4"`
	ExpiryMonth string `json:"expiryMonth"`
	ExpiryYear  string `json:"expiryYear"`
	HolderName  string `json:"holderName,omitempty"`
	Number      string `json:"number"`
}

// MaxLegacyMigrated bounds the legacy cards the write creating a customer
// migrates; any further ones still pay by id, and migrate when they do.
// Each migrated card is four ops of that write (the token, its customer's
// copy, its card_token.created, the legacy record's delete), and the write
// may also carry a payment with its ledger entries and events, its session
// and its payment link: 15 keep the migration at the 60 ops it took when
// it wrote no event (20 cards of three ops), well inside a transaction's 100.
const MaxLegacyMigrated = 15

// LegacyPK is the partition of a shopper's legacy stored cards.
func LegacyPK(accountID, ref string) string { return "spm#" + accountID + "#" + ref }

func legacyKey(accountID, ref, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: LegacyPK(accountID, ref), SK: id}
}

func (v *Vault) legacyCards(ctx context.Context, accountID, ref string, limit int) ([]legacyCard, error) {
	page, err := v.st.Query(ctx, store.Query{Table: store.TablePayments, PK: LegacyPK(accountID, ref), Limit: limit})
	if err != nil {
		return nil, apierr.Wrap("vault.legacyCards", apierr.Unavailable, err)
	}
	out := make([]legacyCard, 0, len(page.Items))
	for _, it := range page.Items {
		var l legacyCard
		if err := json.Unmarshal(it.Data, &l); err != nil {
			return nil, apierr.Wrap("vault.legacyCards", apierr.Internal, err)
		}
		l.ID = it.SK
		out = append(out, l)
	}
	return out, nil
}

// LegacyToken reads shopper ref's legacy stored card id as a card token
// with no customer yet (Migrate moves it). Errors: NotFound, Unavailable,
// Internal.
func (v *Vault) LegacyToken(ctx context.Context, accountID, ref, id string) (*CardToken, error) {
	it, err := v.st.Get(ctx, legacyKey(accountID, ref, id))
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.NotFoundf("no such card token: %s", id)
	}
	if err != nil {
		return nil, apierr.Wrap("vault.LegacyToken", apierr.Unavailable, err)
	}
	var l legacyCard
	if err := json.Unmarshal(it.Data, &l); err != nil {
		return nil, apierr.Wrap("vault.LegacyToken", apierr.Internal, err)
	}
	l.ID = id
	return l.token(accountID, "", ref, time.Time{}, v.reference), nil
}

// token converts a legacy card: the same id, the profile of its number, and
// no number.
func (l legacyCard) token(accountID, customerID, ref string, now time.Time, reference func(string) cards.Profile) *CardToken {
	var profile cards.Profile // no processor to ask: charges of it are refused
	if reference != nil {
		profile = reference(l.Number)
	}
	month, year := l.ExpiryMonth, l.ExpiryYear
	if len(month) == 1 {
		month = "0" + month
	}
	if len(year) == 2 {
		year = "20" + year
	}
	return &CardToken{ID: l.ID, AccountID: accountID, CustomerID: customerID, ShopperReference: ref, Brand: l.Brand,
		Last4: l.Last4, ExpiryMonth: month, ExpiryYear: year, HolderName: l.HolderName,
		Profile: profile, CreatedAt: now, UpdatedAt: now}
}
