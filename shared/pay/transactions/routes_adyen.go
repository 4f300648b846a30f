package transactions

import (
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// The Adyen face: Adyen Checkout v71's modification routes over this
// package's services, so a merchant's Adyen library captures, refunds,
// cancels and reverses with its base URL changed and nothing else. The
// routes hold no logic of their own: each one decodes Adyen's request, calls
// the same service method as the Pay API route, and answers Adyen's
// modification response.
//
// Adyen modifications are asynchronous: the answer is 201 with status
// "received", and the outcome follows as a webhook. Here the change is made
// before the answer (the webhook of the change follows as for /v1), so a
// modification that cannot be made is refused at once, in the service's
// error body, with the same status as on /v1 (a 400 naming the field, a 409
// naming the payment's status). Each modification answers its own
// pspReference: a refund's is the refund transaction's id (a /v1
// transaction of type refund); a capture's, cancel's or amount update's is
// the id of the request that made it, which the payment's /v1 history shows
// as the entry's request_id.

// KindModification is the resource kind of a modification answer (no
// version changes: checkout's shapes are Adyen's).
const KindModification = "checkout_modification"

// Received is the one status of an Adyen modification answer.
const Received = "received"

// ModificationRequest is the accepted subset of Adyen's PaymentCaptureRequest,
// PaymentRefundRequest, PaymentCancelRequest, PaymentReversalRequest and
// PaymentAmountUpdateRequest: what a modification of one payment may carry.
// Fields a route does not take are refused by its own type below.
type modificationBase struct {
	MerchantAccount string                 `json:"merchantAccount"`
	Reference       string                 `json:"reference" maxlen:"80"`
	ApplicationInfo *adyen.ApplicationInfo `json:"applicationInfo"` // sent by Adyen's libraries; ignored
}

// CaptureModification is Adyen's PaymentCaptureRequest subset.
type CaptureModification struct {
	modificationBase
	Amount *adyen.Amount `json:"amount"`
}

// RefundModification is Adyen's PaymentRefundRequest subset.
type RefundModification struct {
	modificationBase
	Amount               *adyen.Amount `json:"amount"`
	MerchantRefundReason string        `json:"merchantRefundReason"`
}

// CancelModification is Adyen's PaymentCancelRequest and
// PaymentReversalRequest subset.
type CancelModification struct {
	modificationBase
}

// AmountUpdateModification is Adyen's PaymentAmountUpdateRequest subset.
type AmountUpdateModification struct {
	modificationBase
	Amount        *adyen.Amount `json:"amount"`
	IndustryUsage string        `json:"industryUsage"`
}

// StandaloneCancel is Adyen's StandalonePaymentCancelRequest subset.
type StandaloneCancel struct {
	modificationBase
	PaymentReference string `json:"paymentReference" maxlen:"128"`
}

// ModificationResponse is the answer of every modification of one payment:
// Adyen's PaymentCaptureResponse, PaymentRefundResponse,
// PaymentCancelResponse, PaymentReversalResponse and
// PaymentAmountUpdateResponse, each of which names a subset of these fields.
type ModificationResponse struct {
	MerchantAccount      string        `json:"merchantAccount"`
	PaymentPSPReference  string        `json:"paymentPspReference,omitempty"`
	PaymentReference     string        `json:"paymentReference,omitempty"` // the standalone cancel's
	PSPReference         string        `json:"pspReference"`
	Reference            *string       `json:"reference,omitempty"`
	Status               string        `json:"status"`
	Amount               *adyen.Amount `json:"amount,omitempty"`
	MerchantRefundReason string        `json:"merchantRefundReason,omitempty"`
	IndustryUsage        string        `json:"industryUsage,omitempty"`
}

// refundReasons are Adyen's merchantRefundReason values.
var refundReasons = map[string]bool{"FRAUD": true, "CUSTOMER REQUEST": true, "RETURN": true, "DUPLICATE": true, "OTHER": true}

// industryUsages are Adyen's PaymentAmountUpdateRequest.industryUsage values.
var industryUsages = map[string]bool{"delayedCharge": true, "installment": true, "noShow": true}

// ModificationsGroup is the CheckoutModificationsFunction's routes (declared
// in ModificationsGroup).
func (s *Service) ModificationsGroup() httpapi.Group {
	return ModificationsGroup.Bind(map[string]httpapi.Handler{
		"POST /v2/payments/{paymentPspReference}/captures":      s.adyenCapture,
		"POST /v2/payments/{paymentPspReference}/refunds":       s.adyenRefund,
		"POST /v2/payments/{paymentPspReference}/cancels":       s.adyenCancel,
		"POST /v2/payments/{paymentPspReference}/reversals":     s.adyenReversal,
		"POST /v2/payments/{paymentPspReference}/amountUpdates": s.adyenAmountUpdate,
		"POST /v2/cancels": s.adyenStandaloneCancel,
	})
}

// adyenInput decodes body into v, checks the merchant account and the
// payment's pspReference, and builds the service input.
func adyenInput(r *httpapi.Request, v any, base *modificationBase) (OpInput, error) {
	in := OpInput{AccountID: r.AccountID(), Idem: r.Idem(), RequestID: r.ID, KeyOptional: true}
	if err := r.Decode(v); err != nil {
		return in, err
	}
	if err := checkMerchantAccount(r, base.MerchantAccount); err != nil {
		return in, err
	}
	if r.PathValue("paymentPspReference") != "" {
		in.ID = r.PathValue("paymentPspReference")
		if _, err := ids.ParseField("paymentPspReference", in.ID); err != nil {
			return in, err
		}
	}
	return in, nil
}

// checkMerchantAccount: Adyen requires merchantAccount on every
// modification; here it must be the API key's own.
func checkMerchantAccount(r *httpapi.Request, sent string) error {
	if r.Principal == nil {
		return adyen.CheckMerchantAccount(sent, "")
	}
	return adyen.CheckMerchantAccount(sent, r.Principal.MerchantAccount)
}

// adyenAmount checks a required Adyen amount and returns its value and
// currency for the service (which checks them against the payment).
func adyenAmount(a *adyen.Amount) (*int64, string, error) {
	if a == nil {
		return nil, "", apierr.Missing("amount")
	}
	if a.Value <= 0 || a.Value > money.MaxMinor {
		return nil, "", apierr.Invalidf("amount.value", "amount.value must be an integer from 1 to %d in minor units of the payment's currency", money.MaxMinor)
	}
	c := a.Currency
	if c == "" {
		return nil, "", apierr.Missing("amount.currency")
	}
	if _, err := checkCurrency(&c); err != nil {
		return nil, "", apierr.Invalidf("amount.currency", "amount.currency must be an ISO 4217 code in capitals, the payment's")
	}
	v := a.Value
	return &v, c, nil
}

// adyenError names Adyen's fields in a service error: amount.value and
// amount.currency for the Pay API's amount and currency.
func adyenError(err error) error {
	e := apierr.As(err)
	if e == nil {
		return err
	}
	switch e.Param {
	case "amount":
		c := *e
		c.Param = "amount.value"
		return &c
	case "currency":
		c := *e
		c.Param = "amount.currency"
		return &c
	}
	return err
}

func reference(b modificationBase) *string {
	if b.Reference == "" {
		return nil
	}
	ref := b.Reference
	return &ref
}

// modify runs one modification: in.Answer (the 201 Adyen body, built from the
// transaction the service answers) is both what the Idempotency-Key records
// and what this call renders, so a replay is the same bytes.
func modify(r *httpapi.Request, in OpInput, run func(OpInput) (*Transaction, error), answer func(Transaction) ModificationResponse) (*httpapi.Response, error) {
	in.Answer = func(t Transaction) idempotency.Outcome {
		return idempotency.Outcome{Created: true, Kind: KindModification, Value: answer(t)}
	}
	t, err := run(in)
	if err != nil {
		return nil, adyenError(err)
	}
	return httpapi.Created(KindModification, answer(*t)), nil
}

func (s *Service) adyenCapture(r *httpapi.Request) (*httpapi.Response, error) {
	var body CaptureModification
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	if in.Amount, in.Currency, err = adyenAmount(body.Amount); err != nil {
		return nil, err
	}
	return modify(r, in, func(in OpInput) (*Transaction, error) { return s.Capture(r.HTTP.Context(), in) },
		func(t Transaction) ModificationResponse {
			return ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentPSPReference: t.ID, PSPReference: r.ID,
				Reference: reference(body.modificationBase), Status: Received, Amount: body.Amount}
		})
}

func (s *Service) adyenRefund(r *httpapi.Request) (*httpapi.Response, error) {
	var body RefundModification
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	if in.Amount, in.Currency, err = adyenAmount(body.Amount); err != nil {
		return nil, err
	}
	if body.MerchantRefundReason != "" && !refundReasons[body.MerchantRefundReason] {
		return nil, apierr.Invalidf("merchantRefundReason", "merchantRefundReason must be FRAUD, CUSTOMER REQUEST, RETURN, DUPLICATE or OTHER")
	}
	in.Reason = body.MerchantRefundReason
	if in.Reason == "" {
		in.Reason = body.Reference
	}
	return modify(r, in, func(in OpInput) (*Transaction, error) { return s.Refund(r.HTTP.Context(), in) },
		func(t Transaction) ModificationResponse {
			// t is the refund: its id is the modification's pspReference.
			return ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentPSPReference: t.ParentTransactionID,
				PSPReference: t.ID, Reference: reference(body.modificationBase), Status: Received, Amount: body.Amount,
				MerchantRefundReason: body.MerchantRefundReason}
		})
}

func (s *Service) adyenCancel(r *httpapi.Request) (*httpapi.Response, error) {
	var body CancelModification
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	in.Reason = body.Reference
	return modify(r, in, func(in OpInput) (*Transaction, error) { return s.Cancel(r.HTTP.Context(), in) },
		func(t Transaction) ModificationResponse {
			return ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentPSPReference: t.ID, PSPReference: r.ID,
				Reference: reference(body.modificationBase), Status: Received}
		})
}

func (s *Service) adyenReversal(r *httpapi.Request) (*httpapi.Response, error) {
	var body CancelModification
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	in.Reason = body.Reference
	return modify(r, in, func(in OpInput) (*Transaction, error) { return s.Reverse(r.HTTP.Context(), in) },
		func(t Transaction) ModificationResponse {
			resp := ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentPSPReference: t.ID, PSPReference: r.ID,
				Reference: reference(body.modificationBase), Status: Received}
			if t.Type == payments.TypeRefund { // a captured payment was refunded: the refund is the modification
				resp.PaymentPSPReference, resp.PSPReference = t.ParentTransactionID, t.ID
			}
			return resp
		})
}

func (s *Service) adyenAmountUpdate(r *httpapi.Request) (*httpapi.Response, error) {
	var body AmountUpdateModification
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	if in.Amount, in.Currency, err = adyenAmount(body.Amount); err != nil {
		return nil, err
	}
	if body.IndustryUsage != "" && !industryUsages[body.IndustryUsage] {
		return nil, apierr.Invalidf("industryUsage", "industryUsage must be delayedCharge, installment or noShow")
	}
	ref := body.Reference // required in Adyen's answer: empty when not sent
	return modify(r, in, func(in OpInput) (*Transaction, error) { return s.UpdateAmount(r.HTTP.Context(), in) },
		func(t Transaction) ModificationResponse {
			return ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentPSPReference: t.ID, PSPReference: r.ID,
				Reference: &ref, Status: Received, Amount: body.Amount, IndustryUsage: body.IndustryUsage}
		})
}

func (s *Service) adyenStandaloneCancel(r *httpapi.Request) (*httpapi.Response, error) {
	var body StandaloneCancel
	in, err := adyenInput(r, &body, &body.modificationBase)
	if err != nil {
		return nil, err
	}
	if body.PaymentReference == "" {
		return nil, apierr.Missing("paymentReference")
	}
	if err := checkReference("paymentReference", body.PaymentReference); err != nil {
		return nil, err
	}
	in.Reason = body.Reference
	return modify(r, in, func(in OpInput) (*Transaction, error) {
		return s.CancelByReference(r.HTTP.Context(), in, body.PaymentReference)
	}, func(Transaction) ModificationResponse {
		return ModificationResponse{MerchantAccount: body.MerchantAccount, PaymentReference: body.PaymentReference,
			PSPReference: r.ID, Reference: reference(body.modificationBase), Status: Received}
	})
}
