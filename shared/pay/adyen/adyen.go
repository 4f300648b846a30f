// Package adyen holds the Adyen Checkout v71 shapes that the service's Adyen
// faces share (the modifications of shared/pay/transactions, the payment links
// of shared/pay/links): request fields Adyen's libraries send that mean nothing
// here but must be accepted so those libraries work as they are.
package adyen

import "github.com/paygate/paygate/shared/platform/apierr"

// ApplicationInfo is Adyen's ApplicationInfo: which library and platform
// sent the request. Accepted and ignored.
type ApplicationInfo struct {
	AdyenLibrary       *CommonField `json:"adyenLibrary"`
	AdyenPaymentSource *CommonField `json:"adyenPaymentSource"`
	ExternalPlatform   *struct {
		Integrator string `json:"integrator"`
		Name       string `json:"name"`
		Version    string `json:"version"`
	} `json:"externalPlatform"`
	MerchantApplication *CommonField `json:"merchantApplication"`
	MerchantDevice      *struct {
		OS        string `json:"os"`
		OSVersion string `json:"osVersion"`
		Reference string `json:"reference"`
	} `json:"merchantDevice"`
	ShopperInteractionDevice *struct {
		Locale    string `json:"locale"`
		OS        string `json:"os"`
		OSVersion string `json:"osVersion"`
	} `json:"shopperInteractionDevice"`
}

// CommonField is Adyen's CommonField: a name and a version.
type CommonField struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Amount is Adyen's Amount: a value in minor units and a currency code.
type Amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency" maxlen:"3"`
}

// CodeMerchantAccountMismatch is the answer when an Adyen-face request names
// a merchantAccount other than the caller's.
var CodeMerchantAccountMismatch = apierr.Register(apierr.CodeInfo{Name: "merchant_account_mismatch", Kind: apierr.Invalid,
	Param: "merchantAccount", Meaning: "merchantAccount is not the account of the API key (or of the session)."})

// CheckMerchantAccount holds Adyen's rule that a request names its
// merchantAccount, which here must be the API key's own (own).
func CheckMerchantAccount(sent, own string) error {
	if sent == "" {
		return apierr.Missing("merchantAccount")
	}
	if sent != own {
		return apierr.New(CodeMerchantAccountMismatch, "merchantAccount %s is not the merchant account of this API key", sent)
	}
	return nil
}
