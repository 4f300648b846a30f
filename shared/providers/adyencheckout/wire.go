package adyencheckout

// Adyen Checkout v71's shapes, the fields the connector sends and reads.

type amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency"`
}

// methodDetails is CardDetails (type scheme), ApplePayDetails and
// GooglePayDetails.
type methodDetails struct {
	Type                  string `json:"type"`
	Number                string `json:"number,omitempty"`
	ExpiryMonth           string `json:"expiryMonth,omitempty"`
	ExpiryYear            string `json:"expiryYear,omitempty"`
	CVC                   string `json:"cvc,omitempty"`
	EncryptedCardNumber   string `json:"encryptedCardNumber,omitempty"`
	EncryptedExpiryMonth  string `json:"encryptedExpiryMonth,omitempty"`
	EncryptedExpiryYear   string `json:"encryptedExpiryYear,omitempty"`
	EncryptedSecurityCode string `json:"encryptedSecurityCode,omitempty"`
	HolderName            string `json:"holderName,omitempty"`
	StoredPaymentMethodID string `json:"storedPaymentMethodId,omitempty"`
	ApplePayToken         string `json:"applePayToken,omitempty"`
	GooglePayToken        string `json:"googlePayToken,omitempty"`
}

// paymentRequest is PaymentRequest.
type paymentRequest struct {
	MerchantAccount          string            `json:"merchantAccount"`
	Amount                   amount            `json:"amount"`
	Reference                string            `json:"reference"`
	ReturnURL                string            `json:"returnUrl"`
	PaymentMethod            methodDetails     `json:"paymentMethod"`
	Channel                  string            `json:"channel,omitempty"`
	ShopperReference         string            `json:"shopperReference,omitempty"`
	ShopperInteraction       string            `json:"shopperInteraction,omitempty"`
	RecurringProcessingModel string            `json:"recurringProcessingModel,omitempty"`
	StorePaymentMethod       bool              `json:"storePaymentMethod,omitempty"`
	AdditionalData           map[string]string `json:"additionalData,omitempty"`
}

// detailsRequest is PaymentDetailsRequest.
type detailsRequest struct {
	Details     completionDetails `json:"details"`
	PaymentData string            `json:"paymentData,omitempty"`
}

// completionDetails is PaymentCompletionDetails.
type completionDetails struct {
	ThreeDSResult  string `json:"threeDSResult,omitempty"`
	RedirectResult string `json:"redirectResult,omitempty"`
}

// threeDSResult is details.threeDSResult before its base64, as Adyen's
// 3DS2 component builds it.
type threeDSResult struct {
	TransStatus        string `json:"transStatus,omitempty"`
	AuthorisationToken string `json:"authorisationToken,omitempty"`
	ThreeDSCompInd     string `json:"threeDSCompInd,omitempty"`
}

// paymentResponse is PaymentResponse and PaymentDetailsResponse: the
// fields read.
type paymentResponse struct {
	ResultCode        string `json:"resultCode"`
	PSPReference      string `json:"pspReference"`
	MerchantReference string `json:"merchantReference"`
	RefusalReason     string `json:"refusalReason"`
	RefusalReasonCode string `json:"refusalReasonCode"`
	PaymentMethod     *struct {
		Type  string `json:"type"`
		Brand string `json:"brand"`
	} `json:"paymentMethod"`
	Action         *action           `json:"action"`
	AdditionalData map[string]string `json:"additionalData"`
}

// action is CheckoutThreeDS2Action or CheckoutRedirectAction (the others
// are no card's).
type action struct {
	Type               string            `json:"type"`
	Subtype            string            `json:"subtype"`
	Token              string            `json:"token"`
	PaymentData        string            `json:"paymentData"`
	AuthorisationToken string            `json:"authorisationToken"`
	PaymentMethodType  string            `json:"paymentMethodType"`
	URL                string            `json:"url"`
	Method             string            `json:"method"`
	Data               map[string]string `json:"data"`
}

// modificationRequest is PaymentCaptureRequest, PaymentRefundRequest,
// PaymentCancelRequest and PaymentReversalRequest (no amount).
type modificationRequest struct {
	MerchantAccount string  `json:"merchantAccount"`
	Amount          *amount `json:"amount,omitempty"`
	Reference       string  `json:"reference,omitempty"`
}

// modificationResponse is the modifications' answer: the fields read.
type modificationResponse struct {
	PSPReference string `json:"pspReference"`
	Status       string `json:"status"`
}

// stepData is what Outcome.Data keeps for the step (JSON): the action's
// paymentData and authorisationToken, which the details call needs back.
type stepData struct {
	PaymentData        string `json:"paymentData,omitempty"`
	AuthorisationToken string `json:"authorisationToken,omitempty"`
}
