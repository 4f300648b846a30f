// Package adyencheckout is a card connector: an adapter of the card
// processor port (domain/cards) that speaks Adyen's Checkout API v71 over
// HTTPS. It makes this service a gateway in front of an Adyen merchant
// account: authorisations, 3-D Secure steps, captures, cancels and refunds
// go to Adyen, each with an Idempotency-Key derived from our own
// operation's, so our retries are Adyen's retries.
//
// The calls (processor.go builds them, this file sends them):
//
//   - AuthoriseCard: POST /payments with paymentMethod type scheme. With
//     Config.EncryptionKey the card fields go as Adyen's encrypted fields
//     (encryptedCardNumber, encryptedExpiryMonth, encryptedExpiryYear,
//     encryptedSecurityCode), each a compact JWE (RSA-OAEP-256,
//     A256CBC-HS512, version 1; shared/domain/cse) over its field and the
//     generationtime (a retry of the same key by the same process sends
//     the same ciphertexts: sealedCards); without it the raw fields (number, expiryMonth,
//     expiryYear, cvc), for a PCI-approved merchant account. Every
//     authorisation asks for manual capture (additionalData.manualCapture):
//     this service sends the capture itself once it records one.
//   - AuthoriseStored: storedPaymentMethodId (the saved card's Profile) and
//     shopperReference; with the shopper present Ecommerce + CardOnFile, off
//     session ContAuth + UnscheduledCardOnFile.
//   - AuthoriseWallet: the Apple Pay or Google Pay token as Adyen takes it
//     (applePayToken, googlePayToken), for a merchant account whose wallet
//     certificates are Adyen's.
//   - AuthoriseNetworkToken: a device token without its cryptogram (Google
//     Pay's PAN_ONLY: a card number) goes as a card without a CVC; with one,
//     the port does not carry the cryptogram itself, so the call answers
//     connector_method_unsupported.
//   - Continue: POST /payments/details with the step's redirectResult, or a
//     threeDSResult built as Adyen's 3DS2 component builds it (base64 of
//     {"transStatus", "authorisationToken", "threeDSCompInd"}), and the
//     action's paymentData, which Outcome.Data keeps (stepData).
//   - Capture, Cancel, Refund (and Reversal): POST
//     /payments/{pspReference}/captures, /cancels, /refunds, /reversals, the
//     modification's id as reference and, through cards.OperationKey, as
//     the Idempotency-Key.
//
// Answers: resultCode Authorised, Refused, Error and Cancelled are
// outcomes; IdentifyShopper, ChallengeShopper and RedirectShopper carry
// Adyen's action, relayed by checkout as it is (cards.Outcome.Action). Received
// and Pending (Adyen decides later, by notification) answer
// connector_outcome_pending. Failures: no answer in Config.Timeout (or
// the context's deadline), a connection error, a 5xx, a 429 or a 409 (the
// same Idempotency-Key still in flight at Adyen) are apierr Unavailable, so
// the caller retries with the same key; a 401 or 403 is
// connector_unauthorized; any other 4xx is connector_request_refused with
// Adyen's message (its errorCode and errorType in the message too). The API
// key is sent as X-API-Key and is never in an error, a log or an answer; the
// connector logs nothing, so no card field can reach a log.
//
// Configuration defaults: a call without a return URL (an off-session
// charge, a direct payment) sends Config.ReturnURL, else DefaultReturnURL,
// which no shopper can reach: set Config.ReturnURL to the page that sends
// a redirected shopper's redirectResult to /v2/payments/details.
package adyencheckout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Config is one connector's connection.
type Config struct {
	// ID is the connector's id (logs, metrics); Account the account it
	// serves (it scopes the idempotency keys).
	ID, Account string
	// URL is the Checkout API's base, version included, without a
	// trailing slash: https://checkout-test.adyen.com/v71, or a local
	// gateway's http://127.0.0.1:8081/v2 playing Adyen.
	URL             string
	MerchantAccount string
	APIKey          string // sent as X-API-Key; never logged
	// EncryptionKey is the provider's client-side encryption public key (a
	// JWK, as JSON): card fields go to the provider encrypted to it. Empty:
	// they go as raw fields (a PCI-approved merchant account, or a test
	// environment that takes them).
	EncryptionKey string
	// ReturnURL is where a redirected shopper comes back when the charge
	// names no return URL of its own (empty: DefaultReturnURL).
	ReturnURL string
	// Timeout bounds each call (0: DefaultTimeout); Client is the HTTP
	// client (nil: a new one).
	Timeout time.Duration
	Client  *http.Client
}

// DefaultTimeout bounds one call to the provider: well inside API
// Gateway's 30 s, with room for our own store writes after it.
const DefaultTimeout = 8 * time.Second

// DefaultReturnURL is the returnUrl Adyen requires on every payment, sent
// when neither the charge nor Config names one. Its host is in the reserved
// .invalid domain: a charge without a return URL is one that redirects no
// shopper (off session, a direct payment), and one that would lands on no
// one's page rather than someone else's.
const DefaultReturnURL = "https://return-url-not-configured.invalid/adyen"

// maxAnswer bounds the answer read from the provider.
const maxAnswer = 1 << 20

// client sends the connector's calls.
type client struct {
	http    *http.Client
	base    string
	apiKey  string
	timeout time.Duration
}

func newClient(c Config) *client {
	h := c.Client
	if h == nil {
		h = &http.Client{}
	}
	t := c.Timeout
	if t <= 0 {
		t = DefaultTimeout
	}
	return &client{http: h, base: strings.TrimRight(c.URL, "/"), apiKey: c.APIKey, timeout: t}
}

// serviceError is Adyen's ServiceError; this service's own error body
// ({"error": {...}}), which its /v2 face answers, is read too.
type serviceError struct {
	Status    int    `json:"status"`
	ErrorCode string `json:"errorCode"`
	Message   string `json:"message"`
	ErrorType string `json:"errorType"`
	Error     *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Param   string `json:"param"`
	} `json:"error"`
}

// post sends body to path with the idempotency key and decodes a 2xx
// answer into out. Errors: Unavailable (no answer in time, a connection
// error, 5xx, 429, 409), connector_unauthorized (401, 403),
// connector_request_refused (any other 4xx).
func (c *client) post(ctx context.Context, op, path, key string, body, out any) error {
	op = "adyencheckout." + op
	raw, err := json.Marshal(body)
	if err != nil {
		return apierr.Wrap(op, apierr.Internal, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, bytes.NewReader(raw))
	if err != nil {
		return apierr.Wrap(op, apierr.Internal, errors.New("the connector's URL is not a valid URL"))
	}
	req.Header.Set("X-API-Key", c.apiKey)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := c.http.Do(req)
	if err != nil {
		return unavailable(op, "Adyen could not be reached: "+c.clean(err.Error()))
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return unavailable(op, "Adyen's answer did not arrive whole: "+c.clean(err.Error()))
	}
	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(answer, out); err != nil {
			// Whatever Adyen did, the same key retried answers it again.
			return unavailable(op, fmt.Sprintf("Adyen's answer (%d) is not the JSON expected", s))
		}
		return nil
	case s >= 500, s == http.StatusTooManyRequests, s == http.StatusConflict, s == http.StatusRequestTimeout:
		return unavailable(op, fmt.Sprintf("Adyen answered %d: %s", s, c.message(answer)))
	case s == http.StatusUnauthorized, s == http.StatusForbidden:
		return apierr.New(CodeUnauthorized, "Adyen refused the connector's credentials (%d): %s; check the connector's API key and merchant account", s, c.message(answer)).Because(op, nil)
	default:
		return apierr.New(CodeRequestRefused, "Adyen refused the request (%d): %s", s, c.message(answer)).Because(op, nil)
	}
}

func unavailable(op, msg string) error {
	return &apierr.Error{Kind: apierr.Unavailable, Op: op, Message: "the card processor did not answer; retry with the same Idempotency-Key", Err: errors.New(msg)}
}

// message is what an error answer says, safe to show: Adyen's message and
// codes, never the API key, at most 300 characters.
func (c *client) message(body []byte) string {
	var e serviceError
	msg := ""
	if json.Unmarshal(body, &e) == nil {
		switch {
		case e.Message != "":
			msg = e.Message
			if e.ErrorCode != "" || e.ErrorType != "" {
				msg += " (errorCode " + e.ErrorCode + ", errorType " + e.ErrorType + ")"
			}
		case e.Error != nil && e.Error.Message != "":
			msg = e.Error.Message
			if e.Error.Code != "" {
				msg += " (" + e.Error.Code + ")"
			}
		}
	}
	if msg == "" {
		msg = "no error message"
	}
	return c.clean(msg)
}

// clean keeps a provider's text printable and short, and the API key out.
func (c *client) clean(s string) string {
	if c.apiKey != "" {
		s = strings.ReplaceAll(s, c.apiKey, "[api key]")
	}
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 300 {
		s = string(r[:300]) + "…"
	}
	return s
}
