package adyencheckout_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/openapitest"
)

var (
	docOnce sync.Once
	doc     *openapitest.Validator
	docErr  error
)

// adyenDoc is Adyen's v71 document (the copy checkout's tests use).
func adyenDoc(t testing.TB) *openapitest.Validator {
	t.Helper()
	docOnce.Do(func() {
		raw, err := os.ReadFile("../../pay/checkout/testdata/adyen-checkout-v71.json")
		if err != nil {
			docErr = err
			return
		}
		doc, docErr = openapitest.New("adyen", raw)
	})
	require.NoError(t, docErr)
	return doc
}

// requestSchemas is the request body schema of each operation the
// connector calls.
func requestSchema(path string) string {
	switch {
	case path == "/payments":
		return "PaymentRequest"
	case path == "/payments/details":
		return "PaymentDetailsRequest"
	case strings.HasSuffix(path, "/captures"):
		return "PaymentCaptureRequest"
	case strings.HasSuffix(path, "/cancels"):
		return "PaymentCancelRequest"
	case strings.HasSuffix(path, "/refunds"):
		return "PaymentRefundRequest"
	case strings.HasSuffix(path, "/reversals"):
		return "PaymentReversalRequest"
	}
	return ""
}

// got is one request the fake received.
type got struct {
	Path   string
	Header http.Header
	Body   map[string]any
	Raw    string
}

// answer is what the fake says to one request.
type answer struct {
	Status int
	Body   any
	// Block, when set, holds the request until it is closed or the caller
	// gives up (a slow Adyen), and answers nothing.
	Block chan struct{}
}

// fakeAdyen plays Adyen's Checkout API: every request must validate
// against the document's request schema, and every answer it gives
// validates against the document's response (or ServiceError).
type fakeAdyen struct {
	t   testing.TB
	srv *httptest.Server
	mu  sync.Mutex
	got []got
	// reply answers a request (nil: 500).
	reply func(g got) answer
}

const (
	apiKey          = "AQE_test_api_key_do_not_log_0123456789"
	merchantAccount = "PaygateECOM"
)

func newFake(t testing.TB, reply func(g got) answer) *fakeAdyen {
	t.Helper()
	f := &fakeAdyen{t: t, reply: reply}
	v := adyenDoc(t)
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		path := strings.TrimPrefix(r.URL.EscapedPath(), "/v71")
		g := got{Path: path, Header: r.Header.Clone(), Raw: string(raw)}
		if err := json.Unmarshal(raw, &g.Body); err != nil {
			f.t.Errorf("%s: body is not JSON: %s", path, raw)
		}
		schema := requestSchema(path)
		if schema == "" {
			f.t.Errorf("the connector called %s %s, which it has no business calling", r.Method, path)
		} else if err := v.ValidateSchema(schema, raw); err != nil {
			f.t.Errorf("%s: the request is not a valid %s: %v\n%s", path, schema, err, raw)
		}
		f.mu.Lock()
		f.got = append(f.got, g)
		reply := f.reply
		f.mu.Unlock()
		a := answer{Status: 500, Body: map[string]any{"status": 500, "errorCode": "000", "message": "no reply scripted", "errorType": "internal"}}
		if reply != nil {
			a = reply(g)
		}
		if a.Block != nil {
			select {
			case <-a.Block:
			case <-r.Context().Done():
			}
			return
		}
		out, err := json.Marshal(a.Body)
		require.NoError(f.t, err)
		if a.Status < 300 {
			if err := v.Validate(r.Method, path, a.Status, "application/json", out); err != nil {
				f.t.Errorf("the fake's own answer is not Adyen's: %v", err)
			}
		} else if err := v.ValidateSchema("ServiceError", out); err != nil {
			f.t.Errorf("the fake's error answer is not a ServiceError: %v", err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		_, _ = w.Write(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAdyen) URL() string { return f.srv.URL + "/v71" }

// requests is what the fake received so far.
func (f *fakeAdyen) requests() []got {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]got(nil), f.got...)
}

func (f *fakeAdyen) last() got {
	f.t.Helper()
	g := f.requests()
	require.NotEmpty(f.t, g)
	return g[len(g)-1]
}

func (f *fakeAdyen) setReply(reply func(g got) answer) {
	f.mu.Lock()
	f.reply = reply
	f.mu.Unlock()
}

// ok answers status with body.
func ok(status int, body any) func(got) answer {
	return func(got) answer { return answer{Status: status, Body: body} }
}

// serviceError is Adyen's error body.
func serviceError(status int, code, msg, typ string) map[string]any {
	return map[string]any{"status": status, "errorCode": code, "message": msg, "errorType": typ}
}
