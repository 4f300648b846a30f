package customers

import (
	"net/http"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// StoredMethodsResponse is Adyen's ListStoredPaymentMethodsResponse.
type StoredMethodsResponse struct {
	MerchantAccount      string         `json:"merchantAccount"`
	ShopperReference     string         `json:"shopperReference"`
	StoredPaymentMethods []StoredMethod `json:"storedPaymentMethods"`
}

// StoredMethod is Adyen's StoredPaymentMethodResource: a card token, by
// the same id checkout takes as storedPaymentMethodId.
type StoredMethod struct {
	ID                                 string   `json:"id"`
	Type                               string   `json:"type"`
	Brand                              string   `json:"brand"`
	Name                               string   `json:"name,omitempty"`
	LastFour                           string   `json:"lastFour"`
	ExpiryMonth                        string   `json:"expiryMonth"`
	ExpiryYear                         string   `json:"expiryYear"` // the last two digits, as Adyen's
	HolderName                         string   `json:"holderName,omitempty"`
	ShopperReference                   string   `json:"shopperReference"`
	SupportedRecurringProcessingModels []string `json:"supportedRecurringProcessingModels"`
}

// storedMethod is a card token as Adyen lists it.
func storedMethod(t vault.CardToken, shopperRef string) StoredMethod {
	year := t.ExpiryYear
	if len(year) == 4 {
		year = year[2:]
	}
	return StoredMethod{ID: t.ID, Type: "scheme", Brand: t.Brand, Name: brandNames[t.Brand], LastFour: t.Last4,
		ExpiryMonth: t.ExpiryMonth, ExpiryYear: year, HolderName: t.HolderName, ShopperReference: shopperRef,
		SupportedRecurringProcessingModels: []string{"CardOnFile", "Subscription", "UnscheduledCardOnFile"}}
}

// brandNames are the brands' display names, as Adyen names them.
var brandNames = map[string]string{"visa": "VISA", "mc": "MasterCard", "amex": "American Express"}

// maxMerchantAccount bounds merchantAccount, as on every /v2 route.
const maxMerchantAccount = 256

// checkQueryLengths refuses a query parameter over its documented maximum
// before anything else is read, so the answer names it.
func checkQueryLengths(r *httpapi.Request) error {
	for _, q := range []struct {
		name string
		max  int
	}{{"shopperReference", MaxExternalRef}, {"merchantAccount", maxMerchantAccount}} {
		if utf8.RuneCountInString(r.Query(q.name)) > q.max {
			return apierr.Invalidf(q.name, "%s must be at most %d characters", q.name, q.max)
		}
	}
	return nil
}

// adyenQuery reads the shopperReference and merchantAccount every stored
// payment method route takes as query parameters, Adyen's way.
func adyenQuery(r *httpapi.Request) (shopperRef string, err error) {
	own := ""
	if r.Principal != nil {
		own = r.Principal.MerchantAccount
	}
	if err := adyen.CheckMerchantAccount(r.Query("merchantAccount"), own); err != nil {
		return "", err
	}
	return r.Query("shopperReference"), nil
}

func (s *Service) adyenStoredMethods(r *httpapi.Request) (*httpapi.Response, error) {
	if err := checkQueryLengths(r); err != nil {
		return nil, err
	}
	ref, err := adyenQuery(r)
	if err != nil {
		return nil, err
	}
	tokens, err := s.StoredMethods(r.HTTP.Context(), r.AccountID(), ref)
	if err != nil {
		return nil, err
	}
	out := StoredMethodsResponse{MerchantAccount: r.Query("merchantAccount"), ShopperReference: ref, StoredPaymentMethods: []StoredMethod{}}
	for _, t := range tokens {
		out.StoredPaymentMethods = append(out.StoredPaymentMethods, storedMethod(t, ref))
	}
	return httpapi.OK("", out), nil
}

func (s *Service) adyenDisableStored(r *httpapi.Request) (*httpapi.Response, error) {
	if err := checkQueryLengths(r); err != nil {
		return nil, err
	}
	id := r.PathValue("storedPaymentMethodId")
	if err := checkTokenID("storedPaymentMethodId", id); err != nil {
		return nil, err
	}
	ref, err := adyenQuery(r)
	if err != nil {
		return nil, err
	}
	if err := s.DisableStored(r.HTTP.Context(), r.AccountID(), ref, id); err != nil {
		return nil, err
	}
	return &httpapi.Response{Status: http.StatusNoContent}, nil
}
