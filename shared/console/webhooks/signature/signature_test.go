package signature_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks/signature"
)

const secret = "whsec_3b1f6c0e9d2a4f5b8c7e6d5a4b3c2d1e"

// handHMAC is an independent implementation of the scheme (what a receiver
// in another language writes), so Sign is not only checked against itself.
func handHMAC(key string, t int64, body string) string {
	m := hmac.New(sha256.New, []byte(key))
	fmt.Fprintf(m, "%d.%s", t, body)
	return hex.EncodeToString(m.Sum(nil))
}

func TestSignMatchesHandWrittenHMAC(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	body := `{"id":"evt_1","type":"order.completed"}`
	h := signature.Sign([]byte(body), at, secret)
	want := "t=1700000000,v1=" + handHMAC(secret, 1_700_000_000, body)
	if h != want {
		t.Fatalf("header = %q, want %q", h, want)
	}
	// The key is the whole secret, prefix included: the bare suffix differs.
	if strings.Contains(h, handHMAC(strings.TrimPrefix(secret, "whsec_"), 1_700_000_000, body)) {
		t.Fatal("signed with the secret's suffix, not the whole secret")
	}
}

func TestVerifyHandWrittenHeader(t *testing.T) {
	now := time.Unix(1_700_000_100, 0)
	body := `{"id":"evt_2"}`
	header := fmt.Sprintf("t=%d,v1=%s", now.Unix()-30, handHMAC(secret, now.Unix()-30, body))
	if err := signature.Verify([]byte(body), header, now, 0, secret); err != nil {
		t.Fatalf("hand-written signature refused: %v", err)
	}
}

func TestVerifyFailures(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"id":"evt_3","amount":100}`)
	good := signature.Sign(body, now, secret)
	cases := []struct {
		name   string
		body   []byte
		header string
		now    time.Time
		secret []string
		want   error
	}{
		{"tampered body", []byte(`{"id":"evt_3","amount":900}`), good, now, []string{secret}, signature.ErrNoMatch},
		{"old t", body, signature.Sign(body, now.Add(-6*time.Minute), secret), now, []string{secret}, signature.ErrTooOld},
		{"future t", body, signature.Sign(body, now.Add(6*time.Minute), secret), now, []string{secret}, signature.ErrTooOld},
		{"old t re-signed header reused later", body, good, now.Add(5*time.Minute + time.Second), []string{secret}, signature.ErrTooOld},
		{"wrong secret", body, good, now, []string{"whsec_other"}, signature.ErrNoMatch},
		{"no header", body, "", now, []string{secret}, signature.ErrNoHeader},
		{"no t", body, "v1=" + handHMAC(secret, now.Unix(), string(body)), now, []string{secret}, signature.ErrMalformed},
		{"no v1", body, fmt.Sprintf("t=%d,v0=abc", now.Unix()), now, []string{secret}, signature.ErrMalformed},
		{"bad t", body, "t=abc,v1=00", now, []string{secret}, signature.ErrMalformed},
		{"two t", body, good + fmt.Sprintf(",t=%d", now.Unix()), now, []string{secret}, signature.ErrMalformed},
		{"no secret", body, good, now, nil, signature.ErrNoSecret},
		{"t moved, same v1", body, strings.Replace(good, fmt.Sprint(now.Unix()), fmt.Sprint(now.Unix()-1), 1), now, []string{secret}, signature.ErrNoMatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := signature.Verify(c.body, c.header, c.now, 0, c.secret...)
			if !errors.Is(err, c.want) {
				t.Fatalf("Verify = %v, want %v", err, c.want)
			}
		})
	}
	if err := signature.Verify(body, good, now.Add(5*time.Minute), 0, secret); err != nil {
		t.Fatalf("at the edge of the tolerance: %v", err)
	}
}

// TestRolledSecretsTwoV1 is the roll-secret window: the header carries one v1
// per secret, and a receiver holding only the old or only the new one passes.
func TestRolledSecretsTwoV1(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"id":"evt_4"}`)
	newSecret, oldSecret := "whsec_new", "whsec_old"
	h := signature.Sign(body, now, newSecret, oldSecret)
	if strings.Count(h, "v1=") != 2 {
		t.Fatalf("header %q: want two v1=", h)
	}
	for _, s := range []string{newSecret, oldSecret} {
		if err := signature.Verify(body, h, now, 0, s); err != nil {
			t.Errorf("receiver with %s: %v", s, err)
		}
	}
	// Unknown schemes and malformed v1 entries beside a good one are ignored.
	if err := signature.Verify(body, "v0=zz,"+h+",v1=nothex", now, 0, oldSecret); err != nil {
		t.Errorf("with noise: %v", err)
	}
}

func TestVerifyRequest(t *testing.T) {
	body := `{"id":"evt_5","type":"payment.authorised"}`
	var got *signature.Event
	var gotErr error
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, gotErr = signature.VerifyRequest(r, secret)
	})
	req := httptest.NewRequest("POST", "/hook", strings.NewReader(body))
	req.Header.Set(signature.HeaderSignature, signature.Sign([]byte(body), time.Now(), secret))
	req.Header.Set(signature.HeaderEventID, "evt_5")
	req.Header.Set(signature.HeaderEventType, "payment.authorised")
	h.ServeHTTP(httptest.NewRecorder(), req)
	if gotErr != nil || got.ID != "evt_5" || got.Type != "payment.authorised" || string(got.Body) != body {
		t.Fatalf("VerifyRequest = %+v, %v", got, gotErr)
	}
	big := bytes.Repeat([]byte("a"), signature.MaxBody+1)
	req = httptest.NewRequest("POST", "/hook", bytes.NewReader(big))
	req.Header.Set(signature.HeaderSignature, signature.Sign(big, time.Now(), secret))
	if _, err := signature.VerifyRequest(req, secret); !errors.Is(err, signature.ErrBodyTooLarge) {
		t.Fatalf("oversized body: %v", err)
	}
}
