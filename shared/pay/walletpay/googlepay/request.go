package googlepay

// Card networks and auth methods the platform takes (Google Pay's names).
var (
	CardNetworks = []string{"AMEX", "MASTERCARD", "VISA"}
	AuthMethods  = []string{"PAN_ONLY", "CRYPTOGRAM_3DS"}
)

// CardMethod is the CARD entry of allowedPaymentMethods, in Google Pay's
// names: what the merchant's page passes to isReadyToPay and
// loadPaymentData as it is.
type CardMethod struct {
	Type                      string                    `json:"type"`
	Parameters                CardParameters            `json:"parameters"`
	TokenizationSpecification TokenizationSpecification `json:"tokenizationSpecification"`
}

// CardParameters are the CARD method's parameters.
type CardParameters struct {
	AllowedAuthMethods   []string `json:"allowedAuthMethods"`
	AllowedCardNetworks  []string `json:"allowedCardNetworks"`
	BillingAddressNeeded bool     `json:"billingAddressRequired"`
}

// TokenizationSpecification asks Google for a token for the gateway.
type TokenizationSpecification struct {
	Type       string            `json:"type"`
	Parameters map[string]string `json:"parameters"`
}

// MerchantInfo names the merchant on Google's sheet.
type MerchantInfo struct {
	MerchantName string `json:"merchantName"`
	MerchantID   string `json:"merchantId,omitempty"`
}

// TransactionInfo is the amount the sheet shows.
type TransactionInfo struct {
	TotalPriceStatus string `json:"totalPriceStatus"`
	TotalPrice       string `json:"totalPrice"`
	CurrencyCode     string `json:"currencyCode"`
	CountryCode      string `json:"countryCode,omitempty"`
}

// PaymentDataRequest is the request the page passes to loadPaymentData.
type PaymentDataRequest struct {
	APIVersion            int              `json:"apiVersion"`
	APIVersionMinor       int              `json:"apiVersionMinor"`
	MerchantInfo          MerchantInfo     `json:"merchantInfo"`
	AllowedPaymentMethods []CardMethod     `json:"allowedPaymentMethods"`
	TransactionInfo       *TransactionInfo `json:"transactionInfo,omitempty"`
}

// CardFor is the CARD method tokenised for the gateway and a merchant (its
// gatewayMerchantId, which the decrypted token must carry back).
func CardFor(gatewayMerchantID string) CardMethod {
	return CardMethod{Type: "CARD",
		Parameters: CardParameters{AllowedAuthMethods: AuthMethods, AllowedCardNetworks: CardNetworks},
		TokenizationSpecification: TokenizationSpecification{Type: "PAYMENT_GATEWAY",
			Parameters: map[string]string{"gateway": GatewayID, "gatewayMerchantId": gatewayMerchantID}}}
}
