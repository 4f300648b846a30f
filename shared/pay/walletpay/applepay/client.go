package applepay

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// GatewayHosts are Apple's documented merchant validation hosts ("Setting
// up your server": production, China, and the sandbox's), and the
// pod hosts earlier versions of that page listed, which validation URLs
// still name. A validation URL of any other host is refused before anything
// is sent: the URL comes from the shopper's browser, so anything else could
// make the platform call a host of an attacker's choosing with the
// merchant identity certificate.
var GatewayHosts = func() []string {
	hosts := []string{"apple-pay-gateway.apple.com", "cn-apple-pay-gateway.apple.com",
		"apple-pay-gateway-cert.apple.com", "cn-apple-pay-gateway-cert.apple.com"}
	for i := 1; i <= 5; i++ {
		hosts = append(hosts, fmt.Sprintf("apple-pay-gateway-nc-pod%d.apple.com", i), fmt.Sprintf("apple-pay-gateway-pr-pod%d.apple.com", i))
	}
	for i := 1; i <= 3; i++ {
		hosts = append(hosts, fmt.Sprintf("cn-apple-pay-gateway-sh-pod%d.apple.com", i), fmt.Sprintf("cn-apple-pay-gateway-tj-pod%d.apple.com", i))
	}
	return hosts
}()

// ErrHostNotAllowed is a validation URL that is not Apple's gateway.
var ErrHostNotAllowed = errors.New("applepay: the validation URL is not an Apple Pay gateway URL")

// CheckValidationURL accepts only https://<an Apple gateway host>/paymentservices/...
// (port 443 at most, no user info, query or fragment).
func CheckValidationURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, ErrHostNotAllowed
	}
	if p := u.Port(); p != "" && p != "443" {
		return nil, ErrHostNotAllowed
	}
	if !slices.Contains(GatewayHosts, strings.ToLower(u.Hostname())) || u.Hostname() != strings.ToLower(u.Hostname()) {
		return nil, ErrHostNotAllowed
	}
	if !strings.HasPrefix(u.EscapedPath(), "/paymentservices/") || strings.Contains(u.Path, "..") {
		return nil, ErrHostNotAllowed
	}
	return u, nil
}

// SessionRequest is what the merchant's page sends on onvalidatemerchant.
type SessionRequest struct {
	ValidationURL string
	DomainName    string
	DisplayName   string
}

// Identity is the merchant identity certificate (with its key) and the
// merchant identifier it was issued for.
type Identity struct {
	Certificate        tls.Certificate
	MerchantIdentifier string
}

// NewIdentity reads a merchant identity certificate and key (PEM) and takes
// the merchant identifier from the certificate's subject UID, where Apple
// puts it.
func NewIdentity(certPEM, keyPEM []byte) (Identity, error) {
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return Identity{}, fmt.Errorf("applepay: merchant identity: %w", err)
	}
	leaf, err := x509.ParseCertificate(c.Certificate[0])
	if err != nil {
		return Identity{}, fmt.Errorf("applepay: merchant identity: %w", err)
	}
	uid := ""
	for _, n := range leaf.Subject.Names {
		if n.Type.String() == "0.9.2342.19200300.100.1.1" {
			uid, _ = n.Value.(string)
		}
	}
	if uid == "" {
		return Identity{}, errors.New("applepay: the merchant identity certificate names no merchant identifier (subject UID)")
	}
	return Identity{Certificate: c, MerchantIdentifier: uid}, nil
}

// Gateway asks Apple for merchant sessions (live mode).
type Gateway struct {
	client *http.Client
}

// GatewayOptions tune a Gateway's transport (tests stand a local TLS server
// in for Apple: their dialer and roots; nil means the system's).
type GatewayOptions struct {
	Dial    func(ctx context.Context, network, addr string) (net.Conn, error)
	RootCAs *x509.CertPool
	Timeout time.Duration // whole call; 0: 10 s
}

// NewGateway is a gateway client presenting identity's certificate.
func NewGateway(identity Identity, o GatewayOptions) *Gateway {
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Second
	}
	tr := &http.Transport{
		Proxy: nil, // straight to Apple; an environment proxy could see the client certificate's use
		TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{identity.Certificate},
			RootCAs: o.RootCAs},
		DialContext:         o.Dial,
		TLSHandshakeTimeout: o.Timeout,
		MaxIdleConns:        4,
		IdleConnTimeout:     90 * time.Second,
	}
	return &Gateway{client: &http.Client{Transport: tr, Timeout: o.Timeout,
		// Never follow a redirect: only the checked URL is ever called.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// SessionError is Apple refusing the session (a 4xx: the domain is not
// registered for the merchant identifier, the display name, ...): the
// merchant's to fix, a 400 for the caller.
type SessionError struct {
	Status  int
	Message string
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("Apple Pay refused the session (HTTP %d): %s", e.Status, e.Message)
}

// maxSession bounds Apple's answer (a merchant session is about 2 KB).
const maxSession = 64 << 10

// Session asks Apple's gateway for a merchant session. The URL is checked
// again here, so no caller can reach another host. Errors: ErrHostNotAllowed,
// *SessionError (Apple's 4xx), or any other (Apple unreachable, a 5xx, a
// redirect: retry later).
func (g *Gateway) Session(ctx context.Context, identity Identity, in SessionRequest) (json.RawMessage, error) {
	u, err := CheckValidationURL(in.ValidationURL)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]string{"merchantIdentifier": identity.MerchantIdentifier,
		"displayName": in.DisplayName, "initiative": "web", "initiativeContext": in.DomainName})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := g.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("applepay: gateway: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxSession+1))
	if err != nil {
		return nil, fmt.Errorf("applepay: gateway: %w", err)
	}
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return nil, fmt.Errorf("applepay: gateway answered a redirect (%d), not followed", resp.StatusCode)
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		var e struct {
			StatusMessage string `json:"statusMessage"`
		}
		_ = json.Unmarshal(raw, &e)
		return nil, &SessionError{Status: resp.StatusCode, Message: e.StatusMessage}
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("applepay: gateway answered %d", resp.StatusCode)
	case len(raw) > maxSession:
		return nil, errors.New("applepay: gateway answer too large")
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("applepay: gateway answer is not a JSON object: %w", err)
	}
	return raw, nil
}
