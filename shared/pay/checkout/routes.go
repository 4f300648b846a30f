package checkout

import (
	"context"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// SessionsGroup is the CheckoutSessionsFunction (declared in the package's
// SessionsGroup variable, as are the groups below).
func (svc *Service) SessionsGroup() httpapi.Group {
	return SessionsGroup.Bind(map[string]httpapi.Handler{
		"POST /v2/sessions":     svc.createSession,
		"GET /v2/sessions/{id}": svc.sessionResult,
	})
}

// PaymentsGroup is the CheckoutPaymentsFunction (advanced flow).
func (svc *Service) PaymentsGroup() httpapi.Group {
	return PaymentsGroup.Bind(map[string]httpapi.Handler{
		"POST /v2/paymentMethods":   svc.paymentMethods,
		"POST /v2/payments":         svc.advancedPayment,
		"POST /v2/payments/details": svc.advancedDetails,
	})
}

// ClientGroup is the CheckoutClientFunction: the drop-in's calls, with a
// client key from an allowed Origin and the session's sessionData.
func (svc *Service) ClientGroup() httpapi.Group {
	return ClientGroup.Bind(map[string]httpapi.Handler{
		"POST /v2/client/sessions/{id}/setup":            svc.clientSetup,
		"POST /v2/client/sessions/{id}/paymentMethods":   svc.clientMethods,
		"POST /v2/client/sessions/{id}/payments":         svc.clientPayment,
		"POST /v2/client/sessions/{id}/payments/details": svc.clientDetails,
		// CORS preflights (cors.go).
		"OPTIONS /v2/client/sessions/{id}/setup":            svc.preflight,
		"OPTIONS /v2/client/sessions/{id}/paymentMethods":   svc.preflight,
		"OPTIONS /v2/client/sessions/{id}/payments":         svc.preflight,
		"OPTIONS /v2/client/sessions/{id}/payments/details": svc.preflight,
	})
}

// TestHelpersGroup is the CheckoutTestHelpersFunction (test keys only).
func (svc *Service) TestHelpersGroup() httpapi.Group {
	return TestHelpersGroup.Bind(map[string]httpapi.Handler{
		"POST /test-helpers/payments/{id}/challenge": svc.completeChallenge,
	})
}

// caller is the typed caller of a request, for the service.
func caller(r *httpapi.Request) Caller {
	return Caller{AccountID: r.AccountID(), MerchantAccount: r.Principal.MerchantAccount, TestMode: r.TestMode(),
		Now: r.Now, Idem: r.Idem(), Log: r.Log}
}

// createSession serves POST /v2/sessions.
func (svc *Service) createSession(r *httpapi.Request) (*httpapi.Response, error) {
	var in CreateSessionRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.CreateSession(r.HTTP.Context(), caller(r), in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindSession, s), nil
}

func (svc *Service) advancedPayment(r *httpapi.Request) (*httpapi.Response, error) {
	var in PaymentRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return payment(svc.Pay(r.HTTP.Context(), caller(r), in))
}

func (svc *Service) advancedDetails(r *httpapi.Request) (*httpapi.Response, error) {
	var in DetailsRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return payment(svc.Details(r.HTTP.Context(), caller(r), in))
}

// payment renders a payment operation's answer.
func payment(p *PaymentResponse, err error) (*httpapi.Response, error) {
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindPayment, p), nil
}

// clientSession loads a session of the client key's account and checks its
// sessionData.
func (svc *Service) clientSession(ctx context.Context, accountID, id, sessionData string) (*Session, error) {
	s, err := svc.loadSession(ctx, accountID, id)
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
	Status         Status          `json:"status"`
	PaymentMethods MethodsResponse `json:"paymentMethods"`
	// ClientEncryptionKey is the card key the Drop-in encrypts card fields
	// with (the current one); absent where the keyring has none.
	ClientEncryptionKey *EncryptionKey `json:"clientEncryptionKey,omitempty"`
}

func (svc *Service) clientSetup(r *httpapi.Request) (*httpapi.Response, error) {
	var in SessionDataRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	setup, err := svc.Setup(r.HTTP.Context(), caller(r), r.PathValue("id"), in.SessionData)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindSession, setup), nil
}

// Setup is what the drop-in needs to render session sessionID, after its
// sessionData is checked: the session's amount and status, the payment
// methods it offers and the public key it encrypts card fields with. Errors: Invalid (sessionData), NotFound, Conflict (the
// session takes no payment: expired, completed, refused, canceled),
// Unavailable.
func (svc *Service) Setup(ctx context.Context, c Caller, sessionID, sessionData string) (*ClientSetup, error) {
	s, err := svc.clientSession(ctx, c.AccountID, sessionID, sessionData)
	if err != nil {
		return nil, err
	}
	if err := s.payable(c.Now); err != nil {
		return nil, err
	}
	m, err := svc.methods(ctx, s.AccountID, sessionFilter(s))
	if err != nil {
		return nil, err
	}
	key, err := svc.encryptionKey(ctx)
	if err != nil {
		return nil, err
	}
	v := s.response(sessionData)
	return &ClientSetup{ID: s.ID, SessionData: sessionData, Amount: s.Amount, CountryCode: s.CountryCode,
		ExpiresAt: v.ExpiresAt, ReturnURL: s.ReturnURL, ShopperLocale: s.ShopperLocale, Status: s.StatusAt(c.Now), PaymentMethods: m,
		ClientEncryptionKey: key}, nil
}

func (svc *Service) clientMethods(r *httpapi.Request) (*httpapi.Response, error) {
	var in SessionDataRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	s, err := svc.clientSession(r.HTTP.Context(), r.AccountID(), r.PathValue("id"), in.SessionData)
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
	var in ClientPaymentRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	return payment(svc.PayInSession(r.HTTP.Context(), caller(r), r.PathValue("id"), in))
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
	return payment(svc.DetailsInSession(r.HTTP.Context(), caller(r), r.PathValue("id"), in))
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
	return payment(svc.CompleteChallenge(r.HTTP.Context(), caller(r), r.PathValue("id"), in))
}

// CompleteChallenge passes (or fails) payment id's 3DS2 challenge as the
// shopper would (test mode). Errors: Invalid (password), NotFound, Conflict
// (no challenge pending), Unavailable.
func (svc *Service) CompleteChallenge(ctx context.Context, c Caller, id string, in ChallengeRequest) (*PaymentResponse, error) {
	if in.Password == "" {
		return nil, apierr.Missing("password")
	}
	p, err := svc.pays.Get(ctx, c.AccountID, id)
	if err != nil {
		return nil, err
	}
	if p.Status != payments.RequiresAction || p.Flow.Stage != stageChallenge {
		return nil, apierr.New(CodeNoChallengePending, "payment %s is not waiting for a 3-D Secure challenge", p.ID)
	}
	screen, ok := svc.cards.(cards.ChallengeScreen)
	if !ok { // the issuer's own screen challenges the shopper
		return nil, apierr.New(CodeNoChallengePending, "payment %s is challenged by its issuer's screen, not this one", p.ID)
	}
	if p.Flow.Connector != "" { // a connector's issuer challenges the shopper on its own screen
		return nil, apierr.New(CodeNoChallengePending, "payment %s is challenged by its issuer's screen, not this one", p.ID)
	}
	return svc.complete(ctx, c, p, stageChallenge, func() (cards.Outcome, error) {
		return screen.ChallengeWithPassword(in.Password), nil
	})
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

// MaxSessionResult bounds the ignored sessionResult query parameter.
const MaxSessionResult = 8192

// sessionResult serves GET /v2/sessions/{id}. The server's own state is the
// answer: the drop-in's sessionResult (required by Adyen, optional here) is
// accepted for compatibility and not trusted.
func (svc *Service) sessionResult(r *httpapi.Request) (*httpapi.Response, error) {
	if len(r.Query("sessionResult")) > MaxSessionResult {
		return nil, apierr.Invalidf("sessionResult", "sessionResult is too long")
	}
	s, err := svc.loadSession(r.HTTP.Context(), r.AccountID(), r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindSessionResult, s.result(r.Now)), nil
}
