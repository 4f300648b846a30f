package connectortest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/testkit/openapitest"
)

// fault is what the wire between A and B does to the next calls.
type fault string

const (
	pass fault = ""     // every call reaches B and its answer reaches A
	down fault = "down" // B is down: no call reaches it
	slow fault = "slow" // B answers after A's connector gave up
	lose fault = "lose" // the call reaches B, which acts on it; its answer is lost
)

// slowFor is how long a slow answer takes: past the connector's timeout.
const slowFor = 10 * time.Second

// wire sits between A's connector and B's /v2 face: it checks every request
// A sends against Adyen's v71 document, and every answer B sends that A
// receives, and applies the fault of the moment.
type wire struct {
	t      *testing.T
	target string
	v      *openapitest.Validator
	srv    *httptest.Server

	mu       sync.Mutex
	fault    fault
	calls    []string // "POST /payments", ... as A sent them
	problems []string // what failed validation
	keys     map[string]int
}

// requestSchemas are the v71 document's request schema of each call A makes.
var requestSchemas = map[string]string{
	"/payments":         "PaymentRequest",
	"/payments/details": "PaymentDetailsRequest",
	"/payments/{paymentPspReference}/captures":  "PaymentCaptureRequest",
	"/payments/{paymentPspReference}/refunds":   "PaymentRefundRequest",
	"/payments/{paymentPspReference}/cancels":   "PaymentCancelRequest",
	"/payments/{paymentPspReference}/reversals": "PaymentReversalRequest",
}

func newWire(t *testing.T, target string) *wire {
	t.Helper()
	doc, err := os.ReadFile("../../shared/pay/checkout/testdata/adyen-checkout-v71.json")
	require.NoError(t, err)
	v, err := openapitest.New("adyen-checkout-v71", doc)
	require.NoError(t, err)
	w := &wire{t: t, target: target, v: v, keys: map[string]int{}}
	w.srv = httptest.NewServer(w)
	t.Cleanup(w.srv.Close)
	return w
}

func (w *wire) set(f fault) { w.mu.Lock(); w.fault = f; w.mu.Unlock() }

func (w *wire) problem(format string, args ...any) {
	w.mu.Lock()
	w.problems = append(w.problems, fmt.Sprintf(format, args...))
	w.mu.Unlock()
}

// check fails the test on any request or answer that broke the document.
func (w *wire) check(t *testing.T) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	require.Empty(t, w.problems, "what A sent to B, or accepted from it, against Adyen's v71 document")
}

func (w *wire) count(call string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, c := range w.calls {
		if c == call {
			n++
		}
	}
	return n
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path, ok := strings.CutPrefix(r.URL.Path, "/v2")
	if !ok {
		w.problem("%s %s: not under the connector's base URL", r.Method, r.URL.Path)
	}
	tmpl, found := w.v.Match(path)
	if !found {
		w.problem("%s %s: no such path in Adyen's v71 document", r.Method, path)
	}
	if name, ok := requestSchemas[tmpl]; ok {
		if err := w.v.ValidateSchema(name, body); err != nil {
			w.problem("%s %s: the request is no %s: %v\n%s", r.Method, path, name, err, body)
		}
	} else if found {
		w.problem("%s %s: a call the connector should not make", r.Method, tmpl)
	}
	if r.Header.Get("Idempotency-Key") == "" {
		w.problem("%s %s without an Idempotency-Key", r.Method, path)
	}
	if r.Header.Get("X-API-Key") == "" {
		w.problem("%s %s without X-API-Key", r.Method, path)
	}
	w.mu.Lock()
	f := w.fault
	w.calls = append(w.calls, r.Method+" "+tmpl)
	w.mu.Unlock()
	if f == down {
		hijackClose(rw) // as a refused connection: nothing reaches B
		return
	}
	req, err := http.NewRequest(r.Method, w.target+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		w.problem("%v", err)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.problem("B: %v", err)
		hijackClose(rw)
		return
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	switch f {
	case lose:
		hijackClose(rw) // B acted; A never hears of it
		return
	case slow:
		time.Sleep(slowFor)
	}
	if resp.StatusCode < 300 {
		if err := w.v.Validate(r.Method, path, resp.StatusCode, resp.Header.Get("Content-Type"), answer); err != nil {
			w.problem("%s %s: B's answer breaks the document: %v", r.Method, path, err)
		}
	}
	for k, vs := range resp.Header {
		for _, v := range vs {
			rw.Header().Add(k, v)
		}
	}
	rw.WriteHeader(resp.StatusCode)
	_, _ = rw.Write(answer)
}

// hijackClose drops the connection without an answer (a reset, as A sees it).
func hijackClose(rw http.ResponseWriter) {
	hj, ok := rw.(http.Hijacker)
	if !ok {
		return
	}
	conn, _, err := hj.Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
