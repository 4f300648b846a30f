package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/pay/disputes"
)

// disputeDynamoRows reports the DynamoDB calls of the dispute requests on
// DynamoDB Local: the sandbox's open, evidence with a document of two
// chunks, submit, accept, and a replay (shared/pay/disputes
// TestCallsPerDisputeRequest asserts the same counts).
func disputeDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per dispute request", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
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
	dsp, err := disputes.BuildDisputes(d)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(d.Server(pays, dsp))
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
	captured := func(name string) (string, error) {
		_, pay, err := post("/v2/payments", "bench-dsp-pay-"+name+run, map[string]any{"amount": map[string]any{"value": 10000, "currency": "EUR"},
			"reference": "bench-dsp", "returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
				"encryptedSecurityCode": "test_737"}})
		id, _ := pay["pspReference"].(string)
		return id, err
	}
	open := func(name string) (map[string]int, string, error) {
		tx, err := captured(name)
		if err != nil {
			return nil, "", err
		}
		counts, d, err := post("/test-helpers/transactions/"+tx+"/dispute", "bench-dsp-open-"+name+run, map[string]any{})
		id, _ := d["id"].(string)
		return counts, id, err
	}
	opened, id, err := open("a")
	if err != nil {
		return nil, err
	}
	data := make([]byte, disputes.ChunkSize+1)
	copy(data, "%PDF-1.4\n")
	evidence, _, err := post("/v1/disputes/"+id+"/evidence", "bench-dsp-evidence-"+run, map[string]any{"description": "proof",
		"documents": []any{map[string]any{"name": "a.pdf", "content_type": "application/pdf", "data": base64.StdEncoding.EncodeToString(data)}}})
	if err != nil {
		return nil, err
	}
	submit, _, err := post("/v1/disputes/"+id+"/submit", "bench-dsp-submit-"+run, map[string]any{})
	if err != nil {
		return nil, err
	}
	replay, _, err := post("/v1/disputes/"+id+"/submit", "bench-dsp-submit-"+run, map[string]any{})
	if err != nil {
		return nil, err
	}
	_, other, err := open("b")
	if err != nil {
		return nil, err
	}
	accept, _, err := post("/v1/disputes/"+other+"/accept", "bench-dsp-accept-"+run, map[string]any{})
	if err != nil {
		return nil, err
	}
	is := func(m map[string]int, want map[string]int) string {
		if len(m) != len(want) {
			return verdict(false)
		}
		for k, v := range want {
			if m[k] != v {
				return verdict(false)
			}
		}
		return verdict(true)
	}
	return []row{
		{name: "calls: POST /test-helpers/transactions/{id}/dispute (open: the hold)", value: formatCounts(opened),
			target: "3 GetItem (key, Idempotency-Key, payment), 1 Query (balances), 1 TransactWriteItems", ok: is(opened, map[string]int{"GetItem": 3, "Query": 1, "TransactWriteItems": 1})},
		{name: "calls: POST /v1/disputes/{id}/evidence, one document of 2 chunks", value: formatCounts(evidence),
			target: "3 GetItem, 1 TransactWriteItems of chunks + 1 of the dispute", ok: is(evidence, map[string]int{"GetItem": 3, "TransactWriteItems": 2})},
		{name: "calls: POST /v1/disputes/{id}/submit (the sandbox reads 2 chunks)", value: formatCounts(submit),
			target: "4 GetItem + 1 per chunk, 1 TransactWriteItems", ok: is(submit, map[string]int{"GetItem": 6, "TransactWriteItems": 1})},
		{name: "calls: POST /v1/disputes/{id}/submit, replayed", value: formatCounts(replay),
			target: "the two key reads, no write", ok: is(replay, map[string]int{"GetItem": 2})},
		{name: "calls: POST /v1/disputes/{id}/accept (the loss)", value: formatCounts(accept),
			target: "4 GetItem (key, Idempotency-Key, dispute, payment), 1 TransactWriteItems", ok: is(accept, map[string]int{"GetItem": 4, "TransactWriteItems": 1})},
	}, nil
}
