package outbound_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/paygate/paygate/shared/console/webhooks/outbound"
)

func TestCheckURL(t *testing.T) {
	cases := []struct {
		url               string
		live, test, local bool // allowed for live keys, test keys deployed, test keys where ENVIRONMENT=local
	}{
		{"https://hooks.example.com/paygate", true, true, true},
		{"https://hooks.example.com:8443/x?y=1", true, true, true},
		{"https://8.8.8.8/hook", true, true, true},
		{"https://[2606:4700::1111]/hook", true, true, true},
		{"http://hooks.example.com/paygate", false, true, true},
		{"http://127.0.0.1:9000/hook", false, false, true},
		{"http://localhost:9000/hook", false, false, true},
		{"http://[::1]:9000/hook", false, false, true},
		{"https://127.0.0.1/hook", false, false, true},
		{"http://169.254.169.254/latest/meta-data", false, false, false},
		{"https://169.254.1.1/", false, false, false},
		{"https://[fe80::1]/", false, false, false},
		{"https://[febf::1]/", false, false, false},
		{"https://[fd00:ec2::254]/", false, false, false},
		{"https://[::ffff:169.254.169.254]/", false, false, false},
		{"https://[64:ff9b::a9fe:a9fe]/", false, false, false}, // NAT64 of 169.254.169.254
		{"https://0.0.0.0/", false, false, false},
		{"https://[::]/", false, false, false},
		{"https://0.1.2.3/", false, false, false},
		{"https://10.0.0.1/", false, false, false},
		{"https://192.168.1.10/", false, false, false},
		{"https://172.16.0.1/", false, false, false},
		{"https://100.64.0.1/", false, false, false},
		{"https://[fd12::1]/", false, false, false},
		{"https://224.0.0.1/", false, false, false},
		{"https://255.255.255.255/", false, false, false},
		{"https://2130706433/", false, false, false},
		{"https://0x7f.1/", false, false, false},
		{"https://metadata.google.internal/", false, false, false},
		{"https://printer.local/", false, false, false},
		{"https://user:pw@hooks.example.com/", false, false, false},
		{"https://hooks.example.com/#frag", false, false, false},
		{"ftp://hooks.example.com/", false, false, false},
		{"file:///etc/passwd", false, false, false},
		{"/relative/path", false, false, false},
		{"https:///nohost", false, false, false},
		{"https://hooks.example.com:0/", false, false, false},
		{"https://hooks.example.com:99999/", false, false, false},
		// Live: 443 or 1024-65535 only; test keys keep every port.
		{"https://hooks.example.com:443/", true, true, true},
		{"https://hooks.example.com:1024/", true, true, true},
		{"https://hooks.example.com:65535/", true, true, true},
		{"https://hooks.example.com:1023/", false, true, true},
		{"https://hooks.example.com:22/", false, true, true},
		{"https://hooks.example.com:80/", false, true, true},
		{"https://8.8.8.8:25/", false, true, true},
		{"http://hooks.example.com:80/", false, true, true},
		{"http://receiver:9000/", false, false, true}, // a bare name: local only
		{"http://app.localhost:9000/", false, false, true},
		{"https://[fe80::1%25eth0]/", false, false, false},
		{"", false, false, false},
		{"https://hooks.example.com/" + strings.Repeat("a", outbound.MaxURLLen), false, false, false},
	}
	for _, c := range cases {
		for _, pc := range []struct {
			p     outbound.Policy
			allow bool
			name  string
		}{{outbound.Live, c.live, "live"}, {outbound.Test, c.test, "test"}, {outbound.TestLocal, c.local, "test (local)"}} {
			_, err := outbound.CheckURL(c.url, pc.p)
			if pc.allow && err != nil {
				t.Errorf("%s %q refused: %v", pc.name, c.url, err)
			}
			if !pc.allow && !errors.Is(err, outbound.ErrRefused) {
				t.Errorf("%s %q: err = %v, want a refusal", pc.name, c.url, err)
			}
		}
	}
}

func TestCheckAddrAlwaysRefused(t *testing.T) {
	for _, s := range []string{"169.254.169.254", "169.254.0.1", "fe80::1", "fd00:ec2::254", "0.0.0.0", "::", "::ffff:0.0.0.0"} {
		for _, p := range []outbound.Policy{outbound.Live, outbound.Test, outbound.TestLocal} {
			if err := outbound.CheckAddr(netip.MustParseAddr(s), p); !errors.Is(err, outbound.ErrRefused) {
				t.Errorf("%s policy %d: %v", s, p, err)
			}
		}
	}
}

// TestClientChecksAtDialTime: the URL names a host ("localhost") whose
// address is only known after resolution; the live client refuses the
// resolved loopback address at dial time and the receiver is never reached.
func TestClientChecksAtDialTime(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(204)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	byName := "http://localhost:" + u.Port() + "/hook"

	// A live client, even for an https URL that passed no save-time check.
	_, _, err := outbound.Post(context.Background(), outbound.Client(outbound.Live), "https://localhost:"+u.Port()+"/hook", nil, []byte("{}"))
	if !errors.Is(err, outbound.ErrRefused) {
		t.Fatalf("live client to a loopback name: %v, want a refusal", err)
	}
	// http is refused for live keys before any connection.
	_, _, err = outbound.Post(context.Background(), outbound.Client(outbound.Live), "http://8.8.8.8/", nil, []byte("{}"))
	if !errors.Is(err, outbound.ErrRefused) {
		t.Fatalf("live client over http: %v, want a refusal", err)
	}
	if hits.Load() != 0 {
		t.Fatalf("receiver reached %d times", hits.Load())
	}
	// A test key in a deployed environment: loopback refused at dial time,
	// by name and by address (the Lambda Runtime API listens there).
	for _, target := range []string{byName, srv.URL + "/hook"} {
		_, _, err = outbound.Post(context.Background(), outbound.Client(outbound.Test), target, nil, []byte("{}"))
		if !errors.Is(err, outbound.ErrRefused) {
			t.Fatalf("deployed test client to loopback %s: %v, want a refusal", target, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("receiver reached %d times", hits.Load())
	}
	status, _, err := outbound.Post(context.Background(), outbound.Client(outbound.TestLocal), byName, nil, []byte("{}"))
	if err != nil || status != 204 || hits.Load() != 1 {
		t.Fatalf("local test client to loopback: %d %v hits %d", status, err, hits.Load())
	}
	// The metadata address is refused at dial time for test keys too.
	for _, p := range []outbound.Policy{outbound.Test, outbound.TestLocal} {
		_, _, err = outbound.Post(context.Background(), outbound.Client(p), "http://169.254.169.254/latest/meta-data", nil, nil)
		if !errors.Is(err, outbound.ErrRefused) {
			t.Fatalf("test client (policy %d) to metadata: %v", p, err)
		}
	}
	// A live client refuses ports other than 443 and 1024-65535 at dial
	// time too, before any connection.
	for _, target := range []string{"https://8.8.8.8:22/", "https://8.8.8.8:80/", "https://8.8.8.8:1023/"} {
		_, _, err = outbound.Post(context.Background(), outbound.Client(outbound.Live), target, nil, nil)
		if !errors.Is(err, outbound.ErrRefused) {
			t.Fatalf("live client to %s: %v, want a refusal", target, err)
		}
	}
}

func TestPolicyFor(t *testing.T) {
	for _, c := range []struct {
		live bool
		env  string
		want outbound.Policy
	}{
		{true, "", outbound.Live}, {true, "local", outbound.Live}, {true, "prod", outbound.Live},
		{false, "", outbound.TestLocal}, {false, "local", outbound.TestLocal},
		{false, "dev", outbound.Test}, {false, "staging", outbound.Test}, {false, "prod", outbound.Test},
	} {
		if got := outbound.PolicyFor(c.live, c.env); got != c.want {
			t.Errorf("PolicyFor(%v, %q) = %d, want %d", c.live, c.env, got, c.want)
		}
	}
}

// TestReasonIsOneGenericWord: a target refused by the rules, a closed port
// and an unresolvable name read the same in a delivery record: no dial
// error, address or port.
func TestReasonIsOneGenericWord(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	_, port, _ := net.SplitHostPort(closed)
	ln.Close()
	for _, c := range []struct {
		p      outbound.Policy
		target string
	}{
		{outbound.Test, "http://" + closed + "/"},            // refused by the rules
		{outbound.Test, "http://localhost:" + port + "/"},    // refused after resolution
		{outbound.TestLocal, "http://" + closed + "/"},       // connection refused
		{outbound.Live, "https://8.8.8.8:22/"},               // a live key's refused port
		{outbound.TestLocal, "http://nowhere.invalid:81/"},   // no such name
		{outbound.Live, "https://169.254.169.254:8443/x"},    // metadata
		{outbound.TestLocal, "http://[fd00:ec2::254]:9001/"}, // metadata, IPv6
	} {
		_, _, err := outbound.Post(context.Background(), outbound.Client(c.p), c.target, nil, nil)
		if err == nil {
			t.Fatalf("%s: no error", c.target)
		}
		if got := outbound.Reason(err); got != outbound.CouldNotConnect {
			t.Errorf("%s (policy %d): Reason = %q (error %v), want %q", c.target, c.p, got, err, outbound.CouldNotConnect)
		}
	}
}

func TestClientNoRedirectBoundedBody(t *testing.T) {
	var followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/target", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) { followed.Add(1) })
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(strings.Repeat("x", 1<<20)))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	c := outbound.Client(outbound.TestLocal)
	status, _, err := outbound.Post(context.Background(), c, srv.URL+"/redirect", nil, nil)
	if err != nil || status != http.StatusTemporaryRedirect || followed.Load() != 0 {
		t.Fatalf("redirect: %d %v followed %d", status, err, followed.Load())
	}
	status, body, err := outbound.Post(context.Background(), c, srv.URL+"/big", nil, nil)
	if err != nil || status != 200 || len(body) != outbound.MaxResponseBody {
		t.Fatalf("big body: %d %v len %d", status, err, len(body))
	}
}
