package checkout

import (
	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/checkout/processor"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/payments"
)

// SessionsGroup is the CheckoutSessionsFunction. Idempotency-Key is handled
// inline (IdemNone at the platform) so a session is one write call.
func (svc *Service) SessionsGroup() httpapi.Group {
	return httpapi.Group{Name: "CheckoutSessionsFunction", Routes: []httpapi.Route{
		{Method: "POST", Path: "/v2/sessions", Auth: httpapi.AuthSecret, Handler: svc.createSession},
		{Method: "GET", Path: "/v2/sessions/{id}", Auth: httpapi.AuthSecret, Handler: svc.sessionResult},
	}}
}

// PaymentsGroup is the CheckoutPaymentsFunction (advanced flow).
func (svc *Service) PaymentsGroup() httpapi.Group {
	return httpapi.Group{Name: "CheckoutPaymentsFunction", Routes: []httpapi.Route{
		{Method: "POST", Path: "/v2/paymentMethods", Auth: httpapi.AuthSecret, Handler: svc.paymentMethods},
		{Method: "POST", Path: "/v2/payments", Auth: httpapi.AuthSecret, Handler: svc.advancedPayment},
		{Method: "POST", Path: "/v2/payments/details", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemOptional, Handler: svc.advancedDetails},
	}}
}

// ClientGroup is the CheckoutClientFunction: the drop-in's calls, with a
// client key from an allowed Origin and the session's sessionData.
func (svc *Service) ClientGroup() httpapi.Group {
	return httpapi.Group{Name: "CheckoutClientFunction", Routes: []httpapi.Route{
		{Method: "POST", Path: "/v2/client/sessions/{id}/setup", Auth: httpapi.AuthClient, Handler: svc.clientSetup},
		{Method: "POST", Path: "/v2/client/sessions/{id}/paymentMethods", Auth: httpapi.AuthClient, Handler: svc.clientMethods},
		{Method: "POST", Path: "/v2/client/sessions/{id}/payments", Auth: httpapi.AuthClient, Handler: svc.clientPayment},
		{Method: "POST", Path: "/v2/client/sessions/{id}/payments/details", Auth: httpapi.AuthClient, Idempotency: httpapi.IdemOptional, Handler: svc.clientDetails},
	}}
}

// TestHelpersGroup is the CheckoutTestHelpersFunction (test keys only).
func (svc *Service) TestHelpersGroup() httpapi.Group {
	return httpapi.Group{Name: "CheckoutTestHelpersFunction", Routes: []httpapi.Route{
		{Method: "POST", Path: "/test-helpers/payments/{id}/challenge", Auth: httpapi.AuthSecret, TestOnly: true, Handler: svc.completeChallenge},
	}}
}

func (svc *Service) advancedPayment(r *httpapi.Request) (*httpapi.Response, error) {
	if resp, err := replayIfDone(r); resp != nil || err != nil {
		return resp, err
	}
	var in PaymentRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return svc.submit(r, &in, nil)
}

func (svc *Service) advancedDetails(r *httpapi.Request) (*httpapi.Response, error) {
	var in DetailsRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return svc.paymentDetails(r, &in, "")
}

// clientSession loads the path's session for the client key's account and
// checks its sessionData.
func (svc *Service) clientSession(r *httpapi.Request, sessionData string) (*Session, error) {
	s, err := svc.loadSession(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if err := svc.checkSessionData(s, sessionData); err != nil {
		return nil, err
	}
	return s, nil
}

// SessionDataRequest is the body of setup and paymentMethods.
type SessionDataRequest struct {
	SessionData string `json:"sessionData" maxlen:"4096"`
}

// ClientSetup is what the drop-in needs to render a session.
type ClientSetup struct {
	ID             string          `json:"id"`
	SessionData    string          `json:"sessionData"`
	Amount         Amount          `json:"amount"`
	CountryCode    string          `json:"countryCode,omitempty"`
	ExpiresAt      string          `json:"expiresAt"`
	ReturnURL      string          `json:"returnUrl"`
	ShopperLocale  string          `json:"shopperLocale"`
	Status         string          `json:"status"`
	PaymentMethods MethodsResponse `json:"paymentMethods"`
}

func (svc *Service) clientSetup(r *httpapi.Request) (*httpapi.Response, error) {
	var in SessionDataRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.clientSession(r, in.SessionData)
	if err != nil {
		return nil, err
	}
	if err := s.payable(r.Now); err != nil {
		return nil, err
	}
	m, err := svc.methods(r.HTTP.Context(), s.AccountID, sessionFilter(s))
	if err != nil {
		return nil, err
	}
	v := s.response(in.SessionData)
	return httpapi.OK(KindSession, ClientSetup{ID: s.ID, SessionData: in.SessionData, Amount: s.Amount, CountryCode: s.CountryCode,
		ExpiresAt: v.ExpiresAt, ReturnURL: s.ReturnURL, ShopperLocale: s.ShopperLocale, Status: s.StatusAt(r.Now), PaymentMethods: m}), nil
}

func (svc *Service) clientMethods(r *httpapi.Request) (*httpapi.Response, error) {
	var in SessionDataRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.clientSession(r, in.SessionData)
	if err != nil {
		return nil, err
	}
	m, err := svc.methods(r.HTTP.Context(), s.AccountID, sessionFilter(s))
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindMethods, m), nil
}

// ClientPaymentRequest is a payment request with the session's sessionData.
type ClientPaymentRequest struct {
	PaymentRequest
	SessionData string `json:"sessionData" maxlen:"4096"`
}

func (svc *Service) clientPayment(r *httpapi.Request) (*httpapi.Response, error) {
	if resp, err := replayIfDone(r); resp != nil || err != nil {
		return resp, err
	}
	var in ClientPaymentRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.clientSession(r, in.SessionData)
	if err != nil {
		return nil, err
	}
	if in.MerchantAccount != "" && in.MerchantAccount != s.MerchantAccount {
		return nil, invalid("merchantAccount", "merchant_account_mismatch", "merchantAccount is not the session's")
	}
	return svc.submit(r, &in.PaymentRequest, s)
}

// ClientDetailsRequest is a details request with the session's sessionData.
type ClientDetailsRequest struct {
	DetailsRequest
	SessionData string `json:"sessionData" maxlen:"4096"`
}

func (svc *Service) clientDetails(r *httpapi.Request) (*httpapi.Response, error) {
	var in ClientDetailsRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.clientSession(r, in.SessionData)
	if err != nil {
		return nil, err
	}
	return svc.paymentDetails(r, &in.DetailsRequest, s.ID)
}

// ChallengeRequest is the test helper's body: the password the shopper
// types in the sandbox challenge.
type ChallengeRequest struct {
	Password string `json:"password"`
}

// completeChallenge passes (or fails) a payment's 3DS2 challenge as the
// shopper would, then answers like /payments/details.
func (svc *Service) completeChallenge(r *httpapi.Request) (*httpapi.Response, error) {
	var in ChallengeRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.Password == "" {
		return nil, apierr.Missing("password")
	}
	p, err := svc.pays.Get(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	if p.Status != payments.RequiresAction || p.Internal["stage"] != stageChallenge {
		return nil, apierr.New(apierr.Conflict, "no_challenge_pending", "payment %s is not waiting for a 3-D Secure challenge", p.ID)
	}
	return svc.complete(r, p, processor.ChallengeWithPassword(in.Password))
}
