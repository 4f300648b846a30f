package checkout

// Adyen Checkout v71 shapes. Only fields the reference schemas name appear,
// because the reference response schemas forbid any other.

import (
	"slices"
	"strings"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Amount is Adyen's amount: integer minor units and an ISO 4217 code.
type Amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency" maxlen:"3"`
}

// LineItem is the subset of Adyen's LineItem the service accepts.
type LineItem struct {
	ID                 string `json:"id,omitempty"`
	Description        string `json:"description,omitempty" maxlen:"10000" chars:"text"` // shown to shoppers: line breaks and bidi text allowed
	Quantity           int64  `json:"quantity,omitempty"`
	AmountIncludingTax int64  `json:"amountIncludingTax,omitempty"`
	AmountExcludingTax int64  `json:"amountExcludingTax,omitempty"`
	TaxAmount          int64  `json:"taxAmount,omitempty"`
	TaxPercentage      int64  `json:"taxPercentage,omitempty"`
	SKU                string `json:"sku,omitempty"`
	ProductURL         string `json:"productUrl,omitempty" maxlen:"2048"`
	ImageURL           string `json:"imageUrl,omitempty" maxlen:"2048"`
	ItemCategory       string `json:"itemCategory,omitempty"`
}

// SessionResponse is CreateCheckoutSessionResponse.
type SessionResponse struct {
	ID               string            `json:"id"`
	SessionData      string            `json:"sessionData"`
	Amount           Amount            `json:"amount"`
	CountryCode      string            `json:"countryCode,omitempty"`
	ExpiresAt        string            `json:"expiresAt"`
	MerchantAccount  string            `json:"merchantAccount"`
	Reference        string            `json:"reference"`
	ReturnURL        string            `json:"returnUrl"`
	ShopperLocale    string            `json:"shopperLocale"`
	ShopperReference string            `json:"shopperReference,omitempty"`
	ShopperEmail     string            `json:"shopperEmail,omitempty"`
	Channel          string            `json:"channel,omitempty"`
	LineItems        []LineItem        `json:"lineItems,omitempty"`
	Mode             string            `json:"mode"`
	Metadata         map[string]string `json:"metadata,omitempty"`
	// The recurring fields, as the session was created with them.
	StorePaymentMethodMode   string `json:"storePaymentMethodMode,omitempty"`
	RecurringProcessingModel string `json:"recurringProcessingModel,omitempty"`
	ShopperInteraction       string `json:"shopperInteraction,omitempty"`
}

// SessionResult is SessionResultResponse.
type SessionResult struct {
	ID        string          `json:"id"`
	Status    Status          `json:"status"`
	Reference string          `json:"reference"`
	Payments  []ResultPayment `json:"payments"`
}

// ResultPayment is Adyen's Payment inside a session result.
type ResultPayment struct {
	PSPReference  string         `json:"pspReference"`
	ResultCode    string         `json:"resultCode"`
	Amount        Amount         `json:"amount"`
	PaymentMethod ResponseMethod `json:"paymentMethod"`
}

// ResponseMethod is ResponsePaymentMethod.
type ResponseMethod struct {
	Type  string `json:"type"`
	Brand string `json:"brand,omitempty"`
}

// MethodsResponse is PaymentMethodsResponse.
type MethodsResponse struct {
	PaymentMethods       []PaymentMethod `json:"paymentMethods"`
	StoredPaymentMethods []StoredMethod  `json:"storedPaymentMethods,omitempty"`
}

// PaymentMethod is Adyen's PaymentMethod.
type PaymentMethod struct {
	Type          string            `json:"type"`
	Name          string            `json:"name"`
	Brands        []string          `json:"brands,omitempty"`
	Configuration map[string]string `json:"configuration,omitempty"`
}

// StoredMethod is Adyen's StoredPaymentMethod.
type StoredMethod struct {
	ID                                 string   `json:"id"`
	Type                               string   `json:"type"`
	Brand                              string   `json:"brand"`
	Name                               string   `json:"name"`
	LastFour                           string   `json:"lastFour"`
	ExpiryMonth                        string   `json:"expiryMonth"`
	ExpiryYear                         string   `json:"expiryYear"`
	HolderName                         string   `json:"holderName,omitempty"`
	SupportedShopperInteractions       []string `json:"supportedShopperInteractions"`
	SupportedRecurringProcessingModels []string `json:"supportedRecurringProcessingModels,omitempty"`
}

// Action is CheckoutThreeDS2Action or CheckoutRedirectAction (by Type).
type Action struct {
	Type               string `json:"type"`
	Subtype            string `json:"subtype,omitempty"`
	Token              string `json:"token,omitempty"`
	PaymentData        string `json:"paymentData,omitempty"`
	AuthorisationToken string `json:"authorisationToken,omitempty"`
	PaymentMethodType  string `json:"paymentMethodType"`
	URL                string `json:"url,omitempty"`
	Method             string `json:"method,omitempty"`
}

// PaymentResponse is PaymentResponse and PaymentDetailsResponse (the details
// response names the same fields this service uses).
type PaymentResponse struct {
	ResultCode        string          `json:"resultCode"`
	PSPReference      string          `json:"pspReference,omitempty"`
	MerchantReference string          `json:"merchantReference,omitempty"`
	Amount            *Amount         `json:"amount,omitempty"`
	PaymentMethod     *ResponseMethod `json:"paymentMethod,omitempty"`
	RefusalReason     string          `json:"refusalReason,omitempty"`
	RefusalReasonCode string          `json:"refusalReasonCode,omitempty"`
	Action            *Action         `json:"action,omitempty"`
	// AdditionalData carries the recurring.* fields (recurring.go).
	AdditionalData map[string]string `json:"additionalData,omitempty"`
}

// Resource kinds of checkout responses (for version changes).
const (
	KindSession       = "checkout.session"
	KindSessionResult = "checkout.session_result"
	KindMethods       = "checkout.payment_methods"
	KindPayment       = "checkout.payment"
)

// BrowserInfo is Adyen's BrowserInfo, typed so that a body the document
// refuses is refused here too (unknown fields, wrong types; Adyen's integers
// here are int32). The sandbox processor reads none of it; a live 3-D Secure
// server would.
type BrowserInfo struct {
	AcceptHeader      string `json:"acceptHeader" maxlen:"2048"`
	ColorDepth        *int32 `json:"colorDepth"`
	JavaEnabled       *bool  `json:"javaEnabled"`
	JavaScriptEnabled *bool  `json:"javaScriptEnabled"`
	Language          string `json:"language" maxlen:"2048"`
	ScreenHeight      *int32 `json:"screenHeight"`
	ScreenWidth       *int32 `json:"screenWidth"`
	TimeZoneOffset    *int32 `json:"timeZoneOffset"`
	UserAgent         string `json:"userAgent" maxlen:"2048"`
}

// AuthenticationData is Adyen's AuthenticationData (3-D Secure preferences).
type AuthenticationData struct {
	AttemptAuthentication string              `json:"attemptAuthentication"`
	AuthenticationOnly    bool                `json:"authenticationOnly"`
	ThreeDSRequestData    *ThreeDSRequestData `json:"threeDSRequestData"`
}

// ThreeDSRequestData is Adyen's ThreeDSRequestData.
type ThreeDSRequestData struct {
	ChallengeWindowSize string `json:"challengeWindowSize"`
	DataOnly            string `json:"dataOnly"`
	NativeThreeDS       string `json:"nativeThreeDS"`
	ThreeDSVersion      string `json:"threeDSVersion"`
}

// check enforces the enums of Adyen's schema (the document states them).
func (a *AuthenticationData) check() error {
	if a == nil {
		return nil
	}
	if err := oneOf("authenticationData.attemptAuthentication", a.AttemptAuthentication, "always", "never"); err != nil {
		return err
	}
	if d := a.ThreeDSRequestData; d != nil {
		for _, f := range []struct {
			name, v string
			allowed []string
		}{
			{"challengeWindowSize", d.ChallengeWindowSize, []string{"01", "02", "03", "04", "05"}},
			{"dataOnly", d.DataOnly, []string{"false", "true"}},
			{"nativeThreeDS", d.NativeThreeDS, []string{"preferred", "disabled"}},
			{"threeDSVersion", d.ThreeDSVersion, []string{"2.1.0", "2.2.0"}},
		} {
			if err := oneOf("authenticationData.threeDSRequestData."+f.name, f.v, f.allowed...); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneOf accepts an absent (empty) value or one of allowed.
func oneOf(param, v string, allowed ...string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	return apierr.Invalidf(param, "%s must be one of %s", param, strings.Join(allowed, ", "))
}

// MaxListItems bounds the lists and maps of a checkout body (line items,
// additionalData entries, allowed and blocked payment methods).
const MaxListItems = 100

// checkLineItems holds line items to the session's rules: at most
// MaxListItems, no quantity or amount below 0 or above money.MaxMinor.
func checkLineItems(items []LineItem) error {
	if len(items) > MaxListItems {
		return apierr.Invalidf("lineItems", "at most %d line items", MaxListItems)
	}
	for i, li := range items {
		if min(li.Quantity, li.AmountIncludingTax, li.AmountExcludingTax, li.TaxAmount) < 0 || max(li.Quantity, li.AmountIncludingTax, li.AmountExcludingTax, li.TaxAmount) > money.MaxMinor {
			return apierr.Invalidf("lineItems", "lineItems[%d] has a quantity or amount below 0 or above %d", i, money.MaxMinor)
		}
	}
	return nil
}

// checkCount bounds a list or map of a body.
func checkCount(param string, n int) error {
	if n > MaxListItems {
		return apierr.Invalidf(param, "%s takes at most %d entries", param, MaxListItems)
	}
	return nil
}
