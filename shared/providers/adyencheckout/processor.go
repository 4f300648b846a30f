package adyencheckout

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Processor is one connector: the card processor port over Adyen's API.
type Processor struct {
	cfg Config
	c   *client
	enc *encrypter // nil: card fields go raw
}

var _ cards.Processor = (*Processor)(nil)

// New is the connector of c. Errors: a missing URL, merchant account or
// API key, a URL that is not http(s), an EncryptionKey that is not an RSA
// public JWK.
func New(c Config) (*Processor, error) {
	if c.URL == "" || c.MerchantAccount == "" || c.APIKey == "" {
		return nil, errors.New("adyencheckout: URL, MerchantAccount and APIKey are required")
	}
	if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, errors.New("adyencheckout: URL must be an http(s) URL")
	}
	p := &Processor{cfg: c, c: newClient(c)}
	if c.EncryptionKey != "" {
		enc, err := parseKey(c.EncryptionKey)
		if err != nil {
			return nil, err
		}
		p.enc = enc
	}
	return p, nil
}

// Operations named in the modifications' idempotency keys.
const (
	opCapture  = "capture"
	opCancel   = "cancel"
	opRefund   = "refund"
	opReversal = "reversal"
)

// Adyen's values the connector sends.
const (
	channelWeb          = "Web"
	interactionEcom     = "Ecommerce"
	interactionContAuth = "ContAuth"
	modelCardOnFile     = "CardOnFile"
	modelUnscheduled    = "UnscheduledCardOnFile"
)

// payment is the PaymentRequest of ch, with method.
func (p *Processor) payment(ch cards.Charge, m methodDetails) paymentRequest {
	ret := ch.ReturnURL
	if ret == "" {
		ret = p.cfg.ReturnURL
	}
	if ret == "" {
		ret = DefaultReturnURL
	}
	req := paymentRequest{
		MerchantAccount: p.cfg.MerchantAccount, Amount: amount{Value: ch.Amount, Currency: ch.Currency},
		Reference: ch.Reference, ReturnURL: ret, PaymentMethod: m, Channel: channelWeb,
		ShopperReference: ch.ShopperReference, ShopperInteraction: interactionEcom,
	}
	if ch.ManualCapture {
		// The merchant captures through us: we send the capture once we
		// record one. Automatic: Adyen captures by itself (the merchant
		// account's capture delay should be immediate).
		req.AdditionalData = map[string]string{"manualCapture": "true"}
	}
	if ch.StoreCard && ch.ShopperReference != "" {
		// Adyen saves the card too and answers its storedPaymentMethodId,
		// which the saved card keeps (outcome: Profile) for later charges.
		req.StorePaymentMethod, req.RecurringProcessingModel = true, modelCardOnFile
	}
	return req
}

// authorise sends a payment and reads its answer.
func (p *Processor) authorise(ctx context.Context, op string, ch cards.Charge, req paymentRequest) (cards.Outcome, error) {
	var resp paymentResponse
	if err := p.c.post(ctx, op, "/payments", ch.Key, req, &resp); err != nil {
		return cards.Outcome{}, err
	}
	return outcome(op, resp)
}

func now(ch cards.Charge) time.Time {
	if ch.Now.IsZero() {
		return time.Now()
	}
	return ch.Now
}

// card is a card's method details: encrypted to the provider's key when
// the connector has one, else raw.
func (p *Processor) card(ch cards.Charge, c cards.Card) (methodDetails, error) {
	m := methodDetails{Type: "scheme", HolderName: c.HolderName}
	if p.enc == nil {
		m.Number, m.ExpiryMonth, m.ExpiryYear, m.CVC = c.Number, c.ExpiryMonth, c.ExpiryYear, c.CVC
		return m, nil
	}
	if err := p.enc.card(&m, ch.Key, c, now(ch)); err != nil {
		return m, apierr.Wrap("adyencheckout.encrypt", apierr.Internal, errors.New("the card fields could not be encrypted"))
	}
	return m, nil
}

// AuthoriseCard runs a card's first call: POST /payments.
func (p *Processor) AuthoriseCard(ctx context.Context, ch cards.Charge, c cards.Card) (cards.Outcome, error) {
	m, err := p.card(ch, c)
	if err != nil {
		return cards.Outcome{}, err
	}
	return withCard(p.authorise(ctx, "AuthoriseCard", ch, p.payment(ch, m)))(c)
}

// withCard fills what Adyen's answer left out of an outcome from the card
// itself: its brand and last four digits (additionalData carries them only
// where the merchant account is set up to).
func withCard(out cards.Outcome, err error) func(cards.Card) (cards.Outcome, error) {
	return func(c cards.Card) (cards.Outcome, error) {
		if err != nil {
			return out, err
		}
		num := strings.ReplaceAll(c.Number, " ", "")
		if out.Brand == "" {
			out.Brand = cards.Brand(num)
		}
		if out.Last4 == "" && len(num) >= 4 {
			out.Last4 = num[len(num)-4:]
		}
		return out, nil
	}
}

// AuthoriseStored charges a saved card (its Profile is Adyen's
// storedPaymentMethodId) of the charge's shopperReference.
func (p *Processor) AuthoriseStored(ctx context.Context, ch cards.Charge, c cards.SavedCard, offSession bool) (cards.Outcome, error) {
	if c.Profile == "" {
		return cards.Outcome{}, apierr.New(CodeMethodUnsupported, "this saved card holds no Adyen stored payment method id: it was not saved through the Adyen connector")
	}
	if ch.ShopperReference == "" {
		return cards.Outcome{}, apierr.Missing("shopperReference")
	}
	req := p.payment(ch, methodDetails{Type: "scheme", StoredPaymentMethodID: string(c.Profile)})
	req.RecurringProcessingModel = modelCardOnFile
	if offSession {
		req.ShopperInteraction, req.RecurringProcessingModel = interactionContAuth, modelUnscheduled
	}
	out, err := p.authorise(ctx, "AuthoriseStored", ch, req)
	if err != nil {
		return out, err
	}
	if out.Profile == "" {
		out.Profile = c.Profile
	}
	if out.Brand == "" {
		out.Brand = c.Brand
	}
	if out.Last4 == "" {
		out.Last4 = c.Last4
	}
	return out, nil
}

// AuthoriseNetworkToken runs a wallet's device token. Without a cryptogram
// (Google Pay's PAN_ONLY) it is a card without a CVC; with one, Adyen needs
// the cryptogram itself (mpiData.cavv), which the port does not carry: the
// answer is connector_method_unsupported.
func (p *Processor) AuthoriseNetworkToken(ctx context.Context, ch cards.Charge, c cards.Card, cryptogram bool) (cards.Outcome, error) {
	if cryptogram {
		return cards.Outcome{}, apierr.New(CodeMethodUnsupported, "the Adyen connector cannot send a wallet's network token with its cryptogram: send the wallet's token as it is (applePayToken, googlePayToken)")
	}
	c.CVC, c.HolderName = "", ""
	m, err := p.card(ch, c)
	if err != nil {
		return cards.Outcome{}, err
	}
	return withCard(p.authorise(ctx, "AuthoriseNetworkToken", ch, p.payment(ch, m)))(c)
}

// AuthoriseWallet sends an Apple Pay or Google Pay token as Adyen takes it.
func (p *Processor) AuthoriseWallet(ctx context.Context, ch cards.Charge, kind, token string) (cards.Outcome, error) {
	m := methodDetails{Type: kind}
	switch kind {
	case cards.ApplePay:
		m.ApplePayToken = token
	case cards.GooglePay:
		m.GooglePayToken = token
	default:
		return cards.Outcome{}, apierr.New(CodeMethodUnsupported, "the Adyen connector takes applepay and googlepay tokens, not %q", kind)
	}
	if token == "" {
		return cards.Outcome{}, apierr.New(cards.CodeInvalidWalletToken, "the %s token is empty", kind)
	}
	return p.authorise(ctx, "AuthoriseWallet", ch, p.payment(ch, m))
}

// Continue sends the step's result: POST /payments/details.
func (p *Processor) Continue(ctx context.Context, ch cards.Charge, s cards.Step) (cards.Outcome, error) {
	var kept stepData
	if s.Data != "" {
		if err := json.Unmarshal([]byte(s.Data), &kept); err != nil {
			// Written by stepOutcome: unreadable means another connector's.
			return cards.Outcome{}, apierr.Wrap("adyencheckout.Continue", apierr.Internal, errors.New("the step's data is not the Adyen connector's"))
		}
	}
	req := detailsRequest{PaymentData: kept.PaymentData}
	switch {
	case s.RedirectResult != "":
		req.Details.RedirectResult = s.RedirectResult
	case s.Asked == cards.RedirectShopper:
		return cards.Outcome{}, apierr.Missing("details.redirectResult")
	default:
		b, err := json.Marshal(threeDSResult{TransStatus: s.TransStatus, AuthorisationToken: kept.AuthorisationToken, ThreeDSCompInd: s.ThreeDSCompInd})
		if err != nil {
			return cards.Outcome{}, apierr.Wrap("adyencheckout.Continue", apierr.Internal, err)
		}
		req.Details.ThreeDSResult = base64.StdEncoding.EncodeToString(b)
	}
	var resp paymentResponse
	if err := p.c.post(ctx, "Continue", "/payments/details", ch.Key, req, &resp); err != nil {
		return cards.Outcome{}, err
	}
	out, err := outcome("Continue", resp)
	if err == nil && out.PSPReference == "" {
		out.PSPReference = s.PSPReference
	}
	return out, err
}

// outcome maps Adyen's answer.
func outcome(op string, r paymentResponse) (cards.Outcome, error) {
	out := cards.Outcome{RefusalReason: r.RefusalReason, RefusalReasonCode: r.RefusalReasonCode, PSPReference: r.PSPReference,
		Reference: r.MerchantReference}
	if r.PaymentMethod != nil {
		out.Brand = r.PaymentMethod.Brand
	}
	if out.Brand == "" {
		out.Brand = r.AdditionalData["paymentMethod"]
	}
	out.Last4 = r.AdditionalData["cardSummary"]
	if ref := r.AdditionalData["tokenization.storedPaymentMethodId"]; ref != "" {
		out.Profile = cards.Profile(ref)
	} else if ref := r.AdditionalData["recurring.recurringDetailReference"]; ref != "" {
		out.Profile = cards.Profile(ref)
	}
	switch res := cards.Result(r.ResultCode); res {
	case cards.Authorised, cards.Refused, cards.Error, cards.Cancelled:
		out.Result = res
		return out, nil
	case cards.IdentifyShopper, cards.ChallengeShopper, cards.RedirectShopper:
		out.Result = res
		switch res {
		case cards.ChallengeShopper:
			out.Flow = cards.FlowChallenge
		case cards.RedirectShopper:
			out.Flow = cards.FlowRedirect
		}
		return stepOutcome(op, out, r.Action)
	case "Received", "Pending":
		return cards.Outcome{}, apierr.New(CodeOutcomePending, "Adyen has received payment %s but not decided it (resultCode %s); its outcome follows by notification", r.PSPReference, r.ResultCode).Because("adyencheckout."+op, nil)
	default:
		return cards.Outcome{}, apierr.Wrap("adyencheckout."+op, apierr.Internal, errors.New("Adyen answered resultCode "+quoted(r.ResultCode)+", which a card payment does not have"))
	}
}

// stepOutcome adds the action a step needs, and keeps its paymentData and
// authorisationToken in Data for Continue.
func stepOutcome(op string, out cards.Outcome, a *action) (cards.Outcome, error) {
	if a == nil || (a.Type != "threeDS2" && a.Type != "redirect") {
		kind := "none"
		if a != nil {
			kind = quoted(a.Type)
		}
		return cards.Outcome{}, apierr.Wrap("adyencheckout."+op, apierr.Internal, errors.New("Adyen answered "+string(out.Result)+" with action "+kind+", which a card payment does not have"))
	}
	if a.Type == "redirect" && strings.EqualFold(a.Method, "POST") && len(a.Data) > 0 {
		// The port's action has no form data to post.
		return cards.Outcome{}, apierr.New(CodeMethodUnsupported, "Adyen asked for a POST redirect with form data (a 3-D Secure 1 issuer page), which the connector cannot relay; ask Adyen for native 3-D Secure 2 or GET redirects")
	}
	out.Action = &cards.Action{Type: a.Type, Subtype: a.Subtype, Token: a.Token, PaymentData: a.PaymentData,
		AuthorisationToken: a.AuthorisationToken, PaymentMethodType: a.PaymentMethodType, URL: a.URL, Method: a.Method}
	b, err := json.Marshal(stepData{PaymentData: a.PaymentData, AuthorisationToken: a.AuthorisationToken})
	if err != nil {
		return cards.Outcome{}, apierr.Wrap("adyencheckout."+op, apierr.Internal, err)
	}
	out.Data = string(b)
	return out, nil
}

func quoted(s string) string { return "\"" + s + "\"" }

// Reference is no Profile: Adyen cannot look a card up by its number (a
// card saved before the vault is not Adyen's).
func (p *Processor) Reference(string) cards.Profile { return "" }

// ThreeDS is empty: Adyen's own actions carry its 3-D Secure URLs.
func (p *Processor) ThreeDS() cards.ThreeDS { return cards.ThreeDS{} }

// Capture captures m.Amount of the authorisation m.Payment.
func (p *Processor) Capture(ctx context.Context, m cards.Modification) error {
	return p.modify(ctx, opCapture, "/captures", m, true)
}

// Cancel cancels the authorisation m.Payment.
func (p *Processor) Cancel(ctx context.Context, m cards.Modification) error {
	return p.modify(ctx, opCancel, "/cancels", m, false)
}

// Refund refunds m.Amount of the captured payment m.Payment.
func (p *Processor) Refund(ctx context.Context, m cards.Modification) error {
	return p.modify(ctx, opRefund, "/refunds", m, true)
}

// Reversal cancels the payment m.Payment, or refunds it once captured
// (Adyen decides which).
func (p *Processor) Reversal(ctx context.Context, m cards.Modification) error {
	return p.modify(ctx, opReversal, "/reversals", m, false)
}

// modify sends one modification, keyed by the account, its id and kind.
func (p *Processor) modify(ctx context.Context, kind, suffix string, m cards.Modification, withAmount bool) error {
	if m.Payment == "" || m.ID == "" {
		return apierr.Wrap("adyencheckout."+kind, apierr.Internal, errors.New("a modification needs its id and the payment's pspReference"))
	}
	req := modificationRequest{MerchantAccount: p.cfg.MerchantAccount, Reference: m.ID}
	if withAmount {
		req.Amount = &amount{Value: m.Amount, Currency: m.Currency}
	}
	var resp modificationResponse
	return p.c.post(ctx, kind, "/payments/"+url.PathEscape(m.Payment)+suffix, cards.OperationKey(p.cfg.Account, m.ID, kind), req, &resp)
}
