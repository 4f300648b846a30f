// Package metrics writes business metrics as CloudWatch Embedded Metric
// Format (EMF) log lines: one JSON object per line on stdout, which Lambda
// sends to CloudWatch Logs, where CloudWatch extracts the metrics from it
// with no API call, no agent and nothing added to a request's latency
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
//
// No maintained Go EMF library is served by the module proxy (AWS ships
// EMF clients for Node, Python, Java and .NET only; community Go ports such
// as prozz/aws-embedded-metrics-golang are not served), and the format is a
// few fields, so this is the one small encoder the services share.
//
// Services call it at the point of the state change, after the write that
// makes it true has committed: one line each (Count, BalanceDebit,
// PaymentResult, WebhookAttempt). Every record has the dimension
// Environment (the function's ENVIRONMENT; "local" when unset).
//
// Output: stdout inside Lambda (AWS_LAMBDA_FUNCTION_NAME is set) or when
// PAYGATE_EMF=stdout (make run, to watch them); nowhere otherwise, so tests
// and tools print nothing. SetOutput redirects it.
package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"
)

// Namespace is the CloudWatch namespace of every business metric (the
// template's dashboard shows it).
const Namespace = "paygate"

// The business metrics.
const (
	OrdersPlaced            = "OrdersPlaced"            // a Gate order committed with its balance debit
	OrdersFailed            = "OrdersFailed"            // a pending order failed (and was refunded)
	BalanceDebits           = "BalanceDebits"           // a balance debit committed (count)
	BalanceDebitedMinor     = "BalanceDebitedMinor"     // its amount, minor units, per Currency
	PaymentsAuthorised      = "PaymentsAuthorised"      // a card payment answered Authorised
	PaymentsRefused         = "PaymentsRefused"         // a card payment answered Refused
	WebhookAttempts         = "WebhookAttempts"         // a delivery attempt recorded
	WebhookAttemptsFailed   = "WebhookAttemptsFailed"   // ... that failed (non-2xx, timeout, refused address)
	WebhookDeliveriesFailed = "WebhookDeliveriesFailed" // a delivery that exhausted its retries (to the DLQ)
	// A processor's notice (shared/pay/processornotices) recorded without a
	// payment to match, and one that needs an operator (a failed capture or
	// refund, success=false, a chargeback): each alarmed.
	ProcessorNoticesUnmatched = "ProcessorNoticesUnmatched"
	ProcessorNoticesAlarmed   = "ProcessorNoticesAlarmed"
)

// Unit is a CloudWatch metric unit (the subset used here).
type Unit string

const (
	UnitCount        Unit = "Count"
	UnitNone         Unit = "None"
	UnitMilliseconds Unit = "Milliseconds"
)

// Metric is one value of a record.
type Metric struct {
	Name  string
	Unit  Unit
	Value float64
}

// Dimension is one dimension of a record (name and value).
type Dimension struct{ Name, Value string }

// Record is one EMF log line: metrics that share their dimensions.
type Record struct {
	Time       time.Time
	Namespace  string
	Dimensions []Dimension // one dimension set, in this order
	Metrics    []Metric
}

// Limits of the specification.
const (
	maxDimensions = 30  // per dimension set
	maxMetrics    = 100 // per directive
	maxName       = 255 // namespace, metric and dimension names
)

// Encode returns the record as one EMF line (ending in '\n'). It refuses what
// CloudWatch would drop or reject: an empty or overlong namespace or name, a
// dimension or metric named twice or like each other (they share the root
// object), an empty dimension value, a value that is not a finite number,
// more dimensions or metrics than a directive allows.
func Encode(r Record) ([]byte, error) {
	if err := checkName("namespace", r.Namespace); err != nil {
		return nil, err
	}
	if len(r.Metrics) == 0 || len(r.Metrics) > maxMetrics {
		return nil, fmt.Errorf("metrics: %d metrics, want 1 to %d", len(r.Metrics), maxMetrics)
	}
	if len(r.Dimensions) > maxDimensions {
		return nil, fmt.Errorf("metrics: %d dimensions, at most %d", len(r.Dimensions), maxDimensions)
	}
	root := map[string]any{}
	dims := make([]string, 0, len(r.Dimensions))
	for _, d := range r.Dimensions {
		if err := checkName("dimension", d.Name); err != nil {
			return nil, err
		}
		if d.Value == "" {
			return nil, fmt.Errorf("metrics: dimension %s has no value", d.Name)
		}
		if _, dup := root[d.Name]; dup || d.Name == "_aws" {
			return nil, fmt.Errorf("metrics: %q is used twice", d.Name)
		}
		root[d.Name] = d.Value
		dims = append(dims, d.Name)
	}
	type def struct {
		Name string `json:"Name"`
		Unit Unit   `json:"Unit"`
	}
	defs := make([]def, 0, len(r.Metrics))
	for _, m := range r.Metrics {
		if err := checkName("metric", m.Name); err != nil {
			return nil, err
		}
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
			return nil, fmt.Errorf("metrics: %s is %v, not a number CloudWatch accepts", m.Name, m.Value)
		}
		if _, dup := root[m.Name]; dup || m.Name == "_aws" {
			return nil, fmt.Errorf("metrics: %q is used twice", m.Name)
		}
		unit := m.Unit
		if unit == "" {
			unit = UnitNone
		}
		root[m.Name] = m.Value
		defs = append(defs, def{Name: m.Name, Unit: unit})
	}
	root["_aws"] = map[string]any{
		"Timestamp": r.Time.UnixMilli(),
		"CloudWatchMetrics": []any{map[string]any{
			"Namespace":  r.Namespace,
			"Dimensions": [][]string{dims},
			"Metrics":    defs,
		}},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line with '\n'
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func checkName(what, s string) error {
	if s == "" || len(s) > maxName {
		return fmt.Errorf("metrics: %s name %q must have 1 to %d characters", what, s, maxName)
	}
	return nil
}

// Emitter writes records, one whole line per Write, safe for concurrent use.
type Emitter struct {
	mu  sync.Mutex
	w   io.Writer
	env string
	now func() time.Time
}

// NewEmitter writes to w with the dimension Environment=env.
func NewEmitter(w io.Writer, env string) *Emitter {
	if env == "" {
		env = "local"
	}
	return &Emitter{w: w, env: env, now: time.Now}
}

// Put writes one record of ms with Environment and dims as its dimensions.
// A record the encoder refuses is a programming error: it is reported on
// stderr and dropped, never failing the business operation.
func (e *Emitter) Put(dims []Dimension, ms ...Metric) {
	if e == nil || e.w == io.Discard {
		return
	}
	all := append([]Dimension{{Name: "Environment", Value: e.env}}, dims...)
	line, err := Encode(Record{Time: e.now(), Namespace: Namespace, Dimensions: all, Metrics: ms})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(line)
}

var (
	stdOnce sync.Once
	stdMu   sync.RWMutex
	std     *Emitter
)

func emitter() *Emitter {
	stdOnce.Do(func() {
		stdMu.Lock()
		defer stdMu.Unlock()
		if std != nil {
			return // SetOutput came first
		}
		std = NewEmitter(defaultOutput(os.Getenv), os.Getenv("ENVIRONMENT"))
	})
	stdMu.RLock()
	defer stdMu.RUnlock()
	return std
}

// defaultOutput is stdout inside Lambda or when PAYGATE_EMF=stdout, else
// nowhere.
func defaultOutput(getenv func(string) string) io.Writer {
	if getenv("AWS_LAMBDA_FUNCTION_NAME") != "" || getenv("PAYGATE_EMF") == "stdout" {
		return os.Stdout
	}
	return io.Discard
}

// Count adds one to the metric name.
func Count(name string) { emitter().Put(nil, Metric{Name: name, Unit: UnitCount, Value: 1}) }

// BalanceDebit records a committed balance debit of amount minor units of
// currency: one BalanceDebits, and the amount per Currency.
func BalanceDebit(currency string, amount int64) {
	e := emitter()
	e.Put(nil, Metric{Name: BalanceDebits, Unit: UnitCount, Value: 1})
	e.Put([]Dimension{{Name: "Currency", Value: currency}}, Metric{Name: BalanceDebitedMinor, Unit: UnitNone, Value: float64(amount)})
}

// PaymentResult counts a committed card payment answer by its resultCode
// (the Adyen codes checkout answers with): Authorised and Refused are
// counted; the others (a 3-D Secure step, Error, Cancelled) are not outcomes
// these metrics track.
func PaymentResult(resultCode string) {
	switch resultCode {
	case "Authorised":
		Count(PaymentsAuthorised)
	case "Refused":
		Count(PaymentsRefused)
	}
}

// WebhookAttempt records one recorded delivery attempt: always an attempt,
// and 0 or 1 failed attempt and failed (given up) delivery, so the failure
// rate is their ratio in one record.
func WebhookAttempt(failed, gaveUp bool) {
	emitter().Put(nil,
		Metric{Name: WebhookAttempts, Unit: UnitCount, Value: 1},
		Metric{Name: WebhookAttemptsFailed, Unit: UnitCount, Value: b2f(failed)},
		Metric{Name: WebhookDeliveriesFailed, Unit: UnitCount, Value: b2f(gaveUp)})
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
