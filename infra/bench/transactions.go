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
	"github.com/paygate/paygate/shared/pay/splits"
	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
)

// txDynamoRows reports the DynamoDB calls of a capture (with and without a
// split request), a refund and a replayed refund of a card payment on
// DynamoDB Local (shared/pay/transactions/calls_test.go and
// shared/pay/splits' TestCallsPerCaptureWithAndWithoutSplit assert the same
// counts).
func txDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per capture and refund", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
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
	spl, err := splits.BuildSplitRequests(d)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(d.Server(pays, txs, spl))
	defer srv.Close()
	post := func(path, idem string, body any) (map[string]int, map[string]any, error) {
		b, _ := json.Marshal(body)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, bytes.NewReader(b))
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", sample.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idem)
		counter.Reset()
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		counts := counter.Counts()
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return nil, nil, fmt.Errorf("POST %s answered %d: %s", path, resp.StatusCode, strings.TrimSpace(string(raw)))
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return counts, m, nil
	}
	run := fmt.Sprint(os.Getpid())
	authorise := func(name string) (string, error) {
		_, pay, err := post("/v2/payments", "bench-tx-pay-"+name+run, map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"},
			"reference": "bench-tx", "returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
				"encryptedSecurityCode": "test_737"}, "additionalData": map[string]any{"manualCapture": "true"}})
		id, _ := pay["pspReference"].(string)
		return id, err
	}
	id, err := authorise("")
	if err != nil {
		return nil, err
	}
	splitID, err := authorise("split-")
	if err != nil {
		return nil, err
	}
	if _, _, err := post("/v1/split-requests", "bench-tx-split-"+run, map[string]any{"transaction_id": splitID, "parts": []any{
		map[string]any{"reference": "marketplace", "percentage": 20}, map[string]any{"reference": "courier", "amount": 1500}}}); err != nil {
		return nil, err
	}
	capture, _, err := post("/v1/transactions/"+id+"/capture", "bench-tx-capture-"+run, map[string]any{"amount": 6000})
	if err != nil {
		return nil, err
	}
	captureSplit, _, err := post("/v1/transactions/"+splitID+"/capture", "bench-tx-capture-split-"+run, map[string]any{})
	if err != nil {
		return nil, err
	}
	refund, _, err := post("/v1/transactions/"+id+"/refund", "bench-tx-refund-"+run, map[string]any{"amount": 1000})
	if err != nil {
		return nil, err
	}
	replay, _, err := post("/v1/transactions/"+id+"/refund", "bench-tx-refund-"+run, map[string]any{"amount": 1000})
	if err != nil {
		return nil, err
	}
	reads := func(m map[string]int) int {
		return m["GetItem"] + m["Query"] + m["BatchGetItem"] + m["TransactGetItems"]
	}
	// The change is one write call; the DeleteItem of its modification's
	// due entry follows once the card processor received it.
	one := func(m map[string]int) string {
		return verdict(m["TransactWriteItems"] == 1 && m["DeleteItem"] == 1 && writeCalls(m) == 2 && reads(m) == 3 && total(m) == 5)
	}
	const target = "key reads (API key, Idempotency-Key) + the payment's GetItem + one write call + the processor's modification entry deleted, no Scan"
	return []row{
		{name: "calls: POST /v1/transactions/{id}/capture", value: formatCounts(capture), target: target, ok: one(capture)},
		{name: "calls: POST /v1/transactions/{id}/capture, the payment split in two parts", value: formatCounts(captureSplit),
			target: target + " (the split rides on the payment)", ok: one(captureSplit)},
		{name: "calls: POST /v1/transactions/{id}/refund", value: formatCounts(refund), target: target, ok: one(refund)},
		{name: "calls: POST /v1/transactions/{id}/refund, replayed", value: formatCounts(replay),
			target: "the two key reads, no write", ok: verdict(writeCalls(replay) == 0 && reads(replay) == 2 && total(replay) == 2)},
	}, nil
}
