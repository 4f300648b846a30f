// Package outbound holds the rules for calls the service makes to merchant
// URLs (webhook deliveries): which URLs an endpoint may register, and an HTTP
// client that checks every address it connects to.
//
// Two checks, because one is not enough: the URL is checked when an endpoint
// is saved (scheme, literal addresses, local names), so a merchant hears at
// once that a URL will never be called; and the client checks the address of
// every connection at dial time, after DNS resolution, so a name that resolves
// (or re-resolves, DNS rebinding) to a refused address is never connected to.
// The client follows no redirects and uses no proxy from the environment.
//
// Loopback (addresses and names) is a target only for test keys, and only
// where the function's ENVIRONMENT is local or unset (PolicyFor): a deployed
// function's loopback holds the Lambda Runtime API. Private, link-local,
// metadata and other non-public addresses are never targets. Live URLs use
// port 443 or 1024-65535, checked on save and at every dial. A target not
// connected to is recorded as CouldNotConnect whatever the cause (Reason);
// the dial error itself is for the sender's log.
package outbound

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Policy is what a key's mode allows, in the function's environment.
type Policy int

const (
	// Live keys: https only, public addresses only, port 443 or 1024-65535.
	Live Policy = iota + 1
	// Test keys in a deployed environment: also http, public addresses
	// only.
	Test
	// TestLocal is test keys where ENVIRONMENT is local (or unset): also
	// loopback addresses and names (a receiver on the developer's machine).
	TestLocal
)

// PolicyFor is the policy of a key's mode (live or test) in the function's
// environment (app.Config.Environment): loopback only for test keys, and only
// when the environment is "local" or unset, as metrics count it. A deployed
// function's loopback holds the Lambda Runtime API: never a webhook target.
func PolicyFor(live bool, environment string) Policy {
	switch {
	case live:
		return Live
	case environment == "" || environment == "local":
		return TestLocal
	}
	return Test
}

// LivePortAllowed says whether a live URL may use port n: 443 (https's
// default) or an unprivileged one, never the well-known ports of other
// services.
func LivePortAllowed(n int) bool { return n == 443 || n >= 1024 && n <= 65535 }

// MaxURLLen bounds an endpoint URL.
const MaxURLLen = 2048

// ErrRefused is wrapped by every refusal (URL or address).
var ErrRefused = errors.New("outbound: refused")

// Refusal says why a URL or address is refused, in words a merchant can act on.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// Unwrap makes errors.Is(err, ErrRefused) hold.
func (r *Refusal) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

var (
	// Cloud metadata and link-local: never, whatever the key (instance
	// credentials live there).
	linkLocal4  = netip.MustParsePrefix("169.254.0.0/16")
	linkLocal6  = netip.MustParsePrefix("fe80::/10")
	awsMetadata = netip.MustParseAddr("fd00:ec2::254")
	// Not public, beyond what netip's predicates name.
	thisNet   = netip.MustParsePrefix("0.0.0.0/8")
	sharedNAT = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT (RFC 6598)
	benchmark = netip.MustParsePrefix("198.18.0.0/15") // RFC 2544
	reserved4 = netip.MustParsePrefix("240.0.0.0/4")
	nat64     = netip.MustParsePrefix("64:ff9b::/96") // embeds an IPv4 address
	ietf4     = netip.MustParsePrefix("192.0.0.0/24")
	docs      = []netip.Prefix{
		netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"),
		netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("2001:db8::/32"),
	}
)

// CheckAddr says whether the policy allows connecting to a.
func CheckAddr(a netip.Addr, p Policy) error {
	a = a.Unmap()
	if nat64.Contains(a) {
		// The NAT64 gateway would carry the connection to the embedded IPv4
		// address: judge that one.
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case !a.IsValid():
		return refuse("not an IP address")
	case a.IsUnspecified() || thisNet.Contains(a):
		return refuse("%s is an unspecified address", a)
	case linkLocal4.Contains(a) || linkLocal6.Contains(a) || a == awsMetadata ||
		a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return refuse("%s is a link-local or cloud metadata address", a)
	case a.IsMulticast() || a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return refuse("%s is a multicast or broadcast address", a)
	case a.IsLoopback():
		if p == TestLocal {
			return nil
		}
		return refuse("%s is a loopback address (test keys in a local environment only)", a)
	case a.IsPrivate() || sharedNAT.Contains(a) || benchmark.Contains(a) || reserved4.Contains(a) ||
		ietf4.Contains(a) || !a.IsGlobalUnicast():
		return refuse("%s is not a public address", a)
	}
	for _, d := range docs {
		if d.Contains(a) {
			return refuse("%s is a documentation address, not a public one", a)
		}
	}
	return nil
}

// CheckURL is the save-time check of an endpoint URL: absolute http(s), no
// credentials or fragment, https and port 443 or 1024-65535 for live keys,
// and a host that is not a refused literal address or a local name. Names are not resolved here (an
// answer now says nothing about delivery time); the client checks every
// resolved address when it dials.
func CheckURL(raw string, p Policy) (*url.URL, error) {
	if raw == "" {
		return nil, refuse("url is required")
	}
	if utf8.RuneCountInString(raw) > MaxURLLen {
		return nil, refuse("url must be at most %d characters", MaxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return nil, refuse("url must be an absolute http or https URL")
	}
	switch u.Scheme {
	case "https":
	case "http":
		if p == Live {
			return nil, refuse("url must use https with a live key")
		}
	default:
		return nil, refuse("url must use https (or http with a test key)")
	}
	if u.User != nil {
		return nil, refuse("url must not carry credentials")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return nil, refuse("url must not carry a fragment")
	}
	host := u.Hostname()
	if host == "" {
		return nil, refuse("url must name a host")
	}
	if port := u.Port(); port != "" {
		var n int
		if _, err := fmt.Sscanf(port, "%d", &n); err != nil || n < 1 || n > 65535 || fmt.Sprint(n) != port {
			return nil, refuse("url port must be 1 to 65535")
		}
		if p == Live && !LivePortAllowed(n) {
			return nil, refuse("url port must be 443 or 1024 to 65535 with a live key")
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return nil, refuse("url must not carry an IPv6 zone")
		}
		return u, CheckAddr(a, p)
	}
	if strings.Contains(host, "%") {
		return nil, refuse("url host is not a valid name")
	}
	if legacyIPv4(host) {
		// 2130706433, 0x7f.1, 017700000001: forms some resolvers read as
		// IPv4 addresses; refused rather than guessed.
		return nil, refuse("url host must be a name or a dotted IPv4 address")
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		if p == TestLocal {
			return u, nil
		}
		return nil, refuse("%s is a loopback name (test keys in a local environment only)", host)
	}
	if !strings.Contains(name, ".") || strings.HasSuffix(name, ".internal") || strings.HasSuffix(name, ".local") {
		if p == TestLocal && !strings.Contains(name, ".") {
			// A bare name may be a local receiver; the dialer still checks it.
			return u, nil
		}
		return nil, refuse("%s is not a public host name", host)
	}
	return u, nil
}

// legacyIPv4 reports a host made only of digits, dots and hex markers, with
// no letter beyond hex: not a DNS name a merchant registers.
func legacyIPv4(h string) bool {
	lower := strings.ToLower(h)
	last := lower[strings.LastIndex(lower, ".")+1:]
	if last == "" {
		return false
	}
	// A real top-level domain never starts with a digit.
	return last[0] >= '0' && last[0] <= '9'
}

// DeliveryTimeout is how long a delivery may take, connection included: any
// 2xx within it is delivered.
const DeliveryTimeout = 10 * time.Second

// MaxResponseBody is how much of a response the client reads (and keeps for
// the delivery record); the rest is discarded unread.
const MaxResponseBody = 4 << 10

// Dialer returns a net.Dialer whose Control refuses every address the policy
// does not allow (and for live keys every port but 443 and 1024-65535),
// after resolution and before the connection is made.
func Dialer(p Policy) *net.Dialer {
	return &net.Dialer{
		Timeout: DeliveryTimeout,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return refuse("unresolved address %q", address)
			}
			if p == Live && !LivePortAllowed(int(ap.Port())) {
				return refuse("port %d refused for live keys", ap.Port())
			}
			return CheckAddr(ap.Addr(), p)
		},
	}
}

// Client is the HTTP client deliveries use: dial-time address checks, no
// proxy, no redirects (a 3xx is an answer, and a failure), the delivery
// timeout over the whole exchange, and for live keys https only at every
// request too.
func Client(p Policy) *http.Client {
	d := Dialer(p)
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    DeliveryTimeout,
		ResponseHeaderTimeout:  DeliveryTimeout,
		MaxResponseHeaderBytes: 16 << 10,
	}
	return &http.Client{
		Transport: schemeCheck{p: p, next: tr},
		Timeout:   DeliveryTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type schemeCheck struct {
	p    Policy
	next http.RoundTripper
}

func (s schemeCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "https" && !(s.p != Live && r.URL.Scheme == "http") {
		return nil, refuse("scheme %q refused for this key", r.URL.Scheme)
	}
	return s.next.RoundTrip(r)
}

// ReadBody reads at most MaxResponseBody bytes of resp's body, drains a
// bounded amount more so the connection can be reused, and closes it. The
// result is for the delivery record, never for logs.
func ReadBody(resp *http.Response) []byte {
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBody))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return b
}

// CouldNotConnect is the one reason a delivery record (the deliveries API,
// the dashboard) gives for a target that was not connected to: refused by
// these rules, refusing the connection, unreachable, unresolvable, or failing
// the TLS handshake. The record never carries the dial error, an address or a
// port: told apart, they would tell a merchant what listens where on the
// sender's network. The detailed error goes to the function's log only.
const CouldNotConnect = "could not connect"

// Reason is what a delivery record may say of err, an error of Post:
// a timeout waiting for the answer, or CouldNotConnect for everything else.
// Never err's own text.
func Reason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return CouldNotConnect // a dial that timed out included
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("timeout: no answer within %s", DeliveryTimeout)
	}
	return CouldNotConnect
}

// Post sends body to rawURL with headers through c, under ctx and the
// delivery timeout, and returns the status and the first bytes of the answer.
func Post(ctx context.Context, c *http.Client, rawURL string, header http.Header, body []byte) (int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	return resp.StatusCode, ReadBody(resp), nil
}
