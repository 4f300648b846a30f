package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/customers"
	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
)

// refundedPayments is how many captured payments the refund load spreads
// over (at most; fewer for short runs): request i refunds 1 minor unit of
// payment i mod n, so concurrent requests (consecutive i) meet different
// payments, as refunds of many orders do, and no payment runs out of
// balance or grows a long history within a run.
const refundedPayments = 400

// refundedAmount is each payment's captured amount: more 1-unit refunds
// than any run sends to one payment.
const refundedAmount = 10_000_000

// payCases are issue 10's load rows: refunds of captured payments (one
// payment per refund request would need as many payments set up first;
// automatic capture makes each a single checkout call) and recurring
// payments of one card token (each a new payment: no shared record).
func payCases(ctx context.Context, t target, runID int64, o options) ([]loadCase, error) {
	n := min(refundedPayments, o.loadRequests+1)
	ids := make([]string, n)
	for i := range ids {
		var err error
		if ids[i], err = benchPayment(ctx, t, runID, fmt.Sprintf("refunded-%d", i), refundedAmount, ""); err != nil {
			return nil, err
		}
	}
	psp, err := benchPayment(ctx, t, runID, "saves-card", 1000, fmt.Sprintf("bench-shopper-%d", runID))
	if err != nil {
		return nil, err
	}
	var tx struct {
		CardTokenID string `json:"card_token_id"`
	}
	if err := benchCall(ctx, t, http.MethodGet, "/v1/transactions/"+psp, "", nil, http.StatusOK, &tx); err != nil {
		return nil, err
	}
	if tx.CardTokenID == "" {
		return nil, fmt.Errorf("the payment saving a card has no card token: %s", psp)
	}
	mod := func(i int) int { return ((i % n) + n) % n }
	return []loadCase{
		{
			name: fmt.Sprintf("POST /v1/transactions/{id}/refund (1 minor unit, over %d captured payments)", n), path: "/v1/transactions/{id}/refund",
			pathFor: func(i int) string { return "/v1/transactions/" + ids[mod(i)] + "/refund" },
			want:    http.StatusOK, unit: "refunds/s", minRatio: slowRatio,
			headers: secretHeaders(t.key, runID, "bench-refund"),
			body:    func(int) []byte { return []byte(`{"amount":1}`) },
			check: func(b []byte) error {
				var v struct{ Type, Status string }
				if err := json.Unmarshal(b, &v); err != nil || v.Type != "refund" || v.Status != "refunded" {
					return fmt.Errorf("not a refund: %s", b)
				}
				return nil
			},
		},
		{
			name: "POST /v1/payments/recurring (subscription, off-session)", path: "/v1/payments/recurring",
			want: http.StatusCreated, unit: "payments/s", minRatio: slowRatio,
			headers: secretHeaders(t.key, runID, "bench-recurring"),
			body: func(i int) []byte {
				return fmt.Appendf(nil, `{"card_token_id":%q,"amount":{"value":1000,"currency":"EUR"},"order_reference":"bench-rec-%d-%d",`+
					`"recurring_type":"subscription"}`, tx.CardTokenID, runID, i)
			},
			check: func(b []byte) error {
				var v struct{ Status string }
				if err := json.Unmarshal(b, &v); err != nil || v.Status != "charged" {
					return fmt.Errorf("not a charged payment: %s", b)
				}
				return nil
			},
		},
	}, nil
}

// benchPayment pays amount with 4111 1111 1111 1111 in checkout (captured
// at once: automatic capture), saving the card for shopper when one is
// given; it returns the payment's id.
func benchPayment(ctx context.Context, t target, runID int64, ref string, amount int64, shopper string) (string, error) {
	body := fmt.Sprintf(`{"amount":{"value":%d,"currency":"EUR"},"reference":"bench-%d-%s","returnUrl":"https://shop.example/return",`+
		`"paymentMethod":{"type":"scheme","encryptedCardNumber":"test_4111111111111111","encryptedExpiryMonth":"test_03",`+
		`"encryptedExpiryYear":"test_2030","encryptedSecurityCode":"test_737"}`, amount, runID, ref)
	if shopper != "" {
		body += fmt.Sprintf(`,"shopperReference":%q,"storePaymentMethod":true`, shopper)
	}
	var v struct{ ResultCode, PSPReference string }
	err := benchCall(ctx, t, http.MethodPost, "/v2/payments", fmt.Sprintf("bench-setup-%d-%s", runID, ref), []byte(body+"}"), http.StatusOK, &v)
	if err == nil && v.ResultCode != "Authorised" {
		err = fmt.Errorf("setup payment %s: %s", ref, v.ResultCode)
	}
	return v.PSPReference, err
}

func benchCall(ctx context.Context, t target, method, path, idem string, body []byte, want int, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, t.url+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", t.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if idem != "" {
		req.Header.Set("Idempotency-Key", idem)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	return json.Unmarshal(raw, out)
}

// recurringDynamoRows reports the DynamoDB calls of a recurring payment (by
// card token and by customer) and of its replay on DynamoDB Local
// (shared/pay/customers/calls_test.go asserts the same counts).
func recurringDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per recurring payment", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		return nil, err
	}
	pays, err := checkout.BuildCheckoutPayments(d)
	if err != nil {
		return nil, err
	}
	txs, err := transactions.BuildTransactions(d)
	if err != nil {
		return nil, err
	}
	cus, err := customers.BuildCustomers(d)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(d.Server(pays, txs, cus))
	defer srv.Close()
	t := target{url: srv.URL, key: sample.Key}
	run := int64(os.Getpid())
	psp, err := benchPayment(ctx, t, run, "calls-saves-card", 1000, fmt.Sprintf("bench-calls-%d", run))
	if err != nil {
		return nil, err
	}
	var tx struct {
		CustomerID  string `json:"customer_id"`
		CardTokenID string `json:"card_token_id"`
	}
	if err := benchCall(ctx, t, http.MethodGet, "/v1/transactions/"+psp, "", nil, http.StatusOK, &tx); err != nil {
		return nil, err
	}
	counted := func(idem, body string) (map[string]int, error) {
		counter.Reset()
		var v struct{ Status string }
		if err := benchCall(ctx, t, http.MethodPost, "/v1/payments/recurring", idem, []byte(body), http.StatusCreated, &v); err != nil {
			return nil, err
		}
		if v.Status != "charged" {
			return nil, fmt.Errorf("recurring payment is %s", v.Status)
		}
		return counter.Counts(), nil
	}
	byToken := fmt.Sprintf(`{"card_token_id":%q,"amount":{"value":2500,"currency":"EUR"},"order_reference":"calls-1","recurring_type":"subscription"}`, tx.CardTokenID)
	// A warm instance's: the first recurring payment of the account also
	// reads the account's card connector (kept 30 s, connect.Directory).
	if _, err := counted(fmt.Sprintf("bench-calls-rec-warm-%d", run), strings.Replace(byToken, "calls-1", "calls-0", 1)); err != nil {
		return nil, err
	}
	token, err := counted(fmt.Sprintf("bench-calls-rec-%d", run), byToken)
	if err != nil {
		return nil, err
	}
	replay, err := counted(fmt.Sprintf("bench-calls-rec-%d", run), byToken)
	if err != nil {
		return nil, err
	}
	customer, err := counted(fmt.Sprintf("bench-calls-rec-cus-%d", run),
		fmt.Sprintf(`{"customer_id":%q,"amount":{"value":2500,"currency":"EUR"},"order_reference":"calls-2","recurring_type":"unscheduled"}`, tx.CustomerID))
	if err != nil {
		return nil, err
	}
	reads := func(m map[string]int) int {
		return m["GetItem"] + m["Query"] + m["BatchGetItem"] + m["TransactGetItems"]
	}
	return []row{
		{name: "calls: POST /v1/payments/recurring (card_token_id)", value: formatCounts(token),
			target: "key reads (API key, Idempotency-Key) + the token's GetItem + one write call, no Scan",
			ok:     verdict(writeCalls(token) == 1 && reads(token) == 3 && total(token) == 4)},
		{name: "calls: POST /v1/payments/recurring (customer_id: its default token)", value: formatCounts(customer),
			target: "key reads + the customer's GetItem + a Query of its tokens + one write call",
			ok:     verdict(writeCalls(customer) == 1 && customer["GetItem"] == 3 && customer["Query"] == 1 && total(customer) == 5)},
		{name: "calls: POST /v1/payments/recurring, replayed", value: formatCounts(replay),
			target: "the two key reads, no write", ok: verdict(writeCalls(replay) == 0 && reads(replay) == 2 && total(replay) == 2)},
	}, nil
}
