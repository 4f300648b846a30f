package outbound_test

import (
	"context"
	"errors"
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
		url        string
		live, test bool // allowed for live keys, for test keys
	}{
		{"https://hooks.example.com/paygate", true, true},
		{"https://hooks.example.com:8443/x?y=1", true, true},
		{"https://8.8.8.8/hook", true, true},
		{"https://[2606:4700::1111]/hook", true, true},
		{"http://hooks.example.com/paygate", false, true},
		{"http://127.0.0.1:9000/hook", false, true},
		{"http://localhost:9000/hook", false, true},
		{"http://[::1]:9000/hook", false, true},
		{"https://127.0.0.1/hook", false, true},
		{"http://169.254.169.254/latest/meta-data", false, false},
		{"https://169.254.1.1/", false, false},
		{"https://[fe80::1]/", false, false},
		{"https://[febf::1]/", false, false},
		{"https://[fd00:ec2::254]/", false, false},
		{"https://[::ffff:169.254.169.254]/", false, false},
		{"https://[64:ff9b::a9fe:a9fe]/", false, false}, // NAT64 of 169.254.169.254
		{"https://0.0.0.0/", false, false},
		{"https://[::]/", false, false},
		{"https://0.1.2.3/", false, false},
		{"https://10.0.0.1/", false, false},
		{"https://192.168.1.10/", false, false},
		{"https://172.16.0.1/", false, false},
		{"https://100.64.0.1/", false, false},
		{"https://[fd12::1]/", false, false},
		{"https://224.0.0.1/", false, false},
		{"https://255.255.255.255/", false, false},
		{"https://2130706433/", false, false},
		{"https://0x7f.1/", false, false},
		{"https://metadata.google.internal/", false, false},
		{"https://printer.local/", false, false},
		{"https://user:pw@hooks.example.com/", false, false},
		{"https://hooks.example.com/#frag", false, false},
		{"ftp://hooks.example.com/", false, false},
		{"file:///etc/passwd", false, false},
		{"/relative/path", false, false},
		{"https:///nohost", false, false},
		{"https://hooks.example.com:0/", false, false},
		{"https://hooks.example.com:99999/", false, false},
		{"https://[fe80::1%25eth0]/", false, false},
		{"", false, false},
		{"https://hooks.example.com/" + strings.Repeat("a", outbound.MaxURLLen), false, false},
	}
	for _, c := range cases {
		for _, pc := range []struct {
			p     outbound.Policy
			allow bool
			name  string
		}{{outbound.Live, c.live, "live"}, {outbound.Test, c.test, "test"}} {
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
		for _, p := range []outbound.Policy{outbound.Live, outbound.Test} {
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
	status, _, err := outbound.Post(context.Background(), outbound.Client(outbound.Test), byName, nil, []byte("{}"))
	if err != nil || status != 204 || hits.Load() != 1 {
		t.Fatalf("test client to loopback: %d %v hits %d", status, err, hits.Load())
	}
	// The metadata address is refused at dial time for test keys too.
	_, _, err = outbound.Post(context.Background(), outbound.Client(outbound.Test), "http://169.254.169.254/latest/meta-data", nil, nil)
	if !errors.Is(err, outbound.ErrRefused) {
		t.Fatalf("test client to metadata: %v", err)
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
	c := outbound.Client(outbound.Test)
	status, _, err := outbound.Post(context.Background(), c, srv.URL+"/redirect", nil, nil)
	if err != nil || status != http.StatusTemporaryRedirect || followed.Load() != 0 {
		t.Fatalf("redirect: %d %v followed %d", status, err, followed.Load())
	}
	status, body, err := outbound.Post(context.Background(), c, srv.URL+"/big", nil, nil)
	if err != nil || status != 200 || len(body) != outbound.MaxResponseBody {
		t.Fatalf("big body: %d %v len %d", status, err, len(body))
	}
}
