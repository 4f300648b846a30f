package httpapi

import (
	"net"
	"net/http"
	"strings"
)

// HSTSHeader and HSTS are the Strict-Transport-Security every answer served
// off loopback carries: one year, subdomains included.
const (
	HSTSHeader = "Strict-Transport-Security"
	HSTS       = "max-age=31536000; includeSubDomains"
)

// setHSTS sets Strict-Transport-Security on every answer the server gives,
// errors and panics included (ServeHTTP calls it before anything else), unless
// the request was served on loopback.
//
// "On loopback" is decided from hr.Host alone: its host name is localhost (or
// a name under .localhost) or a loopback address (127.0.0.0/8, ::1). In
// Lambda the request is built by aws-lambda-go-api-proxy from API Gateway's
// event, and its Host is the event's requestContext.domainName (the API's
// own domain, execute-api or the custom domain, which API Gateway routes by);
// the client's Host header does not change it, so a deployed function always
// sends the header. make run, the local gateway and the tests on
// httptest servers listen on 127.0.0.1, so their Host is loopback and they
// do not; an empty Host (no domain in the event) is not loopback and sends it.
func setHSTS(h http.Header, hr *http.Request) {
	if !loopbackHost(hr.Host) {
		h[HSTSHeader] = hstsValue // HSTSHeader is in canonical form: h.Set, without a new slice per answer
	}
}

// hstsValue is the header's one value, shared by every answer (an Add to
// it appends past its capacity, so into a new slice).
var hstsValue = []string{HSTS}

// loopbackHost reports whether host (host or host:port) names this machine's
// loopback interface.
func loopbackHost(host string) bool {
	// Without a colon there is no port, and SplitHostPort would only
	// allocate its error.
	if strings.IndexByte(host, ':') >= 0 {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if host == "" {
		return false
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
