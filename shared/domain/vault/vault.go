package vault

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Customer is a stored customer.
type Customer struct {
	ID          string `json:"id"`
	AccountID   string `json:"account_id"`
	Livemode    bool   `json:"livemode"`
	ExternalRef string `json:"external_ref,omitempty"` // checkout's shopperReference
	Email       string `json:"email,omitempty"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// DefaultCardTokenID is the card token the merchant chose as the one a
	// charge of the customer uses ("" for none: the computed default,
	// Default). It always names a token of this customer: deleting the
	// token clears it in the same transaction (DeleteOps), and setting it
	// checks the token is still there when it commits (UpdateOps).
	DefaultCardTokenID string            `json:"default_card_token_id,omitempty"`
	Metadata           map[string]string `json:"metadata"`
	CreatedAt          time.Time         `json:"created_at"`

	version int64 // the stored record's version (0: not read from the store)
}

// CardToken is a stored card token: a card saved for a customer, never
// its number or CVC.
type CardToken struct {
	ID               string `json:"id"`
	AccountID        string `json:"account_id"`
	CustomerID       string `json:"customer_id"`
	ShopperReference string `json:"shopper_reference"` // the customer's external_ref: checkout's check
	Livemode         bool   `json:"livemode"`
	Brand            string `json:"brand"`
	Last4            string `json:"last4"`
	ExpiryMonth      string `json:"expiry_month"` // two digits
	ExpiryYear       string `json:"expiry_year"`  // four digits
	HolderName       string `json:"holder_name,omitempty"`
	// Profile is the sandbox test card's outcome profile: what the sandbox
	// processor replays on a charge. A live token would hold the
	// processor's network token reference instead.
	Profile cards.Profile `json:"profile"`
	// FirstTransactionID is the payment that saved the card first (the
	// scheme's initial transaction that later merchant-initiated charges
	// refer to).
	FirstTransactionID string    `json:"first_transaction_id,omitempty"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"` // saved again

	version int64 // the stored record's version (0: not read from the store)
}

// Card is the processor's view of the token.
func (t *CardToken) Card() cards.SavedCard {
	return cards.SavedCard{Profile: t.Profile, Brand: t.Brand, Last4: t.Last4, ExpiryMonth: t.ExpiryMonth,
		ExpiryYear: t.ExpiryYear, HolderName: t.HolderName}
}

// Expired reports whether the card expired before now (valid through the
// last day of its expiry month).
func (t *CardToken) Expired(now time.Time) bool {
	return cards.CheckExpiry(t.ExpiryMonth, t.ExpiryYear, now) != nil
}

// CustomerKey addresses a customer.
func CustomerKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: CustomersPK(accountID), SK: id}
}

// CustomersPK is the partition of an account's customers.
func CustomersPK(accountID string) string { return "cus#" + accountID }

// RefKey is the claim of an external_ref.
func RefKey(accountID, ref string) store.Key {
	return store.Key{Table: store.TablePayments, PK: RefPK(accountID, ref), SK: "customer"}
}

// RefPK is the claim's partition.
func RefPK(accountID, ref string) string { return "cusref#" + accountID + "#" + ref }

// EmailPK is the partition of the customers with one e-mail address.
func EmailPK(accountID, email string) string {
	return "cusemail#" + accountID + "#" + strings.ToLower(email)
}

// TokenKey addresses a card token.
func TokenKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: TokensPK(accountID), SK: id}
}

// TokensPK is the partition of an account's card tokens.
func TokensPK(accountID string) string { return "ctok#" + accountID }

// CustomerTokensPK is the partition of a customer's card tokens (copies).
func CustomerTokensPK(accountID, customerID string) string {
	return "cusctok#" + accountID + "#" + customerID
}

// Vault reads customers and card tokens and builds their writes.
type Vault struct {
	st store.Store
	// reference is the card processor's reference of a number, for the
	// legacy cards that kept theirs (LegacyToken).
	reference func(number string) cards.Profile
}

// New builds a vault over st.
func New(st store.Store) *Vault { return &Vault{st: st} }

// WithReferences is the vault that converts legacy cards (which kept their
// number) to the references of the card processor that charges them.
func (v *Vault) WithReferences(reference func(number string) cards.Profile) *Vault {
	c := *v
	c.reference = reference
	return &c
}

type refClaim struct {
	CustomerID string `json:"customer_id"`
}

func (v *Vault) get(ctx context.Context, op string, k store.Key, out any) (int64, error) {
	it, err := v.st.Get(ctx, k)
	if errors.Is(err, store.ErrNotFound) {
		return 0, err
	}
	if err != nil {
		return 0, apierr.Wrap(op, apierr.Unavailable, err)
	}
	if err := json.Unmarshal(it.Data, out); err != nil {
		return 0, apierr.Wrap(op, apierr.Internal, err)
	}
	return it.Version, nil
}

// Customer reads one of the account's customers, with the version a change
// of it is conditioned on. Errors: NotFound (missing, or another
// account's), Unavailable, Internal.
func (v *Vault) Customer(ctx context.Context, accountID, id string) (*Customer, error) {
	var c Customer
	ver, err := v.get(ctx, "vault.Customer", CustomerKey(accountID, id), &c)
	if err != nil {
		return nil, notFound(err, "no such customer: %s", id)
	}
	c.version = ver
	return &c, nil
}

// CustomerID is the id of the customer of external_ref ref. Errors:
// NotFound, Unavailable, Internal.
func (v *Vault) CustomerID(ctx context.Context, accountID, ref string) (string, error) {
	var c refClaim
	if _, err := v.get(ctx, "vault.CustomerID", RefKey(accountID, ref), &c); err != nil {
		return "", notFound(err, "no customer has external_ref %q", ref)
	}
	return c.CustomerID, nil
}

// Token reads one of the account's card tokens. Errors: NotFound (missing,
// deleted, or another account's), Unavailable, Internal.
func (v *Vault) Token(ctx context.Context, accountID, id string) (*CardToken, error) {
	var t CardToken
	ver, err := v.get(ctx, "vault.Token", TokenKey(accountID, id), &t)
	if err != nil {
		return nil, notFound(err, "no such card token: %s", id)
	}
	t.version = ver
	return &t, nil
}

func notFound(err error, format string, args ...any) error {
	if errors.Is(err, store.ErrNotFound) {
		return apierr.NotFoundf(format, args...)
	}
	return err
}

// DecodeToken reads a token item (a record or a customer's copy; the
// version is the item's).
func DecodeToken(it store.Item) (*CardToken, error) {
	var t CardToken
	if err := json.Unmarshal(it.Data, &t); err != nil {
		return nil, apierr.Wrap("vault.DecodeToken", apierr.Internal, err)
	}
	t.version = it.Version
	return &t, nil
}

// DecodeCustomer reads a customer item.
func DecodeCustomer(it store.Item) (*Customer, error) {
	var c Customer
	if err := json.Unmarshal(it.Data, &c); err != nil {
		return nil, apierr.Wrap("vault.DecodeCustomer", apierr.Internal, err)
	}
	c.version = it.Version
	return &c, nil
}

// defaultBudget bounds the tokens read to pick a customer's default.
const defaultBudget = 1000

// DefaultOf is customer c's default card token: the one its
// DefaultCardTokenID names when the merchant chose one (its card may have
// expired since: the merchant chose that card, and a charge of it is refused
// as expired rather than moved to another card), else the computed one
// (Default). Reads: the named token (GetItem), else Default's query.
// Errors: as Default.
func (v *Vault) DefaultOf(ctx context.Context, c *Customer, now time.Time) (*CardToken, error) {
	if c.DefaultCardTokenID != "" {
		t, err := v.Token(ctx, c.AccountID, c.DefaultCardTokenID)
		switch {
		case err == nil && t.CustomerID == c.ID:
			return t, nil
		case err != nil && !apierr.Is(err, apierr.NotFound):
			return nil, err
		}
		// Gone, which DeleteOps never leaves: as if none was chosen.
	}
	return v.Default(ctx, c.AccountID, c.ID, now)
}

// Default is the customer's computed default card token: the one saved most
// recently (UpdatedAt, then the greater id), among those whose card has not
// expired at now. Errors: NotFound when the customer has none (no token, or
// every card expired), Unavailable, Internal.
func (v *Vault) Default(ctx context.Context, accountID, customerID string, now time.Time) (*CardToken, error) {
	var best *CardToken
	q := store.Query{Table: store.TablePayments, PK: CustomerTokensPK(accountID, customerID), Limit: 100}
	for read := 0; read < defaultBudget; {
		page, err := v.st.Query(ctx, q)
		if err != nil {
			return nil, apierr.Wrap("vault.Default", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			read++
			t, err := DecodeToken(it)
			if err != nil {
				return nil, err
			}
			if t.Expired(now) {
				continue
			}
			if best == nil || t.UpdatedAt.After(best.UpdatedAt) || (t.UpdatedAt.Equal(best.UpdatedAt) && t.ID > best.ID) {
				best = t
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	if best == nil {
		return nil, apierr.NotFoundf("customer %s has no card token that can be charged", customerID)
	}
	return best, nil
}

// MaxShopperTokens bounds the tokens checkout lists for a shopper (Adyen's
// storedPaymentMethods).
const MaxShopperTokens = 20

// ShopperTokens are the card tokens of the customer whose external_ref is
// ref (at most MaxShopperTokens), for checkout's storedPaymentMethods; a
// shopper without a customer yet is listed from its legacy stored cards.
// Errors: Unavailable, Internal.
func (v *Vault) ShopperTokens(ctx context.Context, accountID, ref string) ([]CardToken, error) {
	id, err := v.CustomerID(ctx, accountID, ref)
	if apierr.Is(err, apierr.NotFound) {
		legacy, err := v.legacyCards(ctx, accountID, ref, MaxShopperTokens)
		if err != nil {
			return nil, err
		}
		out := make([]CardToken, 0, len(legacy))
		for _, l := range legacy {
			out = append(out, *l.token(accountID, "", ref, time.Time{}, v.reference))
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	page, err := v.st.Query(ctx, store.Query{Table: store.TablePayments, PK: CustomerTokensPK(accountID, id), Limit: MaxShopperTokens})
	if err != nil {
		return nil, apierr.Wrap("vault.ShopperTokens", apierr.Unavailable, err)
	}
	out := make([]CardToken, 0, len(page.Items))
	for _, it := range page.Items {
		t, err := DecodeToken(it)
		if err != nil {
			return nil, err
		}
		out = append(out, *t)
	}
	return out, nil
}
