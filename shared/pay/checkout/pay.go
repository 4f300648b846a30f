package checkout

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/wallettokens"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/idempotency"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/store"
)

// PaymentRequest is the accepted subset of Adyen's PaymentRequest.
type PaymentRequest struct {
	MerchantAccount    string         `json:"merchantAccount"`
	Amount             *Amount        `json:"amount"`
	Reference          string         `json:"reference" maxlen:"80"`
	ReturnURL          string         `json:"returnUrl" maxlen:"1024"`
	PaymentMethod      *MethodDetails `json:"paymentMethod"`
	CountryCode        string         `json:"countryCode"`
	Channel            string         `json:"channel"`
	ShopperReference   string         `json:"shopperReference"`
	ShopperEmail       string         `json:"shopperEmail"`
	ShopperLocale      string         `json:"shopperLocale"`
	ShopperIP          string         `json:"shopperIP"`
	Origin             string         `json:"origin"`
	StorePaymentMethod bool           `json:"storePaymentMethod"`
	// ShopperInteraction and RecurringProcessingModel are Adyen's recurring
	// fields (recurring.go): ContAuth charges a stored payment method
	// without the shopper.
	ShopperInteraction       string              `json:"shopperInteraction" maxlen:"16"`
	RecurringProcessingModel string              `json:"recurringProcessingModel" maxlen:"32"`
	BrowserInfo              *BrowserInfo        `json:"browserInfo"`
	AuthenticationData       *AuthenticationData `json:"authenticationData"`
	AdditionalData           map[string]string   `json:"additionalData"`
	Metadata                 map[string]string   `json:"metadata" maxlen:"500" maxkey:"40"`
	LineItems                []LineItem          `json:"lineItems"`
	CheckoutAttemptID        string              `json:"checkoutAttemptId"`
}

// MethodDetails is the accepted subset of CardDetails, ApplePayDetails and
// GooglePayDetails.
type MethodDetails struct {
	Type                  string `json:"type"`
	Brand                 string `json:"brand"`
	HolderName            string `json:"holderName"`
	Number                string `json:"number"`
	ExpiryMonth           string `json:"expiryMonth"`
	ExpiryYear            string `json:"expiryYear"`
	CVC                   string `json:"cvc"`
	EncryptedCardNumber   string `json:"encryptedCardNumber" maxlen:"15000"`
	EncryptedExpiryMonth  string `json:"encryptedExpiryMonth" maxlen:"15000"`
	EncryptedExpiryYear   string `json:"encryptedExpiryYear" maxlen:"15000"`
	EncryptedSecurityCode string `json:"encryptedSecurityCode" maxlen:"15000"`
	StoredPaymentMethodID string `json:"storedPaymentMethodId" maxlen:"64"`
	// PaymentTokenID is a decoded wallet token's payment_token_id
	// (wallettoken.go), with type applepay or googlepay.
	PaymentTokenID     string `json:"paymentTokenId" maxlen:"64"`
	ApplePayToken      string `json:"applePayToken" maxlen:"10000"`
	GooglePayToken     string `json:"googlePayToken" maxlen:"10000"`
	CheckoutAttemptID  string `json:"checkoutAttemptId"`
	ThreeDS2SdkVersion string `json:"threeDS2SdkVersion" maxlen:"12"`
	FundingSource      string `json:"fundingSource"`
}

// testPrefix marks unencrypted sandbox data in encrypted fields (test keys
// only; encrypted.go opens the others).
const testPrefix = "test_"

// cardField reads one card field from its raw or test_ form (a JWE was
// opened already, into opened), returning the value and the request field
// that carried it (for error params).
func cardField(raw, rawName, enc, encName, opened string) (string, string, error) {
	switch {
	case raw != "" && enc != "":
		return "", "", apierr.Invalidf("paymentMethod."+encName, "send %s or %s, not both", rawName, encName)
	case isJWE(enc):
		return opened, "paymentMethod." + encName, nil
	case enc != "":
		return strings.TrimPrefix(enc, testPrefix), "paymentMethod." + encName, nil
	default:
		return raw, "paymentMethod." + rawName, nil
	}
}

// usesTestData reports whether the method carries raw or test_ card data.
func (m *MethodDetails) usesTestData() bool {
	for _, v := range []string{m.EncryptedCardNumber, m.EncryptedExpiryMonth, m.EncryptedExpiryYear, m.EncryptedSecurityCode, m.ApplePayToken, m.GooglePayToken} {
		if strings.HasPrefix(v, testPrefix) {
			return true
		}
	}
	return m.Number != "" || m.ExpiryMonth != "" || m.ExpiryYear != "" || m.CVC != ""
}

// attempt is a processed payment method, before it is recorded.
type attempt struct {
	out       cards.Outcome
	connector string                     // who authorised it ("" the sandbox): payments.Flow.Connector
	method    string                     // payment record's paymentMethod (the response's type follows from it)
	card      *cards.Card                // a card entered now
	token     *tokenUse                  // or a stored one (a card token)
	wallet    *wallettokens.PaymentToken // or a decoded wallet token, used by this payment
}

// run sends the method to the account's card processor for its mode
// (connectors.Cards: its connector, else the sandbox for test keys and
// live_mode_unavailable for live keys).
func (svc *Service) run(ctx context.Context, c Caller, ch cards.Charge, m *MethodDetails, shopperRef string, offSession bool) (*attempt, error) {
	if m == nil {
		return nil, apierr.Missing("paymentMethod")
	}
	if !c.TestMode && m.usesTestData() {
		return nil, invalid("paymentMethod", CodeTestDataInLiveMode, "raw card numbers and test_ data are accepted only with test keys: a live key takes the card fields encrypted (encryptedCardNumber, encryptedExpiryMonth, encryptedExpiryYear, encryptedSecurityCode)")
	}
	proc, conn, err := svc.router.For(ctx, c.AccountID, !c.TestMode)
	if err != nil {
		return nil, err
	}
	att, err := svc.runMethod(ctx, c, proc, ch, m, shopperRef, offSession)
	if att != nil {
		att.connector = conn
	}
	return att, err
}

func (svc *Service) runMethod(ctx context.Context, c Caller, proc cards.Processor, ch cards.Charge, m *MethodDetails, shopperRef string, offSession bool) (*attempt, error) {
	switch m.Type {
	case "scheme", "":
		return svc.runCard(ctx, c, proc, ch, m, shopperRef, offSession)
	case cards.ApplePay, cards.GooglePay:
		token, field := m.ApplePayToken, "paymentMethod.applePayToken"
		if m.Type == cards.GooglePay {
			token, field = m.GooglePayToken, "paymentMethod.googlePayToken"
		}
		if token == "" {
			return nil, apierr.Missing(field)
		}
		out, err := proc.AuthoriseWallet(ctx, ch, m.Type, token)
		if err != nil {
			e := *apierr.As(err)
			e.Param = field
			return nil, &e
		}
		return &attempt{out: out, method: m.Type}, nil
	default:
		return nil, apierr.Invalidf("paymentMethod.type", "paymentMethod.type must be scheme, applepay or googlepay")
	}
}

func (svc *Service) runCard(ctx context.Context, caller Caller, proc cards.Processor, ch cards.Charge, m *MethodDetails, shopperRef string, offSession bool) (*attempt, error) {
	if m.StoredPaymentMethodID != "" {
		return svc.runToken(ctx, caller, proc, ch, m.StoredPaymentMethodID, shopperRef, offSession)
	}
	var c, opened cards.Card
	holder, err := svc.openEncrypted(ctx, m, &opened)
	if err != nil {
		return nil, err
	}
	names := map[string]string{}
	fields := []struct {
		dst           *string
		logical       string
		raw, enc      string
		rawN, encName string
		opened        string
	}{
		{&c.Number, "number", m.Number, m.EncryptedCardNumber, "number", "encryptedCardNumber", opened.Number},
		{&c.ExpiryMonth, "expiryMonth", m.ExpiryMonth, m.EncryptedExpiryMonth, "expiryMonth", "encryptedExpiryMonth", opened.ExpiryMonth},
		{&c.ExpiryYear, "expiryYear", m.ExpiryYear, m.EncryptedExpiryYear, "expiryYear", "encryptedExpiryYear", opened.ExpiryYear},
		{&c.CVC, "cvc", m.CVC, m.EncryptedSecurityCode, "cvc", "encryptedSecurityCode", opened.CVC},
	}
	for _, f := range fields {
		var name string
		if *f.dst, name, err = cardField(f.raw, f.rawN, f.enc, f.encName, f.opened); err != nil {
			return nil, err
		}
		names[f.logical] = name
		if *f.dst == "" && f.logical != "cvc" {
			return nil, apierr.Missing("paymentMethod." + f.encName)
		}
	}
	c.HolderName = m.HolderName
	if holder != "" {
		c.HolderName = holder
	}
	out, err := proc.AuthoriseCard(ctx, ch, c)
	if err != nil {
		e := *apierr.As(err)
		if n, ok := names[e.Param]; ok {
			e.Param = n
		}
		return nil, &e
	}
	return &attempt{out: out, method: out.Brand, card: &c}, nil
}

// paymentClaims bind a pending action to its payment and stage.
type paymentClaims struct {
	Payment string `json:"p"`
	Account string `json:"a"`
	Session string `json:"s,omitempty"`
	Stage   string `json:"st"`
}

const purposePayment = "pd1"

// Stages of a payment waiting for the shopper (payment.Flow.Stage).
const (
	stageFingerprint = "fingerprint"
	stageChallenge   = "challenge"
	stageRedirect    = "redirect"
)

// action builds the Adyen action for p's current stage from tok, the token
// sealed when the payment entered it (Flow.PaymentData), so every answer
// for that stage carries the same action.
func (svc *Service) action(p *payments.Payment, tok string) (*Action, error) {
	stage := p.Flow.Stage
	if p.Flow.ProcessorAction != "" {
		return relayed(p.Flow.ProcessorAction, tok)
	}
	switch stage {
	case stageRedirect:
		returnURL := p.Flow.ReturnURL
		sep := "?"
		if strings.Contains(returnURL, "?") {
			sep = "&"
		}
		// The sandbox issuer approves at once and sends the shopper straight
		// back to returnUrl with the redirectResult to submit.
		return &Action{Type: "redirect", Method: "GET", PaymentMethodType: "scheme", URL: returnURL + sep + "redirectResult=" + tok}, nil
	default:
		// 3-D Secure transaction ids of their own (keyed hashes of the
		// payment id), as a directory server would issue them.
		txID := threeDSTransID(svc.signer.Fingerprint("3ds-server", p.ID))
		detail := map[string]string{"threeDSServerTransID": txID, "messageVersion": "2.2.0"}
		if stage == stageChallenge {
			detail["acsTransID"] = threeDSTransID(svc.signer.Fingerprint("3ds-acs", p.ID))
			detail["acsURL"] = svc.cards.ThreeDS().ChallengeURL
		} else {
			detail["threeDSMethodUrl"] = svc.cards.ThreeDS().MethodURL
		}
		b, err := json.Marshal(detail)
		if err != nil {
			return nil, apierr.Wrap("checkout.action", apierr.Internal, err)
		}
		return &Action{Type: "threeDS2", Subtype: stage, Token: base64.StdEncoding.EncodeToString(b),
			PaymentData: tok, AuthorisationToken: tok, PaymentMethodType: "scheme"}, nil
	}
}

// relayed is a remote processor's action (stored as JSON) as the shopper
// gets it: as the processor made it, with our paymentData tok in place of
// the processor's, so the step's result comes back to us (and goes on to
// the processor with its own: Flow.ProcessorData).
func relayed(stored, tok string) (*Action, error) {
	var a cards.Action
	if err := json.Unmarshal([]byte(stored), &a); err != nil {
		return nil, apierr.Wrap("checkout.relayed", apierr.Internal, err)
	}
	out := &Action{Type: a.Type, Subtype: a.Subtype, Token: a.Token, URL: a.URL, Method: a.Method,
		PaymentMethodType: a.PaymentMethodType, PaymentData: tok}
	if out.PaymentMethodType == "" {
		out.PaymentMethodType = "scheme"
	}
	if a.Type == "threeDS2" {
		out.AuthorisationToken = tok
	}
	return out, nil
}

// threeDSTransID shapes a fingerprint (base64url) as a UUID string.
func threeDSTransID(fp string) string {
	h := hex.EncodeToString([]byte(fp))[:32]
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// enterStage records that p waits for the shopper at stage, sealing the
// stage's paymentData once.
func (svc *Service) enterStage(p *payments.Payment, stage string) error {
	if p.Flow.Stage == stage && p.Flow.PaymentData != "" {
		return nil
	}
	tok, err := svc.stageToken(p, stage)
	if err != nil {
		return err
	}
	p.Flow.Stage, p.Flow.PaymentData = stage, tok
	return nil
}

// stageToken seals the paymentData of p at stage.
func (svc *Service) stageToken(p *payments.Payment, stage string) (string, error) {
	tok, err := svc.signer.Seal(purposePayment, paymentClaims{Payment: p.ID, Account: p.AccountID, Session: p.PaymentSessionID, Stage: stage})
	if err != nil {
		return "", apierr.Wrap("checkout.stageToken", apierr.Internal, err)
	}
	return tok, nil
}

// resultCodes are the Adyen resultCode of each payment status; a payment
// waiting for the shopper answers by its stage (waitingCodes).
var resultCodes = map[payments.Status]string{
	payments.Created: "Received", payments.Authorized: "Authorised", payments.Charged: "Authorised",
	payments.Refunded: "Authorised", payments.PartiallyRefunded: "Authorised", payments.Rejected: "Refused", payments.Failed: "Error", payments.Cancelled: "Cancelled",
}

var waitingCodes = map[string]string{
	stageFingerprint: string(cards.IdentifyShopper), stageChallenge: string(cards.ChallengeShopper),
	stageRedirect: string(cards.RedirectShopper),
}

// response is the answer for p as it stands, built from the record alone
// (it changes nothing): the first answer of a change and every later answer
// for the same state (a details call sent twice, a racing twin) are the
// same bytes.
func (svc *Service) response(p *payments.Payment) (PaymentResponse, error) {
	kind, brand := "scheme", p.PaymentMethod
	if p.PaymentMethod == cards.ApplePay || p.PaymentMethod == cards.GooglePay {
		kind, brand = p.PaymentMethod, ""
	}
	resp := PaymentResponse{ResultCode: resultCodes[p.Status], PSPReference: p.ID, MerchantReference: p.MerchantReference,
		Amount: &Amount{Value: p.Amount, Currency: p.Currency}, PaymentMethod: &ResponseMethod{Type: kind, Brand: brand}}
	switch p.Status {
	case payments.RequiresAction:
		tok := p.Flow.PaymentData
		if tok == "" {
			// A record from before stages kept their token: seal one for
			// this answer (the record keeps none until its next change).
			var err error
			if tok, err = svc.stageToken(p, p.Flow.Stage); err != nil {
				return PaymentResponse{}, err
			}
		}
		resp.ResultCode = waitingCodes[p.Flow.Stage]
		action, err := svc.action(p, tok)
		if err != nil {
			return PaymentResponse{}, err
		}
		resp.Action = action
	case payments.Rejected, payments.Failed:
		resp.RefusalReason, resp.RefusalReasonCode = p.RefusalReason, p.Flow.RefusalReasonCode
	}
	return resp, nil
}

// apply moves p (and s, when the payment belongs to a session) to the
// outcome's state. It returns the response body.
func (svc *Service) apply(p *payments.Payment, s *Session, out cards.Outcome, now time.Time) (PaymentResponse, error) {
	var err error
	switch out.Result {
	case cards.Authorised:
		err = p.Authorise("", now) // and captures it, in automatic capture mode
	case cards.Refused:
		err = p.Transition(payments.Rejected, out.RefusalReason, now)
	case cards.Error:
		err = p.Transition(payments.Failed, out.RefusalReason, now)
	case cards.Cancelled:
		err = p.Transition(payments.Cancelled, "cancelled by the shopper", now)
	default:
		stage := map[cards.Result]string{cards.IdentifyShopper: stageFingerprint, cards.ChallengeShopper: stageChallenge, cards.RedirectShopper: stageRedirect}[out.Result]
		if p.Status != payments.RequiresAction {
			err = p.Transition(payments.RequiresAction, "3-D Secure "+stage, now)
		}
		p.Secure3D = p.Secure3D || stage != stageRedirect
		if err == nil {
			err = svc.enterStage(p, stage)
		}
		if out.Flow != "" {
			p.Flow.Processor = string(out.Flow)
		}
		if err == nil && out.Action != nil {
			b, merr := json.Marshal(out.Action)
			if merr != nil {
				return PaymentResponse{}, apierr.Wrap("checkout.apply", apierr.Internal, merr)
			}
			p.Flow.ProcessorAction, p.Flow.ProcessorData = string(b), out.Data
		}
	}
	if out.PSPReference != "" {
		p.Flow.ProcessorRef = out.PSPReference
	}
	if err != nil {
		return PaymentResponse{}, err
	}
	settle(p, out.RefusalReasonCode)
	resp, err := svc.response(p)
	if err != nil {
		return PaymentResponse{}, err
	}
	if s != nil {
		if err := s.record(p, resp, now); err != nil {
			return PaymentResponse{}, err
		}
	}
	return resp, nil
}

// settle drops the flow state of a payment that no longer waits and keeps
// its refusal code for later answers.
func settle(p *payments.Payment, refusalCode string) {
	if p.Status == payments.RequiresAction {
		return
	}
	p.Flow.Stage, p.Flow.PaymentData, p.Flow.ProcessorAction, p.Flow.ProcessorData = "", "", "", ""
	if refusalCode != "" && (p.Status == payments.Rejected || p.Status == payments.Failed) {
		p.Flow.RefusalReasonCode = refusalCode
	}
}

// record updates the session for a payment's new state at now. Completing
// it queues its checkout.session.completed event: the session is written at
// the version it was read, so of all the payments racing to complete it only
// one commits, with the one event.
func (s *Session) record(p *payments.Payment, resp PaymentResponse, now time.Time) error {
	entry := ResultPayment{PSPReference: p.ID, Amount: *resp.Amount, PaymentMethod: *resp.PaymentMethod}
	kept := s.Payments[:0]
	for _, e := range s.Payments {
		if e.PSPReference != p.ID {
			kept = append(kept, e)
		}
	}
	s.Payments = kept
	if s.PendingPaymentID != "" && s.PendingPaymentID != p.ID {
		// p supersedes the attempt that was waiting: it is no longer pending.
		s.dropPayment(s.PendingPaymentID)
	}
	switch {
	case p.Status.Succeeded():
		entry.ResultCode = "Authorised"
		s.Payments = append(s.Payments, entry)
		if s.Status != StatusCompleted {
			s.events = append(s.events, pendingEvent{EventSessionCompleted, now})
		}
		s.PendingPaymentID = ""
		return s.move(StatusCompleted)
	case p.Status == payments.RequiresAction:
		entry.ResultCode = "Pending"
		s.Payments = append(s.Payments, entry)
		s.PendingPaymentID = p.ID
		return s.move(StatusPaymentPending)
	case p.Status == payments.Cancelled:
		s.PendingPaymentID = ""
		return s.move(StatusCanceled)
	default: // rejected, failed
		s.Refusals++
		s.PendingPaymentID = ""
		if s.Refusals >= MaxRefusals {
			return s.move(StatusRefused)
		}
		return s.move(StatusActive)
	}
}

// validatePayment checks the request fields shared by both flows.
func validatePayment(in *PaymentRequest) error {
	if err := checkCountry("countryCode", in.CountryCode); err != nil {
		return err
	}
	if err := checkChannel(in.Channel); err != nil {
		return err
	}
	if in.ShopperReference != "" && (chars(in.ShopperReference) < MinShopperRef || chars(in.ShopperReference) > MaxShopperRef) {
		return apierr.Invalidf("shopperReference", "shopperReference must have %d to %d characters", MinShopperRef, MaxShopperRef)
	}
	if err := checkLineItems(in.LineItems); err != nil {
		return err
	}
	if err := checkRecurring(in); err != nil {
		return err
	}
	if err := checkCount("additionalData", len(in.AdditionalData)); err != nil {
		return err
	}
	if err := in.AuthenticationData.check(); err != nil {
		return err
	}
	return checkMetadata(in.Metadata)
}

// Pay runs an advanced-flow payment (POST /v2/payments) and records it in
// one transaction (with the idempotency record of a keyed call). Errors:
// Invalid (card_error codes included), Forbidden (live processing), Conflict,
// IdempotencyMismatch, Unavailable; a *idempotency.Replayed for a replay.
func (svc *Service) Pay(ctx context.Context, c Caller, in PaymentRequest) (*PaymentResponse, error) {
	return svc.submit(ctx, c, &in, nil)
}

// PayInSession runs the drop-in's payment on session sessionID, after
// checking its sessionData. Errors: as Pay, plus NotFound (session) and
// Conflict (session expired, finished or changed).
func (svc *Service) PayInSession(ctx context.Context, c Caller, sessionID string, in ClientPaymentRequest) (*PaymentResponse, error) {
	s, err := svc.clientSession(ctx, c.AccountID, sessionID, in.SessionData)
	if err != nil {
		return nil, err
	}
	if in.MerchantAccount != "" && in.MerchantAccount != s.MerchantAccount {
		return nil, invalid("merchantAccount", adyen.CodeMerchantAccountMismatch, "merchantAccount is not the session's")
	}
	if in.ShopperInteraction == InteractionContAuth {
		// The shopper's own browser is never the merchant charging without them.
		return nil, apierr.Invalidf("shopperInteraction", "a ContAuth payment is the merchant's: send it to POST /v2/payments with a secret key")
	}
	return svc.submit(ctx, c, &in.PaymentRequest, s)
}

// submit runs a payment for the advanced flow (s == nil) or a session.
func (svc *Service) submit(ctx context.Context, c Caller, in *PaymentRequest, s *Session) (*PaymentResponse, error) {
	if err := validatePayment(in); err != nil {
		return nil, err
	}
	shopperRef := in.ShopperReference
	hold, err := linkHold(c, s)
	if err != nil {
		return nil, err
	}
	if s != nil {
		if err := s.payable(c.Now); err != nil {
			if hold != nil {
				// A link's session ends when the link is paid (in another
				// tab, maybe just now): the link says so better.
				if lerr := hold.Lost(ctx); lerr != nil {
					return nil, lerr
				}
			}
			return nil, err
		}
		if hold != nil {
			if err := hold.Admit(s, c.Now); err != nil {
				return nil, err
			}
		}
		if in.Amount != nil && *in.Amount != s.Amount {
			return nil, invalid("amount", CodeAmountMismatch, "amount must equal the session's amount (%d %s)", s.Amount.Value, s.Amount.Currency)
		}
		if in.Reference != "" && in.Reference != s.Reference {
			return nil, invalid("reference", CodeReferenceMismatch, "reference must equal the session's reference")
		}
		a := s.Amount
		in.Amount, in.Reference = &a, s.Reference
		if in.ReturnURL == "" {
			in.ReturnURL = s.ReturnURL
		}
		if shopperRef == "" {
			shopperRef = s.ShopperReference
		} else if shopperRef != s.ShopperReference {
			return nil, invalid("shopperReference", CodeShopperReferenceMismatch, "shopperReference must equal the session's")
		}
		if err := s.applyRecurring(in); err != nil {
			return nil, err
		}
	} else {
		if _, err := merchantAccountOf(c.MerchantAccount, in.MerchantAccount); err != nil {
			return nil, err
		}
		if err := checkAmount(in.Amount, false); err != nil {
			return nil, err
		}
		if chars(in.Reference) < MinReference || chars(in.Reference) > MaxReference {
			return nil, apierr.Invalidf("reference", "reference must have %d to %d characters", MinReference, MaxReference)
		}
	}
	if err := checkReturnURL(in.ReturnURL, in.ShopperEmail); err != nil {
		return nil, err
	}
	var mode payments.CaptureMode
	if s != nil {
		mode, err = sessionCaptureMode(s, in)
	} else {
		mode, err = captureModeOf(in.AdditionalData)
	}
	if err != nil {
		return nil, err
	}
	if shopperRef == "" && in.StorePaymentMethod && in.RecurringProcessingModel != "" {
		return nil, apierr.Invalidf("shopperReference", "storing a payment method for recurringProcessingModel %s needs a shopperReference", in.RecurringProcessingModel)
	}
	// The payment's id is the processor's reference for it, so it is
	// chosen before the processor is called.
	id, err := svc.PaymentID(ctx, c.AccountID, !c.TestMode, c.Idem)
	if err != nil {
		return nil, err
	}
	ch := Charge(&payments.Payment{ID: id, AccountID: c.AccountID, Livemode: !c.TestMode, Amount: in.Amount.Value,
		Currency: in.Amount.Currency, CaptureMode: mode, Flow: payments.Flow{ReturnURL: in.ReturnURL}}, c.Idem.Key(), "authorise", shopperRef, c.Now)
	ch.StoreCard = in.StorePaymentMethod && shopperRef != ""
	var att *attempt
	if pm := in.PaymentMethod; pm != nil && pm.PaymentTokenID != "" {
		if s != nil {
			return nil, apierr.Invalidf(paramPaymentTokenID, "a paymentTokenId is the merchant's: pay with it on POST /v2/payments with a secret key")
		}
		att, err = svc.runWalletToken(ctx, c, ch, pm, *in.Amount)
	} else {
		att, err = svc.run(ctx, c, ch, in.PaymentMethod, shopperRef, in.merchantInitiated())
	}
	if err != nil {
		return nil, err
	}
	p := payments.New(payments.Payment{
		ID: id, AccountID: c.AccountID, Livemode: !c.TestMode, Amount: in.Amount.Value,
		Currency: in.Amount.Currency, PaymentMethod: att.method, Last4: att.out.Last4,
		MerchantReference: in.Reference, Metadata: in.Metadata, CaptureMode: mode,
		Flow: payments.Flow{ReturnURL: in.ReturnURL, Connector: att.connector}, RecurringType: in.recurringType(),
	}, c.Now)
	if s != nil {
		p.PaymentSessionID, p.PaymentLinkID, p.CustomerID = s.ID, s.PaymentLinkID, s.CustomerID
	}
	body, err := svc.apply(p, s, att.out, c.Now)
	if err != nil {
		return nil, err
	}
	use := vaultUse{shopperRef: shopperRef, keep: svc.cardToKeep(c, in, shopperRef, att), token: att.token, wallet: att.wallet}
	body.AdditionalData = recurringAnswer(in, shopperRef, use)
	if err := svc.commitPayment(ctx, c, p, body, s, use, hold); err != nil {
		return nil, err
	}
	return &body, nil
}

// commitWithSession writes a payment's ops with the session's (version
// condition and live check) and maps their failures; with a payment link's
// hold, a failure the link explains (paid in another tab, cancelled,
// expired) is answered as the link's.
func (svc *Service) commitWithSession(ctx context.Context, c Caller, body PaymentResponse, ops []store.Op, s *Session, hold LinkHold) (err error) {
	first := len(ops)
	if s != nil {
		sops, err := s.updateOps(true)
		if err != nil {
			return err
		}
		ops = append(ops, sops...)
	}
	out := idempotency.Outcome{Kind: KindPayment, Value: body}
	defer func() {
		if err == nil {
			metrics.PaymentResult(body.ResultCode)
		}
	}()
	return svc.commit(ctx, c, out, ops, func(i int) error {
		if hold != nil {
			if err := hold.Lost(ctx); err != nil {
				return err
			}
		}
		switch {
		case s != nil && i == first+1:
			return apierr.New(CodeSessionExpired, "session %s expired", s.ID)
		case s != nil && i == first:
			return apierr.New(apierr.CodeSessionChanged, "another payment on session %s changed it first; read the session result", s.ID)
		default:
			return apierr.New(payments.CodeChanged, "the payment changed concurrently; retry")
		}
	})
}

// withLinkOps adds the link's writes for payment p (a payment link's
// session) to ops.
func withLinkOps(ops []store.Op, hold LinkHold, p *payments.Payment, now time.Time) ([]store.Op, error) {
	if hold == nil {
		return ops, nil
	}
	lops, err := hold.Ops(p, now)
	if err != nil {
		return nil, err
	}
	return append(ops, lops...), nil
}
