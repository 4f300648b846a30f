package checkout

import (
	"context"
	"slices"

	"github.com/paygate/paygate/shared/domain/vault"
)

// Sandbox availability rules of /paymentMethods, documented in docs/payments.md:
//   - scheme cards: always; brands visa and mc, plus amex for amexCurrencies;
//   - applepay: channel iOS or Web (or none sent), a positive amount, and a
//     country in walletCountries (or none sent);
//   - googlepay: channel Android or Web (or none sent), same amount and
//     country rules;
//   - storedPaymentMethods: the card tokens of the customer whose
//     external_ref is shopperReference (shared/domain/vault).
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
		tokens, err := svc.vault.ShopperTokens(ctx, accountID, f.shopperRef)
		if err != nil {
			return out, err
		}
		for _, t := range tokens {
			out.StoredPaymentMethods = append(out.StoredPaymentMethods, storedMethod(t))
		}
	}
	return out, nil
}

func sessionFilter(s *Session) methodFilter {
	a := s.Amount
	return methodFilter{amount: &a, country: s.CountryCode, channel: s.Channel, shopperRef: s.ShopperReference}
}

// storedMethod is a card token as Adyen's stored payment method: the same
// id, usable as storedPaymentMethodId.
func storedMethod(c vault.CardToken) StoredMethod {
	return StoredMethod{
		ID: c.ID, Type: "scheme", Brand: c.Brand, Name: brandName(c.Brand), LastFour: c.Last4,
		ExpiryMonth: c.ExpiryMonth, ExpiryYear: c.ExpiryYear, HolderName: c.HolderName,
		SupportedShopperInteractions:       []string{"Ecommerce", "ContAuth"},
		SupportedRecurringProcessingModels: []string{"CardOnFile", "Subscription", "UnscheduledCardOnFile"},
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
