package checkout

import (
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// DetailsRequest is the accepted subset of PaymentDetailsRequest.
type DetailsRequest struct {
	Details                   *CompletionDetails  `json:"details"`
	PaymentData               string              `json:"paymentData" maxlen:"4096"`
	AuthenticationData        *AuthenticationData `json:"authenticationData"`
	ThreeDSAuthenticationOnly bool                `json:"threeDSAuthenticationOnly"`
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
	ThreeDSCompInd     string `json:"threeDSCompInd"`
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
	if err := in.AuthenticationData.check(); err != nil {
		return nil, c, nil, err
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
		return nil, c, nil, invalid(field, CodePaymentDataInvalid, "%s is not valid for this account", field)
	}
	p, err := svc.pays.Get(ctx, caller.AccountID, c.Payment)
	if err != nil {
		return nil, c, nil, err
	}
	return p, c, tds, nil
}

// Details completes a payment's pending action (POST /v2/payments/details):
// 3-D Secure fingerprint or challenge, or a redirect. The same details sent
// again answer the same: a payment already decided, or already past the
// token's stage, answers its state as it stands (built from the record, so
// the bytes match the first answer). A payment whose session expired while
// it waited is refused (resultCode Refused, refusalReason "3D Not
// Authenticated"); one whose session was finished or taken over by another
// attempt is cancelled. Errors: Invalid (details, paymentData), NotFound,
// Conflict (a concurrent change still undecided), Unavailable.
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
	if apierr.HasCode(err, CodePaymentDataInvalid) && in.Details.RedirectResult != "" {
		if resp, ok, rerr := svc.redirectedBack(ctx, caller, in.Details.RedirectResult, sessionID); ok {
			return resp, rerr
		}
	}
	if err != nil {
		return nil, err
	}
	if sessionID != "" && c.Session != sessionID {
		return nil, invalid("paymentData", CodePaymentDataInvalid, "paymentData belongs to another session")
	}
	step := cards.Step{Asked: cards.Result(waitingCodes[c.Stage]), Flow: cards.Flow(p.Flow.Processor),
		PSPReference: p.Flow.ProcessorRef, Data: p.Flow.ProcessorData}
	switch c.Stage {
	case stageFingerprint, stageChallenge:
		if tds == nil {
			return nil, apierr.Missing("details.threeDSResult")
		}
		step.TransStatus, step.ThreeDSCompInd = tds.TransStatus, tds.ThreeDSCompInd
	case stageRedirect:
		if in.Details.RedirectResult == "" {
			return nil, apierr.Missing("details.redirectResult")
		}
		step.RedirectResult = in.Details.RedirectResult
	}
	return svc.complete(ctx, caller, p, c.Stage, func() (cards.Outcome, error) {
		proc, err := svc.CardsOf(ctx, p)
		if err != nil {
			return cards.Outcome{}, err
		}
		// Keyed by the payment and stage: the same details sent again are
		// the processor's retry of the same step.
		return proc.Continue(ctx, Charge(p, p.ID+"/"+c.Stage, "details", "", caller.Now), step)
	})
}

// complete applies the outcome decide gives to payment p, waiting at
// stage, and its session. A payment that no longer waits there answers as
// it stands, and decide is not asked.
func (svc *Service) complete(ctx context.Context, c Caller, p *payments.Payment, stage string, decide func() (cards.Outcome, error)) (*PaymentResponse, error) {
	if p.Status != payments.RequiresAction {
		return svc.answer(ctx, c, p) // already decided: the same answer again
	}
	var s *Session
	if p.PaymentSessionID != "" {
		var err error
		if s, err = svc.loadSession(ctx, p.AccountID, p.PaymentSessionID); err != nil {
			return nil, err
		}
		if err := s.payable(c.Now); err != nil || s.PendingPaymentID != p.ID {
			// Expired, finished or superseded: this payment can no longer
			// complete the session. It ends without authorisation.
			return svc.abandon(ctx, c, p, s, err)
		}
	}
	hold, err := linkHold(c, s)
	if err != nil {
		return nil, err
	}
	if hold != nil {
		if err := hold.Admit(s, c.Now); err != nil {
			// The link was paid in another tab, cancelled or expired, or
			// took another session: this payment ends without authorisation.
			return svc.abandon(ctx, c, p, s, err)
		}
	}
	if stage != p.Flow.Stage {
		// A token of an earlier stage (details sent twice): the payment
		// moved on, and answers with its current action.
		return svc.answer(ctx, c, p)
	}
	out, err := decide()
	if err != nil {
		return nil, err
	}
	body, err := svc.apply(p, s, out, c.Now)
	if err != nil {
		return nil, err
	}
	// A card the payment asked to save is saved once it is authorised.
	err = svc.commitPayment(ctx, c, p, body, s, vaultUse{}, hold)
	if apierr.Is(err, apierr.Conflict) {
		// Lost a race. A twin of this request that decided or advanced the
		// payment gave the answer this one owes; a session that expired
		// meanwhile ends the payment.
		fresh, gerr := svc.pays.Get(ctx, p.AccountID, p.ID)
		switch {
		case gerr != nil:
		case fresh.Status != payments.RequiresAction || fresh.Flow.Stage != stage:
			return svc.answer(ctx, c, fresh)
		case apierr.HasCode(err, CodeSessionExpired):
			fs, serr := svc.loadSession(ctx, fresh.AccountID, fresh.PaymentSessionID)
			if serr == nil {
				return svc.abandon(ctx, c, fresh, fs, err)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return &body, nil
}

// answer is the response for p as it stands, recorded alone for a keyed call.
func (svc *Service) answer(ctx context.Context, c Caller, p *payments.Payment) (*PaymentResponse, error) {
	body, err := svc.response(p)
	if err != nil {
		return nil, err
	}
	if err := svc.commit(ctx, c, idempotency.Outcome{Kind: KindPayment, Value: body}, nil, nil); err != nil {
		return nil, err
	}
	return &body, nil
}

// expiredRefusal is how a payment whose session expired during 3-D Secure
// ends: Adyen refuses a 3-D Secure authentication the shopper did not finish
// in time as "3D Not Authenticated" (refusalReasonCode 11).
var expiredRefusal = cards.Outcome{Result: cards.Refused, RefusalReason: "3D Not Authenticated", RefusalReasonCode: "11"}

// abandon ends waiting payment p that lost its session s (nil: none):
// refused when the session expired (why's code session_expired), else
// cancelled (the session was completed, refused or taken over by a newer
// attempt). The payment's
// change, its removal from the session's pending payments and the
// idempotency record commit together; the answer is the payment's final
// response, so a retry answers the same.
func (svc *Service) abandon(ctx context.Context, c Caller, p *payments.Payment, s *Session, why error) (*PaymentResponse, error) {
	return svc.abandonTry(ctx, c, p, s, why, true)
}

// abandonTry is abandon; with again, a session that changed under it (the
// expirer storing its expiry, most likely) is read once more and the
// payment ended on the fresh copies.
func (svc *Service) abandonTry(ctx context.Context, c Caller, p *payments.Payment, s *Session, why error, again bool) (*PaymentResponse, error) {
	if why == nil {
		why = apierr.New(CodePaymentSuperseded, "a newer payment attempt replaced payment %s on its session", p.ID)
	}
	e := apierr.As(why)
	var err error
	refusalCode := ""
	if apierr.HasCode(e, CodeSessionExpired) {
		err = p.TransitionBecause(payments.Rejected, expiredRefusal.RefusalReason, "session_expired: the session expired during 3-D Secure", c.Now)
		refusalCode = expiredRefusal.RefusalReasonCode
	} else {
		err = p.TransitionBecause(payments.Cancelled, "", e.CodeOrDefault()+": "+e.Message, c.Now)
	}
	if err != nil {
		return nil, err
	}
	settle(p, refusalCode)
	body, err := svc.response(p)
	if err != nil {
		return nil, err
	}
	ops, err := svc.pays.SaveOps(p)
	if err != nil {
		return nil, err
	}
	if s != nil {
		// The session stops listing the payment as pending; its status stays
		// what it is (expired is computed from expiresAt), so no live check.
		s.dropPayment(p.ID)
		if s.PendingPaymentID == p.ID {
			s.PendingPaymentID = ""
			if s.Status == StatusPaymentPending {
				if err := s.move(StatusActive); err != nil {
					return nil, err
				}
			}
		}
		sops, err := s.updateOps(false)
		if err != nil {
			return nil, err
		}
		ops = append(ops, sops...)
	}
	out := idempotency.Outcome{Kind: KindPayment, Value: body}
	err = svc.commit(ctx, c, out, ops, func(int) error {
		return apierr.New(payments.CodeChanged, "the payment or its session changed concurrently; retry")
	})
	if apierr.Is(err, apierr.Conflict) {
		fresh, gerr := svc.pays.Get(ctx, p.AccountID, p.ID)
		switch {
		case gerr != nil:
		case fresh.Status != payments.RequiresAction:
			return svc.answer(ctx, c, fresh) // a twin ended it first
		case s != nil && again:
			if fs, serr := svc.loadSession(ctx, fresh.AccountID, s.ID); serr == nil {
				return svc.abandonTry(ctx, c, fresh, fs, why, false)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	return &body, nil
}

// redirectedBack completes a payment whose shopper a connector's processor
// redirected: the issuer sends the shopper back with the processor's
// redirectResult, not our token, so the processor is asked (keyed by the
// result: the same result sent again is its retry) and its answer names
// the payment (our reference, and its own, which the payment must keep).
// ok is false where no connector serves the caller: the redirectResult is
// then only invalid.
func (svc *Service) redirectedBack(ctx context.Context, caller Caller, result, sessionID string) (*PaymentResponse, bool, error) {
	proc, conn, err := svc.router.For(ctx, caller.AccountID, !caller.TestMode)
	if err != nil || conn == "" {
		return nil, false, nil
	}
	ch := cards.Charge{Account: caller.AccountID, Livemode: !caller.TestMode,
		Key: cards.OperationKey(caller.AccountID, result, "redirect"), Now: caller.Now}
	out, err := proc.Continue(ctx, ch, cards.Step{Asked: cards.RedirectShopper, RedirectResult: result})
	if err != nil {
		return nil, true, err
	}
	p, err := svc.pays.Get(ctx, caller.AccountID, out.Reference)
	if err != nil || p.Flow.Connector != conn || p.Flow.ProcessorRef == "" || p.Flow.ProcessorRef != out.PSPReference ||
		(sessionID != "" && p.PaymentSessionID != sessionID) {
		return nil, true, invalid("details.redirectResult", CodePaymentDataInvalid, "details.redirectResult is not valid for this account")
	}
	resp, err := svc.complete(ctx, caller, p, stageRedirect, func() (cards.Outcome, error) { return out, nil })
	return resp, true, err
}
