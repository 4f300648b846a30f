package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
	"github.com/paygate/paygate/shared/store"
)

// Cost per million operations (issue 17, item 4). Each operation runs
// through the real handlers in this process on DynamoDB Local, and every
// stage (one function invocation) is measured: DynamoDB calls and the
// capacity units DynamoDB reports (a transaction's doubled), SQS requests,
// this process's CPU time, log bytes and response bytes. A stage costs:
//
//   - HTTP API: one request when the stage is behind the API;
//   - Lambda: one request, and GB-seconds at the function's MemorySize in
//     template.yaml (arm64) for a billed duration of the CPU time stretched
//     to the memory's share of a vCPU (1,769 MB = one) plus the assumed
//     round trip of each AWS call, rounded up to the millisecond;
//   - DynamoDB: read and write request units, on demand; and, for the two
//     other columns, the same units as capacity when the tables are
//     provisioned (TableCapacity=provisioned): at the assumed utilisation
//     a unit consumed costs the capacity-hour's price / 3,600 / utilisation,
//     at the provisioned rate or at 1-year reserved capacity's (its upfront
//     fee spread over the term's hours, plus its hourly rate);
//   - SQS: requests (a receive and a delete per message when the event
//     source mapping takes it alone, the worst case);
//   - CloudWatch Logs: the stage's log bytes, plus Lambda's own lines when
//     the template's SystemLogLevel keeps them;
//   - X-Ray: the sampled fraction of a trace (Tracing: Active);
//   - data transfer out: the response (or webhook) bytes.
//
// Every event an operation commits is published by the events stream's
// consumer: one invocation per event (a stream batch may carry more; one
// each is the upper bound) and its query of the account's endpoints. Prices
// and the assumptions come from prices.json, in one place.

//go:embed prices.json
var pricesJSON []byte

type priceList struct {
	Region         string  `json:"region"`
	Checked        string  `json:"checked"`
	HTTPAPI        float64 `json:"http_api_per_million_requests"`
	LambdaRequests float64 `json:"lambda_per_million_requests"`
	LambdaGBs      float64 `json:"lambda_arm64_per_gb_second"`
	WRU            float64 `json:"dynamodb_per_million_write_request_units"`
	RRU            float64 `json:"dynamodb_per_million_read_request_units"`
	WCUHour        float64 `json:"dynamodb_provisioned_per_wcu_hour"`
	RCUHour        float64 `json:"dynamodb_provisioned_per_rcu_hour"`
	Reserved       struct {
		WCUUpfront float64 `json:"per_100_wcu_upfront"`
		WCUHour    float64 `json:"per_100_wcu_hour"`
		RCUUpfront float64 `json:"per_100_rcu_upfront"`
		RCUHour    float64 `json:"per_100_rcu_hour"`
		TermHours  float64 `json:"term_hours"`
	} `json:"dynamodb_reserved_1y"`
	CapacityChecked string  `json:"dynamodb_capacity_checked"`
	SQS             float64 `json:"sqs_standard_per_million_requests"`
	LogsGB          float64 `json:"cloudwatch_logs_ingested_per_gb"`
	XRay            float64 `json:"xray_per_million_traces_recorded"`
	XRaySampled     float64 `json:"xray_sampled_fraction"`
	TransferGB      float64 `json:"data_transfer_out_per_gb"`
	Assumed         struct {
		DynamoCallMs     float64 `json:"dynamodb_call_ms"`
		DynamoTransactMs float64 `json:"dynamodb_transaction_ms"`
		SQSCallMs        float64 `json:"sqs_call_ms"`
		PlatformLogBytes float64 `json:"platform_log_bytes_per_invocation"`
		DynamoUtil       float64 `json:"dynamodb_utilization"`
	} `json:"assumed"`
}

// dynamoRates are USD per million DynamoDB read and write units consumed.
type dynamoRates struct{ read, write float64 }

// The three ways the tables can pay for their units (TableCapacity).
func (p priceList) onDemand() dynamoRates { return dynamoRates{p.RRU, p.WRU} }

// provisioned: a capacity unit bought for an hour serves 3,600 units
// consumed at full use, so util x 3,600 at the assumed utilisation.
func (p priceList) provisioned() dynamoRates {
	return dynamoRates{p.perMillionUnits(p.RCUHour), p.perMillionUnits(p.WCUHour)}
}

// reserved: 1-year reserved capacity, bought per 100 units, its upfront fee
// spread over the term's hours, used as provisioned capacity is.
func (p priceList) reserved() dynamoRates {
	r := p.Reserved
	return dynamoRates{
		read:  p.perMillionUnits((r.RCUUpfront/r.TermHours + r.RCUHour) / 100),
		write: p.perMillionUnits((r.WCUUpfront/r.TermHours + r.WCUHour) / 100),
	}
}

// perMillionUnits is the price of a million units consumed from capacity
// that costs perUnitHour per unit-hour and is used at the assumed share.
func (p priceList) perMillionUnits(perUnitHour float64) float64 {
	return perUnitHour * 1e6 / 3600 / p.Assumed.DynamoUtil
}

func loadPrices() (priceList, error) {
	var p priceList
	err := json.Unmarshal(pricesJSON, &p)
	return p, err
}

// stage is one function invocation of an operation, averaged over runs.
type stage struct {
	function string
	api      bool
	calls    map[string]float64 // DynamoDB calls by operation
	units    dynamostore.Units
	sqs      float64 // SQS requests
	cpu      time.Duration
	logBytes float64
	outBytes float64
	per      float64 // stages per operation (e.g. events per operation)
	// noInvocation: calls made by an invocation counted elsewhere (only
	// their DynamoDB and SQS requests are priced).
	noInvocation bool
}

// costs are USD per one million operations, by charge.
type costs map[string]float64

const (
	chargeAPI      = "HTTP API"
	chargeLambda   = "Lambda"
	chargeDynamo   = "DynamoDB"
	chargeSQS      = "SQS"
	chargeLogs     = "CloudWatch Logs"
	chargeXRay     = "X-Ray"
	chargeTransfer = "data out"
)

func (s stage) cost(p priceList, memMB int) (costs, float64) {
	c := costs{}
	per := s.per * 1e6 // stages per million operations
	if s.api {
		c[chargeAPI] += per * p.HTTPAPI / 1e6
	}
	wait := s.sqs * p.Assumed.SQSCallMs
	for op, n := range s.calls {
		if op == "TransactWriteItems" || op == "TransactGetItems" {
			wait += n * p.Assumed.DynamoTransactMs
		} else {
			wait += n * p.Assumed.DynamoCallMs
		}
	}
	cpuMs := float64(s.cpu) / 1e6 * fullCoreMB / float64(memMB)
	billed := math.Ceil(cpuMs + wait)
	c[chargeDynamo] += s.dynamo(p.onDemand())
	c[chargeSQS] += per * s.sqs * p.SQS / 1e6
	c[chargeTransfer] += per * s.outBytes / (1 << 30) * p.TransferGB
	if s.noInvocation {
		return c, 0
	}
	c[chargeLambda] += per*p.LambdaRequests/1e6 + per*billed/1000*float64(memMB)/1024*p.LambdaGBs
	c[chargeLogs] += per * (s.logBytes + p.Assumed.PlatformLogBytes) / (1 << 30) * p.LogsGB
	c[chargeXRay] += per * p.XRaySampled * p.XRay / 1e6
	return c, billed
}

// dynamo is the stage's DynamoDB units at rates, USD per million operations.
func (s stage) dynamo(r dynamoRates) float64 {
	return s.per * (s.units.Read*r.read + s.units.Write*r.write)
}

// fullCoreMB is the memory at which Lambda gives one full vCPU.
const fullCoreMB = 1769

// costOp is one operation of the table.
type costOp struct {
	name   string
	target float64 // USD per million; 0: report only
	stages []stage
}

// costRuns is how many times each operation runs for its averages.
const costRuns = 20

// systemLogLevel is the default of the template's SystemLogLevel parameter
// (INFO, Lambda's default, when there is none).
func systemLogLevel(tpl *samtemplate.Template) string {
	if p, ok := tpl.Parameters["SystemLogLevel"].(map[string]any); ok {
		if d, ok := p["Default"].(string); ok {
			return d
		}
	}
	return "INFO"
}

// costRows measures the operations and prices them (see the comment above).
func costRows(ctx context.Context, root string) ([]row, error) {
	endpoint, sqsEndpoint := os.Getenv("DYNAMODB_ENDPOINT"), os.Getenv("SQS_ENDPOINT")
	if endpoint == "" || sqsEndpoint == "" {
		return []row{{name: "cost per million operations", value: "skipped: DYNAMODB_ENDPOINT or SQS_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	p, err := loadPrices()
	if err != nil {
		return nil, err
	}
	tpl, err := samtemplate.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	mem := map[string]int{}
	for _, f := range tpl.Functions() {
		mem[f.LogicalID] = f.MemorySize
	}
	// Lambda's own lines are logged only when the template's default keeps
	// them (SystemLogLevel INFO or DEBUG; dev overrides it in samconfig.toml).
	if lvl := systemLogLevel(tpl); lvl != "INFO" && lvl != "DEBUG" {
		p.Assumed.PlatformLogBytes = 0
	}
	ops, err := measureCostOps(ctx, endpoint, sqsEndpoint)
	if err != nil {
		return nil, err
	}
	var rows []row
	for _, op := range ops {
		po, err := priceOp(op, p, mem)
		if err != nil {
			return rows, err
		}
		keys := make([]string, 0, len(po.by))
		for k := range po.by {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return po.by[keys[i]] > po.by[keys[j]] })
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s %.2f", k, po.by[k])
		}
		// The target is held to the stack's default (on demand).
		target, ok := "report", "-"
		if op.target > 0 {
			target, ok = fmt.Sprintf("< USD %.2f per million", op.target), verdict(po.total < op.target)
		}
		rows = append(rows, row{
			name: fmt.Sprintf("cost: USD per 1M %s (%s)", op.name, p.Region),
			value: fmt.Sprintf("%.2f; provisioned %.2f; reserved %.2f; biggest: %s (%s); %s", po.total, po.provisioned, po.reserved,
				keys[0], strings.Join(parts, ", "), strings.Join(po.durs, "; ")),
			target: target, ok: ok,
		})
	}
	prov, res := p.provisioned(), p.reserved()
	rows = append(rows, row{name: "cost: prices and assumptions", value: fmt.Sprintf("infra/bench/prices.json (%s); "+
		"DynamoDB USD per 1M units (read, write): on demand %.4g, %.4g; provisioned %.4g, %.4g and reserved 1-year %.4g, %.4g "+
		"at %.0f%% use (TableCapacity=provisioned; reserved capacity assumed to cover all of it)",
		p.Checked, p.RRU, p.WRU, prov.read, prov.write, res.read, res.write, 100*p.Assumed.DynamoUtil), target: "-", ok: "-"})
	return rows, nil
}

// pricedOp is one operation's cost: USD per million operations with the
// tables on demand (total, by charge), and the same totals with the tables
// provisioned, at the provisioned and at the reserved rate.
type pricedOp struct {
	total, provisioned, reserved float64
	by                           costs
	durs                         []string
}

// priceOp prices op's stages, each function at its memory in mem.
func priceOp(op costOp, p priceList, mem map[string]int) (pricedOp, error) {
	po := pricedOp{by: costs{}}
	var provisioned, reserved float64 // DynamoDB alone
	for _, s := range op.stages {
		m, ok := mem[s.function]
		if !ok {
			return po, fmt.Errorf("%s: no function %s in template.yaml", op.name, s.function)
		}
		c, billed := s.cost(p, m)
		for k, v := range c {
			po.by[k] += v
			po.total += v
		}
		provisioned += s.dynamo(p.provisioned())
		reserved += s.dynamo(p.reserved())
		if !s.noInvocation {
			po.durs = append(po.durs, fmt.Sprintf("%s %.3g x (%.0f ms at %d MB, %.1f RRU, %.1f WRU, %.1f SQS)", s.function, s.per, billed, m, s.units.Read, s.units.Write, s.sqs))
		}
	}
	// Only DynamoDB's charge depends on the capacity mode.
	rest := po.total - po.by[chargeDynamo]
	po.provisioned, po.reserved = rest+provisioned, rest+reserved
	return po, nil
}

// requestQueue counts every queue call as the SQS request it would be
// (wallet.go's countingQueue counts a function's own calls by name).
type requestQueue struct {
	queue.Queue
	mu sync.Mutex
	n  int
}

func (q *requestQueue) add() { q.mu.Lock(); q.n++; q.mu.Unlock() }
func (q *requestQueue) take() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := q.n
	q.n = 0
	return n
}

func (q *requestQueue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	q.add()
	return q.Queue.Send(ctx, name, body, delay)
}

func (q *requestQueue) Receive(ctx context.Context, name string, max int, vis, wait time.Duration) ([]queue.Message, error) {
	q.add()
	return q.Queue.Receive(ctx, name, max, vis, wait)
}

func (q *requestQueue) Delete(ctx context.Context, name, receipt string) error {
	q.add()
	return q.Queue.Delete(ctx, name, receipt)
}

// countingWriter counts the bytes written (the logs).
type countingWriter struct {
	mu sync.Mutex
	n  int
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	w.n += len(b)
	w.mu.Unlock()
	return len(b), nil
}

func (w *countingWriter) take() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.n
	w.n = 0
	return n
}

// processCPU is this process's CPU time so far (user + system).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measureCostOps runs each operation costRuns times and averages its stages.
func measureCostOps(ctx context.Context, endpoint, sqsEndpoint string) ([]costOp, error) {
	counter := dynamostore.NewCallCounter()
	d, tables, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return nil, err
	}
	defer cleanup()
	dir, err := os.MkdirTemp("", "paygate-bench-cost-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	bq, err := boltqueue.Open(filepath.Join(dir, "queue.db"), d.Clock)
	if err != nil {
		return nil, err
	}
	defer bq.Close()
	q := &requestQueue{Queue: bq}
	d.Queue = q
	logs := &countingWriter{}
	d.Log = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if err := seedDemo(ctx, d); err != nil {
		return nil, err
	}
	k, err := d.Keys.Authenticate(ctx, sample.Key)
	if err != nil {
		return nil, err
	}
	if _, _, err := prepaid.New(d.Store, d.Clock).PostDeposit(ctx, k.AccountID, prepaid.Deposit{Currency: fundCurrency, Amount: 1 << 40}); err != nil {
		return nil, err
	}
	h, err := d.ServeAll(wiring.HTTP()...)
	if err != nil {
		return nil, err
	}
	var fulfil app.SQSHandler
	var fulfilFn string
	for _, c := range wiring.SQS() {
		if c.Queue == queue.Fulfilment {
			h, err := c.Build(d)
			if err != nil {
				return nil, err
			}
			fulfil = app.SQSLambda(h)
			fulfilFn = c.Function
		}
	}
	if fulfil == nil {
		return nil, fmt.Errorf("no consumer of %s in wiring", queue.Fulfilment)
	}
	events := tables[store.TableEvents]
	var eventsSeen float64
	// measure runs one stage and returns its figures (per = 1).
	measure := func(fn string, api bool, do func() (int, error)) (stage, error) {
		counter.Reset()
		q.take()
		logs.take()
		cpu0 := processCPU()
		out, err := do()
		s := stage{function: fn, api: api, cpu: processCPU() - cpu0, units: counter.Units(), sqs: float64(q.take()),
			logBytes: float64(logs.take()), outBytes: float64(out), per: 1, calls: map[string]float64{}}
		for op, n := range counter.Counts() {
			s.calls[op] = float64(n)
		}
		eventsSeen += float64(counter.ItemsWritten(events))
		return s, err
	}
	call := func(method, path, idem string, body []byte) func() (int, error) {
		return func() (int, error) {
			req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
			req.Header.Set("Authorization", sample.Key)
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			if idem != "" {
				req.Header.Set("Idempotency-Key", idem)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code >= 300 {
				return 0, fmt.Errorf("%s %s answered %d: %s", method, path, w.Code, strings.TrimSpace(w.Body.String()))
			}
			return w.Body.Len(), nil
		}
	}
	runID := time.Now().UnixNano()
	payBody := func(i int, extra string) []byte {
		return fmt.Appendf(nil, `{"amount":{"value":1000,"currency":"EUR"},"reference":"cost-%d-%d",`+
			`"returnUrl":"https://shop.example/return","paymentMethod":{"type":"scheme",`+
			`"encryptedCardNumber":"test_4111111111111111","encryptedExpiryMonth":"test_03",`+
			`"encryptedExpiryYear":"test_2030","encryptedSecurityCode":"test_737"}%s}`, runID, i, extra)
	}
	// Each operation: its stages, run costRuns times, then the events it
	// committed, each published once.
	type stageFn struct {
		fn  string
		api bool
		do  func(i int) func() (int, error)
	}
	poller := &app.Poller{Queue: q, Name: queue.Fulfilment, Handler: fulfil, Wait: time.Millisecond, BatchSize: 1}
	var refundIDs []string
	plans := []struct {
		name   string
		target float64
		setup  func(i int) error
		warm   func() error // run once, not measured: what a warm instance has done
		stages []stageFn
	}{
		{name: "authenticated GETs (GET /v1/merchants/me)", stages: []stageFn{{"MerchantsFunction", true,
			func(int) func() (int, error) { return call(http.MethodGet, "/v1/merchants/me", "", nil) }}}},
		{name: "orders (POST /orders, then its fulfilment)", stages: []stageFn{
			{"GateOrdersFunction", true, func(i int) func() (int, error) {
				return call(http.MethodPost, "/orders", fmt.Sprintf("cost-order-%d-%d", runID, i), fmt.Appendf(nil, `{"product_id":%d,"quantity":1}`, benchProduct))
			}},
			{fulfilFn, false, func(int) func() (int, error) {
				return func() (int, error) {
					r, err := poller.Once(ctx)
					if err == nil && r.Deleted != 1 {
						err = fmt.Errorf("fulfilment: %+v", r)
					}
					return 0, err
				}
			}},
		}},
		{name: "card payments (POST /v2/payments, authorised and captured)", target: 6,
			// The first card payment of an account in an instance also reads
			// its card connector (kept 30 s, connect.Directory).
			warm: func() error {
				_, err := call(http.MethodPost, "/v2/payments", fmt.Sprintf("cost-pay-%d-warm", runID), payBody(costRuns, ""))()
				return err
			},
			stages: []stageFn{{"CheckoutPaymentsFunction", true,
				func(i int) func() (int, error) {
					return call(http.MethodPost, "/v2/payments", fmt.Sprintf("cost-pay-%d-%d", runID, i), payBody(i, ""))
				}}}},
		{name: "refunds (POST /v1/transactions/{id}/refund)",
			setup: func(i int) error {
				req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/v2/payments", bytes.NewReader(payBody(1000+i, "")))
				req.Header.Set("Authorization", sample.Key)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", fmt.Sprintf("cost-refund-pay-%d-%d", runID, i))
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				var v struct{ PspReference string }
				if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil || v.PspReference == "" {
					return fmt.Errorf("refund setup payment: %d %s", w.Code, w.Body.String())
				}
				refundIDs = append(refundIDs, v.PspReference)
				return nil
			},
			stages: []stageFn{{"TransactionsFunction", true, func(i int) func() (int, error) {
				return call(http.MethodPost, "/v1/transactions/"+refundIDs[i]+"/refund", fmt.Sprintf("cost-refund-%d-%d", runID, i), []byte(`{"amount":100}`))
			}}}},
	}
	wh, err := measureWebhookCalls(ctx, endpoint, sqsEndpoint)
	if err != nil {
		return nil, err
	}
	fcounts := func(m map[string]int) map[string]float64 {
		out := map[string]float64{}
		for k, v := range m {
			out[k] = float64(v)
		}
		return out
	}
	// An event's publication: the stream consumer's invocation and its query.
	publish := func(per float64) stage {
		return stage{function: "WebhookPublisherFunction", calls: fcounts(wh.PublishDB), units: wh.PublishUnits, cpu: wh.PublishCPU, per: per}
	}
	var ops []costOp
	for _, pl := range plans {
		if pl.warm != nil {
			if err := pl.warm(); err != nil {
				return nil, fmt.Errorf("%s: %w", pl.name, err)
			}
		}
		sums := make([]stage, len(pl.stages))
		eventsSeen = 0
		for i := range costRuns {
			if pl.setup != nil {
				if err := pl.setup(i); err != nil {
					return nil, err
				}
			}
			for j, sf := range pl.stages {
				s, err := measure(sf.fn, sf.api, sf.do(i))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", pl.name, err)
				}
				acc := &sums[j]
				acc.function, acc.api, acc.per = s.function, s.api, 1
				if acc.calls == nil {
					acc.calls = map[string]float64{}
				}
				for k, v := range s.calls {
					acc.calls[k] += v / costRuns
				}
				acc.units.Read += s.units.Read / costRuns
				acc.units.Write += s.units.Write / costRuns
				acc.sqs += s.sqs / costRuns
				acc.cpu += s.cpu / costRuns
				acc.logBytes += s.logBytes / costRuns
				acc.outBytes += s.outBytes / costRuns
			}
		}
		op := costOp{name: pl.name, target: pl.target, stages: sums}
		if ev := eventsSeen / costRuns; ev > 0 {
			op.stages = append(op.stages, publish(ev))
		}
		ops = append(ops, op)
	}
	// A webhook delivery to one endpoint: the publisher's send (its query is
	// the event's, counted with the operation that committed it), the event
	// source's receive and delete, the sender's attempt and the POST's bytes.
	send := stage{function: "WebhookSenderFunction", calls: fcounts(wh.SendDB), units: wh.SendUnits, cpu: wh.SendCPU,
		sqs: float64(total(wh.PollSQS)), outBytes: float64(wh.DeliveredBytes), per: 1}
	pub := stage{function: "WebhookPublisherFunction", sqs: float64(total(wh.PublishSQS)), per: 1, noInvocation: true}
	ops = append(ops, costOp{name: "webhook deliveries (one event to one endpoint)", stages: []stage{send, pub}})
	return ops, nil
}
