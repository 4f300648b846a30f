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
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/pay/invoices"

	"github.com/aws/aws-lambda-go/events"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

// benefDynamoRows reports the DynamoDB calls of a distribution of 100 lines
// (and of 85, what one transaction holds), of a settlement payment order
// and its consumer, and of creating and paying a bank invoice, on DynamoDB
// Local (shared/pay/beneficiaries' TestCallsPerDistributionAndPaymentOrder and
// shared/pay/invoices' TestCallsPerInvoice assert the same counts).
func benefDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per distribution, payment order and invoice", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	dir, err := os.MkdirTemp("", "paygate-bench-benef-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bq, err := boltqueue.Open(filepath.Join(dir, "queue.db"), d.Clock)
	if err != nil {
		return nil, err
	}
	defer bq.Close()
	q := &countingQueue{Queue: bq, counts: map[string]int{}}
	d.Queue = q
	svc := beneficiaries.FromDeps(d)
	inv, err := invoices.BuildInvoices(d)
	if err != nil {
		return nil, err
	}
	srv := httptest.NewServer(d.Server(svc.Group(), inv))
	defer srv.Close()
	run := fmt.Sprint(os.Getpid())
	post := func(path, idem string, body any, want int) (map[string]int, map[string]any, error) {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, rd)
		if err != nil {
			return nil, nil, err
		}
		req.Header.Set("Authorization", sample.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", idem+run)
		counter.Reset()
		q.take()
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		counts := merge(counter.Counts(), q.take())
		if resp.StatusCode != want {
			return nil, nil, fmt.Errorf("POST %s answered %d: %s", path, resp.StatusCode, strings.TrimSpace(string(raw)))
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return counts, m, nil
	}
	kzt := func(v int) map[string]any { return map[string]any{"value": v, "currency": "KZT"} }

	// Funds: an invoice the sandbox pays (its calls are rows too).
	invBody := map[string]any{"amount": kzt(10_000_000), "payer": map[string]any{"phone": "+77011234567"},
		"description": "bench", "order_reference": "bench"}
	if _, _, err := post("/v1/invoices", "bench-inv-warm", invBody, 201); err != nil {
		return nil, err
	}
	invCreate, created, err := post("/v1/invoices", "bench-inv", invBody, 201)
	if err != nil {
		return nil, err
	}
	invPay, _, err := post("/test-helpers/invoices/"+fmt.Sprint(created["id"])+"/pay", "bench-inv-pay", nil, 200)
	if err != nil {
		return nil, err
	}
	var ids []string
	for i := 0; i < 100; i++ {
		_, b, err := post("/v1/merchants/beneficiaries", fmt.Sprintf("bench-ben-%d-", i), map[string]any{"name": fmt.Sprintf("Courier %d", i),
			"type": "person", "iin": "900101300017", "iban": "KZ699990000000000001", "bic": "CASPKZKA", "kbe": "19"}, 201)
		if err != nil {
			return nil, err
		}
		ids = append(ids, fmt.Sprint(b["id"]))
	}
	lines := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"beneficiary_id": ids[i], "amount": kzt(1000)}
		}
		return out
	}
	dist100, _, err := post("/v1/distributions", "bench-dist-100", map[string]any{"reference": "bench", "lines": lines(100)}, 201)
	if err != nil {
		return nil, err
	}
	dist85, _, err := post("/v1/distributions", "bench-dist-85", map[string]any{"reference": "bench", "lines": lines(beneficiaries.ChunkLines)}, 201)
	if err != nil {
		return nil, err
	}
	order, o, err := post("/v1/merchants/settlement-payment-orders", "bench-order", map[string]any{"beneficiary_id": ids[0],
		"amount": kzt(500), "purpose_code": "119", "description": "bench", "request_id": "bench-" + run}, 201)
	if err != nil {
		return nil, err
	}
	body, _ := json.Marshal(beneficiaries.Message{AccountID: fmt.Sprint(o["merchant_id"]), PaymentOrderID: fmt.Sprint(o["id"])})
	counter.Reset()
	resp, err := app.SQSLambda(svc.Consume)(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "bench", Body: string(body)}}})
	if err != nil || len(resp.BatchItemFailures) > 0 {
		return nil, fmt.Errorf("the payment order consumer failed: %v %v", err, resp.BatchItemFailures)
	}
	consumer := counter.Counts()

	// The time of a distribution of 500 lines (6 transactions after 5
	// BatchGetItems of the beneficiaries), median of three, on DynamoDB
	// Local.
	for i := 100; i < beneficiaries.MaxLines; i++ {
		_, b, err := post("/v1/merchants/beneficiaries", fmt.Sprintf("bench-ben-%d-", i), map[string]any{"name": fmt.Sprintf("Courier %d", i),
			"type": "person", "iin": "900101300017", "iban": "KZ699990000000000001", "bic": "CASPKZKA", "kbe": "19"}, 201)
		if err != nil {
			return nil, err
		}
		ids = append(ids, fmt.Sprint(b["id"]))
	}
	var took []time.Duration
	for i := 0; i < 3; i++ {
		start := time.Now()
		if _, _, err := post("/v1/distributions", fmt.Sprintf("bench-dist-500-%d-", i), map[string]any{"reference": "bench", "lines": lines(beneficiaries.MaxLines)}, 201); err != nil {
			return nil, err
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)

	reads := func(m map[string]int) int {
		return m["GetItem"] + m["Query"] + m["BatchGetItem"] + m["TransactGetItems"]
	}
	return []row{
		{name: "calls: POST /v1/distributions, 100 lines", value: formatCounts(dist100),
			target: "key reads + the funds' Query (no open dispute debt) + one BatchGetItem of the 100 beneficiaries + 2 TransactWriteItems (85 lines, then 15)",
			ok:     verdict(dist100["GetItem"] == 2 && dist100["Query"] == 1 && dist100["BatchGetItem"] == 1 && dist100["TransactWriteItems"] == 2 && total(dist100) == 6)},
		{name: fmt.Sprintf("calls: POST /v1/distributions, %d lines (one transaction)", beneficiaries.ChunkLines), value: formatCounts(dist85),
			target: "key reads + the funds' Query + one BatchGetItem + 1 TransactWriteItems",
			ok:     verdict(dist85["GetItem"] == 2 && dist85["Query"] == 1 && dist85["BatchGetItem"] == 1 && dist85["TransactWriteItems"] == 1 && total(dist85) == 5)},
		{name: "calls: POST /v1/merchants/settlement-payment-orders", value: formatCounts(order),
			target: "key reads + the beneficiary's GetItem + 1 TransactWriteItems + 1 SendMessage",
			ok:     verdict(reads(order) == 3 && order["TransactWriteItems"] == 1 && order["SendMessage"] == 1 && total(order) == 5)},
		{name: "calls: the payment order's consumer (paid)", value: formatCounts(consumer),
			target: "the order's GetItem, the sandbox bank's GetItem + UpdateItem, 1 TransactWriteItems",
			ok:     verdict(reads(consumer) == 2 && consumer["UpdateItem"] == 1 && consumer["TransactWriteItems"] == 1 && total(consumer) == 4)},
		{name: "calls: POST /v1/invoices", value: formatCounts(invCreate), target: "key reads + 1 TransactWriteItems",
			ok: verdict(reads(invCreate) == 2 && writeCalls(invCreate) == 1 && total(invCreate) == 3)},
		{name: "calls: POST /test-helpers/invoices/{id}/pay", value: formatCounts(invPay),
			target: "key reads + the invoice's GetItem + 1 TransactWriteItems (invoice, entries, balances, event)",
			ok:     verdict(reads(invPay) == 3 && writeCalls(invPay) == 1 && total(invPay) == 4)},
		{name: "time: POST /v1/distributions, 500 lines, DynamoDB Local (median of 3)", value: took[1].Round(time.Millisecond).String(),
			target: "-", ok: "-"},
	}, nil
}
