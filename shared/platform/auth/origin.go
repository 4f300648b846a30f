package auth

import (
	"net/url"
	"strconv"
	"strings"
)

// origin is a web origin's parts, normalised for comparison: scheme and host
// in lower case, the port explicit (the scheme's default when absent).
type origin struct{ scheme, host, port string }

var defaultPorts = map[string]string{"https": "443", "http": "80"}

// parseOrigin reads scheme://host[:port], nothing more (no user, path,
// query or fragment, as a browser's Origin header is).
func parseOrigin(s string) (origin, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Opaque != "" || u.User != nil || u.Path != "" || u.RawPath != "" ||
		u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(s, "?#") {
		return origin{}, false
	}
	scheme := strings.ToLower(u.Scheme)
	def, ok := defaultPorts[scheme]
	host := strings.ToLower(u.Hostname())
	if !ok || host == "" {
		return origin{}, false
	}
	port := u.Port()
	if port == "" {
		if strings.HasSuffix(u.Host, ":") {
			return origin{}, false
		}
		port = def
	} else if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
		return origin{}, false
	}
	return origin{scheme: scheme, host: host, port: port}, true
}

// loopbackOriginHosts are the hosts an http:// (not https) origin may name:
// a developer's machine.
var loopbackOriginHosts = map[string]bool{"localhost": true, "127.0.0.1": true}

// SameOrigin reports whether a and b are one origin: scheme, host and port
// equal exactly (https://x is https://x:443), never a prefix of one
// another (http://localhost is not http://localhost.evil.com). An origin
// that does not parse matches nothing.
func SameOrigin(a, b string) bool {
	oa, okA := parseOrigin(a)
	ob, okB := parseOrigin(b)
	return okA && okB && oa == ob
}

// AllowsOrigin reports whether the key names o among its allowed origins.
func (k *Key) AllowsOrigin(o string) bool {
	for _, a := range k.AllowedOrigins {
		if SameOrigin(a, o) {
			return true
		}
	}
	return false
}
