package checkout

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/checkout/processor"
	"github.com/paygate/paygate/shared/idempotency"
	"github.com/paygate/paygate/shared/payments"
)

// DetailsRequest is the accepted subset of PaymentDetailsRequest.
type DetailsRequest struct {
	Details                   *CompletionDetails `json:"details"`
	PaymentData               string             `json:"paymentData" maxlen:"4096"`
	AuthenticationData        json.RawMessage    `json:"authenticationData"`
	ThreeDSAuthenticationOnly bool               `json:"threeDSAuthenticationOnly"`
}

// CompletionDetails is the accepted subset of PaymentCompletionDetails.
type CompletionDetails struct {
	ThreeDSResult  string `json:"threeDSResult" maxlen:"50000"`
	RedirectResult string `json:"redirectResult" maxlen:"20000"`
}

// threeDSResult is the decoded details.threeDSResult (base64 JSON), as the
// 3DS2 component builds it: the action's authorisationToken and, after a
// challenge, the transStatus.
type threeDSResult struct {
	TransStatus        string `json:"transStatus"`
	AuthorisationToken string `json:"authorisationToken"`
}

func decodeThreeDS(s string) (threeDSResult, error) {
	var out threeDSResult
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawURLEncoding.DecodeString(s)
	}
	if err != nil || json.Unmarshal(b, &out) != nil {
		return out, apierr.Invalidf("details.threeDSResult", "details.threeDSResult must be base64 of a JSON object")
	}
	return out, nil
}

// findPayment identifies the payment a details request is about.
func (svc *Service) findPayment(ctx context.Context, caller Caller, in *DetailsRequest) (*payments.Payment, paymentClaims, *threeDSResult, error) {
	var c paymentClaims
	if in.Details == nil {
		return nil, c, nil, apierr.Missing("details")
	}
	token, field := in.PaymentData, "paymentData"
	var tds *threeDSResult
	switch {
	case in.Details.RedirectResult != "":
		token, field = in.Details.RedirectResult, "details.redirectResult"
	case in.Details.ThreeDSResult != "":
		d, err := decodeThreeDS(in.Details.ThreeDSResult)
		if err != nil {
			return nil, c, nil, err
		}
		tds = &d
		if token == "" {
			token, field = d.AuthorisationToken, "details.threeDSResult"
		}
	default:
		return nil, c, nil, apierr.Invalidf("details", "details needs threeDSResult or redirectResult")
	}
	if token == "" {
		return nil, c, nil, apierr.Missing("paymentData")
	}
	if err := svc.signer.Open(purposePayment, token, &c); err != nil || c.Account != caller.AccountID {
		return nil, c, nil, invalid(field, "payment_data_invalid", "%s is not valid for this account", field)
	}
	p, err := svc.pays.Get(ctx, caller.AccountID, c.Payment)
	if err != nil {
		return nil, c, nil, err
	}
	return p, c, tds, nil
}

// Details completes a payment's pending action (POST /v2/payments/details):
// 3-D Secure fingerprint or challenge, or a redirect. A payment already
// decided answers its final result again. Errors: Invalid (details,
// paymentData), NotFound, Conflict (stale action, session expired or
// superseded), Unavailable.
func (svc *Service) Details(ctx context.Context, c Caller, in DetailsRequest) (*PaymentResponse, error) {
	return svc.paymentDetails(ctx, c, &in, "")
}

// DetailsInSession is Details for the drop-in on session sessionID, after
// checking its sessionData; the action must belong to that session.
func (svc *Service) DetailsInSession(ctx context.Context, c Caller, sessionID string, in ClientDetailsRequest) (*PaymentResponse, error) {
	s, err := svc.clientSession(ctx, c.AccountID, sessionID, in.SessionData)
	if err != nil {
		return nil, err
	}
	return svc.paymentDetails(ctx, c, &in.DetailsRequest, s.ID)
}

// paymentDetails completes an action; sessionID is set for the client route
// after its sessionData check.
func (svc *Service) paymentDetails(ctx context.Context, caller Caller, in *DetailsRequest, sessionID string) (*PaymentResponse, error) {
	p, c, tds, err := svc.findPayment(ctx, caller, in)
	if err != nil {
		return nil, err
	}
	if sessionID != "" && c.Session != sessionID {
		return nil, invalid("paymentData", "payment_data_invalid", "paymentData belongs to another session")
	}
	if p.Status != payments.RequiresAction {
		// Already decided: answer as before (recorded for a keyed call).
		fr := finalResponse(p)
		if err := svc.commit(ctx, caller, idempotency.Outcome{Status: http.StatusOK, Kind: KindPayment, Value: fr}, nil, nil); err != nil {
			return nil, err
		}
		return &fr, nil
	}
	if c.Stage != p.Internal["stage"] {
		return nil, apierr.New(apierr.Conflict, "stale_action", "this action was already completed; use the latest action's data")
	}
	var out processor.Outcome
	switch c.Stage {
	case stageFingerprint:
		if tds == nil {
			return nil, apierr.Missing("details.threeDSResult")
		}
		out = processor.AfterFingerprint(processor.Flow(p.Internal["flow"]))
	case stageChallenge:
		if tds == nil {
			return nil, apierr.Missing("details.threeDSResult")
		}
		out = processor.AfterChallenge(tds.TransStatus)
	case stageRedirect:
		if in.Details.RedirectResult == "" {
			return nil, apierr.Missing("details.redirectResult")
		}
		out = processor.Outcome{Result: processor.Authorised}
	}
	return svc.complete(ctx, caller, p, out)
}

// complete applies an outcome to a waiting payment and its session.
func (svc *Service) complete(ctx context.Context, c Caller, p *payments.Payment, out processor.Outcome) (*PaymentResponse, error) {
	var s *Session
	if p.PaymentSessionID != "" {
		var err error
		if s, err = svc.loadSession(ctx, p.AccountID, p.PaymentSessionID); err != nil {
			return nil, err
		}
		if err := s.payable(c.Now); err != nil || s.PendingPaymentID != p.ID {
			// Expired, finished or superseded: this payment can no longer
			// complete the session. It ends without authorisation.
			return nil, svc.abandon(ctx, c, p, err)
		}
	}
	kind := "scheme"
	if p.PaymentMethod == processor.ApplePay || p.PaymentMethod == processor.GooglePay {
		kind = p.PaymentMethod
	}
	body, err := svc.apply(p, s, out, kind, c.Now)
	if err != nil {
		return nil, err
	}
	ops, err := svc.pays.SaveOps(p)
	if err != nil {
		return nil, err
	}
	err = svc.commitWithSession(ctx, c, body, ops, s)
	if apierr.Is(err, apierr.Conflict) && apierr.As(err).Code == "session_expired" {
		fresh, gerr := svc.pays.Get(ctx, p.AccountID, p.ID)
		if gerr == nil {
			return nil, svc.abandon(ctx, c, fresh, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return &body, nil
}

// abandon ends a waiting payment that lost its session (failed, with the
// reason) and returns why, as the request's error.
func (svc *Service) abandon(ctx context.Context, c Caller, p *payments.Payment, why error) error {
	if why == nil {
		why = apierr.New(apierr.Conflict, "payment_superseded", "a newer payment attempt replaced payment %s on its session", p.ID)
	}
	if p.Status == payments.RequiresAction {
		reason := apierr.As(why).Code
		if err := p.Transition(payments.Failed, reason, c.Now); err == nil {
			if err := svc.pays.Save(ctx, p); err != nil {
				c.log().Warn("abandoned payment not saved", "payment", p.ID, "error", err.Error())
			}
		}
	}
	return why
}

// finalResponse is the answer for a payment already decided.
func finalResponse(p *payments.Payment) PaymentResponse {
	code := map[payments.Status]string{
		payments.Authorized: "Authorised", payments.Charged: "Authorised", payments.Refunded: "Authorised",
		payments.Rejected: "Refused", payments.Failed: "Error", payments.Cancelled: "Cancelled", payments.Created: "Received",
	}[p.Status]
	kind, brand := "scheme", p.PaymentMethod
	if p.PaymentMethod == processor.ApplePay || p.PaymentMethod == processor.GooglePay {
		kind, brand = p.PaymentMethod, ""
	}
	return PaymentResponse{ResultCode: code, PSPReference: p.ID, MerchantReference: p.MerchantReference,
		Amount: &Amount{Value: p.Amount, Currency: p.Currency}, PaymentMethod: &ResponseMethod{Type: kind, Brand: brand},
		RefusalReason: p.RefusalReason}
}
