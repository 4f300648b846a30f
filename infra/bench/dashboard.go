package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/app"
)

// dashSite is the dashboard over d with a signed-in owner of the sample
// account, whose payments list holds 25 payments.
type dashSite struct {
	srv     *httptest.Server
	client  *http.Client
	csrf    string
	payment string // a charged payment to refund
}

var dashCSRF = regexp.MustCompile(`name="csrf" value="([^"]+)"`)
var dashKey = regexp.MustCompile(`name="idempotency_key" value="([^"]+)"`)

func newDashSite(ctx context.Context, d *app.Deps) (*dashSite, error) {
	acct, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys)
	if err != nil {
		return nil, err
	}
	svc, err := dashboard.FromDeps(d)
	if err != nil {
		return nil, err
	}
	// A cheap hash: the bench measures pages, not argon2id (whose cost a
	// sign-in pays once).
	svc.WithArgon(dashboard.ArgonParams{Memory: 1024, Time: 1, Threads: 1})
	const pw = "a bench password of some length"
	email := "bench-" + ids.New()[24:] + "@example.test"
	if _, err := svc.CreateUser(ctx, dashboard.NewUser{AccountID: acct, Email: email, Role: dashboard.Owner, Password: pw}); err != nil {
		return nil, err
	}
	s := &dashSite{srv: httptest.NewServer(d.Server(svc.Group()))}
	repo := payments.NewRepo(d.Store)
	now := time.Now()
	for i := range 25 {
		p := payments.New(payments.Payment{ID: ids.New(), AccountID: acct, Amount: 10000, Currency: "EUR", PaymentMethod: "visa", Last4: "1111",
			MerchantReference: fmt.Sprintf("bench-%d", i), Metadata: map[string]string{}}, now)
		if err := p.Transition(payments.Authorized, "", now); err != nil {
			return nil, err
		}
		if err := p.Capture(payments.Op{}, now); err != nil {
			return nil, err
		}
		if err := repo.Save(ctx, p); err != nil {
			return nil, err
		}
		s.payment = p.ID
	}
	jar, _ := cookiejar.New(nil)
	s.client = &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, body, err := s.do(ctx, "GET", "/dashboard/sign-in", nil)
	if err != nil {
		return nil, err
	}
	m := dashCSRF.FindStringSubmatch(body)
	if m == nil {
		s.srv.Close()
		return nil, fmt.Errorf("no csrf on the sign-in page")
	}
	if st, _, err := s.do(ctx, "POST", "/dashboard/sign-in", url.Values{"csrf": {m[1]}, "email": {email}, "password": {pw}}); err != nil || st != http.StatusSeeOther {
		s.srv.Close()
		return nil, fmt.Errorf("sign-in: %d %v", st, err)
	}
	_, body, err = s.do(ctx, "GET", "/dashboard", nil)
	if m = dashCSRF.FindStringSubmatch(body); err != nil || m == nil {
		s.srv.Close()
		return nil, fmt.Errorf("home: %v", err)
	}
	s.csrf = m[1]
	return s, nil
}

func (s *dashSite) do(ctx context.Context, method, path string, form url.Values) (int, string, error) {
	var rd io.Reader
	if form != nil {
		rd = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(ctx, method, s.srv.URL+path, rd)
	if err != nil {
		return 0, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := s.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res.StatusCode, string(raw), err
}

// refund refunds 1.00 of the site's payment from its page's form.
func (s *dashSite) refund(ctx context.Context) error {
	_, page, err := s.do(ctx, "GET", "/dashboard/payments/"+s.payment, nil)
	if err != nil {
		return err
	}
	keys := dashKey.FindAllStringSubmatch(page, -1)
	if len(keys) == 0 {
		return fmt.Errorf("no refund form")
	}
	st, body, err := s.do(ctx, "POST", "/dashboard/payments/"+s.payment+"/refund",
		url.Values{"csrf": {s.csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"1.00"}})
	if err == nil && st != http.StatusSeeOther {
		err = fmt.Errorf("refund: %d %.200s", st, body)
	}
	return err
}

// dashboardDynamoRows reports the DynamoDB calls of a signed-in page and of
// a refund from the dashboard (its audit entry in the refund's transaction)
// on DynamoDB Local.
func dashboardDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per dashboard page and form", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	s, err := newDashSite(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.srv.Close()
	counted := func(f func() error) (map[string]int, error) {
		counter.Reset()
		err := f()
		return counter.Counts(), err
	}
	list, err := counted(func() error {
		st, body, err := s.do(ctx, "GET", "/dashboard/payments", nil)
		if err == nil && st != http.StatusOK {
			err = fmt.Errorf("payments: %d %.200s", st, body)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// The refund's form is drawn first (not counted), then posted.
	_, page, err := s.do(ctx, "GET", "/dashboard/payments/"+s.payment, nil)
	if err != nil {
		return nil, err
	}
	keys := dashKey.FindAllStringSubmatch(page, -1)
	if len(keys) == 0 {
		return nil, fmt.Errorf("no refund form")
	}
	refund, err := counted(func() error {
		st, body, err := s.do(ctx, "POST", "/dashboard/payments/"+s.payment+"/refund",
			url.Values{"csrf": {s.csrf}, "idempotency_key": {keys[len(keys)-1][1]}, "amount": {"1.00"}})
		if err == nil && st != http.StatusSeeOther {
			err = fmt.Errorf("refund: %d %.200s", st, body)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return []row{
		{name: "calls: GET /dashboard/payments, signed in (25 payments)", value: formatCounts(list),
			target: "GetItem=3 (session, user, account) Query=1 (the list), no write",
			ok:     verdict(list["GetItem"] == 3 && list["Query"] == 1 && total(list) == 4)},
		{name: "calls: POST /dashboard/payments/{id}/refund", value: formatCounts(refund),
			target: "GetItem=6 (session, user, account, payment, key, payment) TransactWriteItems=1 (refund, key's record, audit entry) DeleteItem=1 (the processor's modification entry)",
			ok:     verdict(refund["GetItem"] == 6 && refund["TransactWriteItems"] == 1 && refund["DeleteItem"] == 1 && total(refund) == 8)},
	}, nil
}

// dashboardPageRows measures a signed-in page (the payments list of 25) on
// the embedded store, in process: latency of one client, and throughput of
// o.concurrency clients for o.loadFor.
func dashboardPageRows(ctx context.Context, o options) ([]row, error) {
	d, cleanup, err := embeddedDeps("paygate-bench-dash-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	s, err := newDashSite(ctx, d)
	if err != nil {
		return nil, err
	}
	defer s.srv.Close()
	get := func() error {
		status, body, err := s.do(ctx, "GET", "/dashboard/payments", nil)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("payments: %d %.200s", status, body)
		}
		return err
	}
	var lat []time.Duration
	for range 200 {
		t := time.Now()
		if err := get(); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t))
	}
	slices.Sort(lat)
	// Throughput: o.concurrency clients, one session (as many tabs of one
	// person; sessions are reads).
	deadline := time.Now().Add(o.loadFor)
	var mu sync.Mutex
	n, fails := 0, 0
	var wg sync.WaitGroup
	start := time.Now()
	for range o.concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				err := get()
				mu.Lock()
				if err != nil {
					fails++
				} else {
					n++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rate := float64(n) / time.Since(start).Seconds()
	var refunds time.Duration
	const refundRuns = 20
	for range refundRuns {
		t := time.Now()
		if err := s.refund(ctx); err != nil {
			return nil, err
		}
		refunds += time.Since(t)
	}
	return []row{
		{name: "dashboard GET /dashboard/payments signed in, embedded store, one client (200 runs)",
			value: fmt.Sprintf("p50 %s, p99 %s", ms(lat[len(lat)/2]), ms(lat[len(lat)*99/100])), target: "p50 <= 20 ms", ok: verdict(lat[len(lat)/2] <= 20*time.Millisecond)},
		{name: fmt.Sprintf("dashboard GET /dashboard/payments signed in, embedded store, %d clients for %s", o.concurrency, o.loadFor),
			value: fmt.Sprintf("%.0f pages/s, %d failed", rate, fails), target: "report, no failure", ok: verdict(fails == 0)},
		{name: fmt.Sprintf("dashboard refund form (page + POST, the audit entry in the refund's transaction), embedded store, mean of %d", refundRuns),
			value: ms(refunds / refundRuns), target: "report", ok: "-"},
	}, nil
}
