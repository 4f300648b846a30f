package checkout

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/checkout/processor"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/store"
)

// Sandbox availability rules of /paymentMethods, documented in the README:
//   - scheme cards: always; brands visa and mc, plus amex for amexCurrencies;
//   - applepay: channel iOS or Web (or none sent), a positive amount, and a
//     country in walletCountries (or none sent);
//   - googlepay: channel Android or Web (or none sent), same amount and
//     country rules;
//   - storedPaymentMethods: the cards stored for shopperReference.
var amexCurrencies = []string{"AUD", "CAD", "EUR", "GBP", "JPY", "USD"}

var walletCountries = []string{
	"AE", "AT", "AU", "BE", "BR", "CA", "CH", "CZ", "DE", "DK", "ES", "FI", "FR", "GB", "GR", "HK", "IE", "IT",
	"JP", "KZ", "MX", "NL", "NO", "NZ", "PL", "PT", "SA", "SE", "SG", "US",
}

// MethodsAmount is the amount of a payment-methods request: value is
// required when the amount is sent (Adyen's schema), so it is a pointer.
type MethodsAmount struct {
	Value    *int64 `json:"value"`
	Currency string `json:"currency" maxlen:"3"`
}

// MethodsRequest is the accepted subset of PaymentMethodsRequest.
type MethodsRequest struct {
	MerchantAccount        string         `json:"merchantAccount"`
	Amount                 *MethodsAmount `json:"amount"`
	CountryCode            string         `json:"countryCode"`
	Channel                string         `json:"channel"`
	ShopperReference       string         `json:"shopperReference"`
	ShopperLocale          string         `json:"shopperLocale"`
	AllowedPaymentMethods  []string       `json:"allowedPaymentMethods"`
	BlockedPaymentMethods  []string       `json:"blockedPaymentMethods"`
	BrowserInfo            *BrowserInfo   `json:"browserInfo"`
	ShopperIP              string         `json:"shopperIP"`
	ShopperEmail           string         `json:"shopperEmail"`
	ShopperConversionID    string         `json:"shopperConversionId"`
	SplitCardFundingSource bool           `json:"splitCardFundingSources"`
}

type methodFilter struct {
	amount           *Amount
	country, channel string
	shopperRef       string
	allowed, blocked []string
}

func (f methodFilter) wants(t string) bool {
	if len(f.allowed) > 0 && !slices.Contains(f.allowed, t) {
		return false
	}
	return !slices.Contains(f.blocked, t)
}

func (f methodFilter) walletOK(channels ...string) bool {
	if f.channel != "" && !slices.Contains(channels, f.channel) {
		return false
	}
	if f.amount != nil && f.amount.Value == 0 {
		return false // wallets do not run zero-amount card validations here
	}
	return f.country == "" || slices.Contains(walletCountries, f.country)
}

func (svc *Service) methods(ctx context.Context, accountID string, f methodFilter) (MethodsResponse, error) {
	var out MethodsResponse
	if f.wants("scheme") {
		brands := []string{"visa", "mc"}
		if f.amount == nil || slices.Contains(amexCurrencies, f.amount.Currency) {
			brands = append(brands, "amex")
		}
		out.PaymentMethods = append(out.PaymentMethods, PaymentMethod{Type: "scheme", Name: "Cards", Brands: brands})
	}
	if f.wants("applepay") && f.walletOK("iOS", "Web") {
		out.PaymentMethods = append(out.PaymentMethods, PaymentMethod{Type: "applepay", Name: "Apple Pay",
			Configuration: map[string]string{"merchantName": "paygate sandbox", "merchantId": "merchant.test.paygate"}})
	}
	if f.wants("googlepay") && f.walletOK("Android", "Web") {
		out.PaymentMethods = append(out.PaymentMethods, PaymentMethod{Type: "googlepay", Name: "Google Pay",
			Configuration: map[string]string{"merchantName": "paygate sandbox", "gatewayMerchantId": "paygate-sandbox"}})
	}
	if out.PaymentMethods == nil {
		out.PaymentMethods = []PaymentMethod{}
	}
	if f.shopperRef != "" && f.wants("scheme") {
		cards, err := svc.storedCards(ctx, accountID, f.shopperRef)
		if err != nil {
			return out, err
		}
		for _, c := range cards {
			out.StoredPaymentMethods = append(out.StoredPaymentMethods, c.view())
		}
	}
	return out, nil
}

// paymentMethods serves POST /v2/paymentMethods.
func (svc *Service) paymentMethods(r *httpapi.Request) (*httpapi.Response, error) {
	var in MethodsRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if _, err := merchantAccountOf(r.Principal.MerchantAccount, in.MerchantAccount); err != nil {
		return nil, err
	}
	var amount *Amount
	if in.Amount != nil {
		if in.Amount.Value == nil {
			return nil, apierr.Missing("amount.value")
		}
		amount = &Amount{Value: *in.Amount.Value, Currency: in.Amount.Currency}
		if err := checkAmount(amount, true); err != nil {
			return nil, err
		}
	}
	if err := checkCount("allowedPaymentMethods", len(in.AllowedPaymentMethods)); err != nil {
		return nil, err
	}
	if err := checkCount("blockedPaymentMethods", len(in.BlockedPaymentMethods)); err != nil {
		return nil, err
	}
	if err := checkCountry("countryCode", in.CountryCode); err != nil {
		return nil, err
	}
	if err := checkChannel(in.Channel); err != nil {
		return nil, err
	}
	if in.ShopperReference != "" && (chars(in.ShopperReference) < MinShopperRef || chars(in.ShopperReference) > MaxShopperRef) {
		return nil, apierr.Invalidf("shopperReference", "shopperReference must have %d to %d characters", MinShopperRef, MaxShopperRef)
	}
	out, err := svc.methods(r.HTTP.Context(), r.AccountID(), methodFilter{
		amount: amount, country: in.CountryCode, channel: in.Channel, shopperRef: in.ShopperReference,
		allowed: in.AllowedPaymentMethods, blocked: in.BlockedPaymentMethods,
	})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindMethods, out), nil
}

func sessionFilter(s *Session) methodFilter {
	a := s.Amount
	return methodFilter{amount: &a, country: s.CountryCode, channel: s.Channel, shopperRef: s.ShopperReference}
}

// StoredCard is a card kept for a shopperReference after an authorised
// payment with storePaymentMethod. Only test-mode payments store cards (the
// sandbox keeps the test card number to re-run it through the processor).
type StoredCard struct {
	ID          string `json:"id"`
	Brand       string `json:"brand"`
	Last4       string `json:"last4"`
	ExpiryMonth string `json:"expiryMonth"`
	ExpiryYear  string `json:"expiryYear"`
	HolderName  string `json:"holderName,omitempty"`
	// Number is kept so the sandbox processor can replay the card's test
	// outcome. It is only ever one of the public sandbox test cards: raw
	// card data is refused for live keys, and only authorised cards are
	// stored, which in the sandbox means the documented test cards. A live
	// acquirer would keep its network token here instead, never a PAN.
	Number string `json:"number"`
}

// storedCard is the record kept for card c of shopperRef. Its id is a keyed
// fingerprint of the account, shopper, card number and expiry (never the
// number in clear), so one card stored twice is one stored method.
func (svc *Service) storedCard(accountID, shopperRef string, out processor.Outcome, c *processor.Card) StoredCard {
	num, month, year := cardIdentity(c.Number, c.ExpiryMonth, c.ExpiryYear)
	return StoredCard{ID: "spm_" + svc.signer.Fingerprint("stored-card", accountID, shopperRef, num, month, year),
		Brand: out.Brand, Last4: out.Last4, ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear, HolderName: c.HolderName, Number: c.Number}
}

// cardIdentity normalises what makes two stored cards the same card: the
// number without spaces, a two-digit month and a four-digit year.
func cardIdentity(number, month, year string) (string, string, string) {
	number = strings.ReplaceAll(number, " ", "")
	if len(month) == 1 {
		month = "0" + month
	}
	if len(year) == 2 {
		year = "20" + year
	}
	return number, month, year
}

// MaxStoredCards bounds the cards listed per shopper.
const MaxStoredCards = 20

func storedPK(accountID, shopperRef string) string { return "spm#" + accountID + "#" + shopperRef }

func storedKey(accountID, shopperRef, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: storedPK(accountID, shopperRef), SK: id}
}

func (svc *Service) storedCards(ctx context.Context, accountID, shopperRef string) ([]StoredCard, error) {
	page, err := svc.st.Query(ctx, store.Query{Table: store.TablePayments, PK: storedPK(accountID, shopperRef), Limit: MaxStoredCards})
	if err != nil {
		return nil, apierr.Wrap("checkout.storedCards", apierr.Unavailable, err)
	}
	out := make([]StoredCard, 0, len(page.Items))
	seen := map[[3]string]bool{}
	for _, it := range page.Items {
		var c StoredCard
		if err := json.Unmarshal(it.Data, &c); err != nil {
			return nil, apierr.Wrap("checkout.storedCards", apierr.Internal, err)
		}
		// One card kept under two ids (random ids from before fingerprints,
		// or fingerprints under a rotated key) is listed once; both ids pay.
		n, m, y := cardIdentity(c.Number, c.ExpiryMonth, c.ExpiryYear)
		if id := [3]string{n, m, y}; !seen[id] {
			seen[id] = true
			out = append(out, c)
		}
	}
	return out, nil
}

func (c StoredCard) view() StoredMethod {
	return StoredMethod{
		ID: c.ID, Type: "scheme", Brand: c.Brand, Name: brandName(c.Brand), LastFour: c.Last4,
		ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear, HolderName: c.HolderName,
		SupportedShopperInteractions:       []string{"Ecommerce", "ContAuth"},
		SupportedRecurringProcessingModels: []string{"CardOnFile"},
	}
}

func brandName(b string) string {
	switch b {
	case "visa":
		return "VISA"
	case "mc":
		return "MasterCard"
	case "amex":
		return "American Express"
	}
	return b
}
