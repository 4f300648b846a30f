// Package signature signs webhook deliveries and verifies them on the
// receiving side. The header is Stripe's scheme, so receivers can reuse the
// verifiers they already have:
//
//	Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>[,v1=...]
//
// The HMAC key is the whole secret string, "whsec_" prefix included. While an
// endpoint's secret is being rolled both secrets sign, so the header carries
// two v1= values and a receiver holding either secret accepts the request.
//
// The package has no dependency beyond the standard library, so a merchant's
// receiver can import it alone.
package signature

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Header names set on every delivery.
const (
	HeaderSignature = "Service-Signature"
	HeaderEventID   = "Service-Event-Id"
	HeaderEventType = "Service-Event-Type"
	// UserAgent names the sender, so receivers can tell deliveries apart.
	UserAgent = "paygate-webhooks/1.0 (+https://github.com/paygate/paygate)"
)

// DefaultTolerance is how far a signature's t may lie from the receiver's
// clock (either way) before it is refused as a replay.
const DefaultTolerance = 5 * time.Minute

// MaxSchemes bounds how many v1= entries Verify looks at: a sender signs with
// at most two secrets, and a header with thousands would only cost CPU.
const MaxSchemes = 8

// Errors Verify returns; wrap-compare with errors.Is.
var (
	ErrNoHeader     = errors.New("signature: no Service-Signature header")
	ErrMalformed    = errors.New("signature: malformed Service-Signature header")
	ErrTooOld       = errors.New("signature: timestamp outside the tolerance")
	ErrNoMatch      = errors.New("signature: no v1 signature matches")
	ErrNoSecret     = errors.New("signature: no secret to verify with")
	ErrBodyTooLarge = errors.New("signature: request body over the limit")
)

// Compute is the hex HMAC-SHA256 of "<t>.<body>" keyed by secret.
func Compute(secret string, t int64, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(strconv.FormatInt(t, 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Sign is the Service-Signature header value for body at t, one v1= per
// secret in the order given (the current secret first, then the one being
// rolled out). Secrets that are empty are skipped.
func Sign(body []byte, t time.Time, secrets ...string) string {
	ts := t.Unix()
	var b strings.Builder
	b.WriteString("t=")
	b.WriteString(strconv.FormatInt(ts, 10))
	for _, s := range secrets {
		if s == "" {
			continue
		}
		b.WriteString(",v1=")
		b.WriteString(Compute(s, ts, body))
	}
	return b.String()
}

// Parsed is a Service-Signature header split into its parts.
type Parsed struct {
	T  int64
	V1 [][]byte // decoded signatures
}

// Parse splits a header value. Unknown schemes (v0=, future v2=) are ignored,
// as Stripe's receivers do; a header without t or without any v1 is
// malformed.
func Parse(header string) (Parsed, error) {
	var p Parsed
	seenT := false
	for _, part := range strings.Split(header, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return Parsed{}, ErrMalformed
		}
		switch k {
		case "t":
			if seenT {
				return Parsed{}, ErrMalformed
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return Parsed{}, ErrMalformed
			}
			p.T, seenT = n, true
		case "v1":
			if len(p.V1) >= MaxSchemes {
				continue
			}
			sig, err := hex.DecodeString(v)
			if err != nil || len(sig) != sha256.Size {
				continue // a malformed entry cannot match; others may
			}
			p.V1 = append(p.V1, sig)
		}
	}
	if !seenT || len(p.V1) == 0 {
		return Parsed{}, ErrMalformed
	}
	return p, nil
}

// Verify checks header against body with any of secrets (a receiver rolling
// its own copy may hold two), at now, allowing tolerance either way (0 means
// DefaultTolerance). Every comparison is constant-time.
func Verify(body []byte, header string, now time.Time, tolerance time.Duration, secrets ...string) error {
	if header == "" {
		return ErrNoHeader
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	p, err := Parse(header)
	if err != nil {
		return err
	}
	age := now.Sub(time.Unix(p.T, 0))
	if age > tolerance || age < -tolerance {
		return ErrTooOld
	}
	haveSecret := false
	match := 0
	for _, s := range secrets {
		if s == "" {
			continue
		}
		haveSecret = true
		want, _ := hex.DecodeString(Compute(s, p.T, body))
		for _, got := range p.V1 {
			// Keep comparing after a match: the time taken does not say which
			// entry or secret matched.
			match |= subtleEq(want, got)
		}
	}
	if !haveSecret {
		return ErrNoSecret
	}
	if match == 0 {
		return ErrNoMatch
	}
	return nil
}

func subtleEq(a, b []byte) int {
	if hmac.Equal(a, b) {
		return 1
	}
	return 0
}

// Event is what VerifyRequest hands back: the raw body (to decode as the
// receiver likes) and the delivery's headers.
type Event struct {
	ID   string
	Type string
	Body []byte
}

// MaxBody is the largest body VerifyRequest reads (deliveries are far
// smaller).
const MaxBody = 1 << 20

// VerifyRequest reads r's body (at most MaxBody) and verifies its signature
// at the current time with DefaultTolerance.
func VerifyRequest(r *http.Request, secrets ...string) (*Event, error) {
	body, err := readLimited(r, MaxBody)
	if err != nil {
		return nil, err
	}
	if err := Verify(body, r.Header.Get(HeaderSignature), time.Now(), DefaultTolerance, secrets...); err != nil {
		return nil, err
	}
	return &Event{ID: r.Header.Get(HeaderEventID), Type: r.Header.Get(HeaderEventType), Body: body}, nil
}

func readLimited(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	defer r.Body.Close()
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > limit {
		return nil, ErrBodyTooLarge
	}
	return body, nil
}
