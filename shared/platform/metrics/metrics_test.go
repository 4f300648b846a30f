package metrics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// checkEMF holds one line to the EMF specification's required fields and
// rules, and returns its root object:
//   - the line is one JSON object (one log event);
//   - _aws is an object with Timestamp (a number, milliseconds since the
//     epoch) and CloudWatchMetrics, an array of MetricDirective objects;
//   - a MetricDirective has Namespace (a string), Dimensions (an array of
//     DimensionSets, each an array of at most 30 dimension names, strings)
//     and Metrics (an array of at most 100 MetricDefinition objects, each
//     with Name, a string, and an optional Unit from CloudWatch's units);
//   - every dimension name is a member of the root whose value is a string,
//     and every metric name a member of the root whose value is a number (or
//     an array of numbers).
func checkEMF(t *testing.T, line []byte) map[string]any {
	t.Helper()
	if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' {
		t.Fatalf("not exactly one line: %q", line)
	}
	var root map[string]any
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if err := dec.Decode(&root); err != nil {
		t.Fatalf("not a JSON object: %v: %s", err, line)
	}
	aws, ok := root["_aws"].(map[string]any)
	if !ok {
		t.Fatalf("_aws is not an object: %s", line)
	}
	ts, ok := aws["Timestamp"].(json.Number)
	if _, err := ts.Int64(); !ok || err != nil {
		t.Errorf("_aws.Timestamp %v is not an integer number of milliseconds", aws["Timestamp"])
	}
	directives, ok := aws["CloudWatchMetrics"].([]any)
	if !ok || len(directives) == 0 {
		t.Fatalf("_aws.CloudWatchMetrics is not a non-empty array: %s", line)
	}
	units := []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes",
		"Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second", "Kilobytes/Second",
		"Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second", "Megabits/Second",
		"Gigabits/Second", "Terabits/Second", "Count/Second", "None"}
	for _, d := range directives {
		dir, ok := d.(map[string]any)
		if !ok {
			t.Fatalf("a MetricDirective is not an object: %s", line)
		}
		if ns, ok := dir["Namespace"].(string); !ok || ns == "" {
			t.Errorf("Namespace %v is not a non-empty string", dir["Namespace"])
		}
		sets, ok := dir["Dimensions"].([]any)
		if !ok {
			t.Fatalf("Dimensions is not an array: %s", line)
		}
		for _, s := range sets {
			set, ok := s.([]any)
			if !ok || len(set) > 30 {
				t.Fatalf("a DimensionSet is not an array of at most 30 names: %v", s)
			}
			for _, n := range set {
				name, ok := n.(string)
				if !ok {
					t.Fatalf("dimension name %v is not a string", n)
				}
				if _, ok := root[name].(string); !ok {
					t.Errorf("dimension %q has no string value at the root", name)
				}
			}
		}
		defs, ok := dir["Metrics"].([]any)
		if !ok || len(defs) == 0 || len(defs) > 100 {
			t.Fatalf("Metrics is not an array of 1 to 100 definitions: %s", line)
		}
		for _, m := range defs {
			def, ok := m.(map[string]any)
			name, named := def["Name"].(string)
			if !ok || !named || name == "" {
				t.Fatalf("a MetricDefinition has no Name: %v", m)
			}
			if u, has := def["Unit"]; has && !slices.Contains(units, u.(string)) {
				t.Errorf("%s: Unit %v is not a CloudWatch unit", name, u)
			}
			switch v := root[name].(type) {
			case json.Number:
			case []any:
				for _, e := range v {
					if _, ok := e.(json.Number); !ok {
						t.Errorf("%s: value %v is not a number", name, e)
					}
				}
			default:
				t.Errorf("metric %q has no numeric value at the root (%v)", name, root[name])
			}
		}
	}
	return root
}

func TestEncodeFollowsTheEMFSpecification(t *testing.T) {
	at := time.Date(2026, 11, 23, 20, 0, 0, 123e6, time.UTC)
	line, err := Encode(Record{
		Time: at, Namespace: Namespace,
		Dimensions: []Dimension{{"Environment", "prod"}, {"Currency", "USD"}},
		Metrics:    []Metric{{Name: "OrdersPlaced", Unit: UnitCount, Value: 1}, {Name: "Amount", Value: 2050}},
	})
	if err != nil {
		t.Fatal(err)
	}
	root := checkEMF(t, line)
	aws := root["_aws"].(map[string]any)
	if ts, _ := aws["Timestamp"].(json.Number).Int64(); ts != at.UnixMilli() {
		t.Errorf("Timestamp %d, want %d", ts, at.UnixMilli())
	}
	dir := aws["CloudWatchMetrics"].([]any)[0].(map[string]any)
	if dir["Namespace"] != "paygate" {
		t.Errorf("Namespace %v", dir["Namespace"])
	}
	if got, _ := json.Marshal(dir["Dimensions"]); string(got) != `[["Environment","Currency"]]` {
		t.Errorf("Dimensions %s, want one set in the given order", got)
	}
	if got, _ := json.Marshal(dir["Metrics"]); string(got) != `[{"Name":"OrdersPlaced","Unit":"Count"},{"Name":"Amount","Unit":"None"}]` {
		t.Errorf("Metrics %s", got)
	}
	if root["Environment"] != "prod" || root["Currency"] != "USD" || root["OrdersPlaced"] != json.Number("1") || root["Amount"] != json.Number("2050") {
		t.Errorf("root values %v", root)
	}
}

// What CloudWatch would reject or silently drop is refused.
func TestEncodeRefusesWhatCloudWatchWouldNot(t *testing.T) {
	ok := Record{Namespace: "ns", Metrics: []Metric{{Name: "m", Value: 1}}}
	many := func(n int) []Metric {
		var ms []Metric
		for i := range n {
			ms = append(ms, Metric{Name: "m" + strings.Repeat("x", i), Value: 1})
		}
		return ms
	}
	var dims []Dimension
	for i := range 31 {
		dims = append(dims, Dimension{Name: "d" + strings.Repeat("x", i), Value: "v"})
	}
	cases := map[string]func(r *Record){
		"no namespace":             func(r *Record) { r.Namespace = "" },
		"namespace over 255":       func(r *Record) { r.Namespace = strings.Repeat("n", 256) },
		"no metrics":               func(r *Record) { r.Metrics = nil },
		"101 metrics":              func(r *Record) { r.Metrics = many(101) },
		"metric without a name":    func(r *Record) { r.Metrics = []Metric{{Value: 1}} },
		"NaN":                      func(r *Record) { r.Metrics = []Metric{{Name: "m", Value: math.NaN()}} },
		"infinity":                 func(r *Record) { r.Metrics = []Metric{{Name: "m", Value: math.Inf(1)}} },
		"metric twice":             func(r *Record) { r.Metrics = append(r.Metrics, Metric{Name: "m", Value: 2}) },
		"metric named like a dim":  func(r *Record) { r.Dimensions = []Dimension{{"m", "v"}} },
		"dimension without value":  func(r *Record) { r.Dimensions = []Dimension{{"d", ""}} },
		"dimension without a name": func(r *Record) { r.Dimensions = []Dimension{{"", "v"}} },
		"31 dimensions":            func(r *Record) { r.Dimensions = dims },
		"a member named _aws":      func(r *Record) { r.Metrics = []Metric{{Name: "_aws", Value: 1}} },
	}
	if _, err := Encode(ok); err != nil {
		t.Fatalf("the base record: %v", err)
	}
	for name, change := range cases {
		r := ok
		r.Metrics = slices.Clone(ok.Metrics)
		change(&r)
		if line, err := Encode(r); err == nil {
			t.Errorf("%s: encoded %s", name, line)
		}
	}
}

// The helpers the services call write valid records with the Environment
// dimension and the values they promise.
func TestServiceHelpers(t *testing.T) {
	var buf bytes.Buffer
	restore := SetOutput(&buf, "staging")
	defer restore()
	Count(OrdersPlaced)
	Count(OrdersFailed)
	BalanceDebit("EUR", 1999)
	PaymentResult("Authorised")
	PaymentResult("Refused")
	PaymentResult("RedirectShopper") // not an outcome: nothing written
	WebhookAttempt(true, false)
	WebhookAttempt(true, true)
	want := []map[string]string{
		{OrdersPlaced: "1"}, {OrdersFailed: "1"}, {BalanceDebits: "1"}, {BalanceDebitedMinor: "1999", "Currency": "EUR"},
		{PaymentsAuthorised: "1"}, {PaymentsRefused: "1"},
		{WebhookAttempts: "1", WebhookAttemptsFailed: "1", WebhookDeliveriesFailed: "0"},
		{WebhookAttempts: "1", WebhookAttemptsFailed: "1", WebhookDeliveriesFailed: "1"},
	}
	sc := bufio.NewScanner(&buf)
	i := 0
	for ; sc.Scan(); i++ {
		root := checkEMF(t, append(sc.Bytes(), '\n'))
		if i >= len(want) {
			continue
		}
		if root["Environment"] != "staging" {
			t.Errorf("line %d: Environment %v", i, root["Environment"])
		}
		for k, v := range want[i] {
			if got := root[k]; got != json.Number(v) && got != v {
				t.Errorf("line %d: %s = %v, want %s", i, k, got, v)
			}
		}
	}
	if i != len(want) {
		t.Errorf("%d lines, want %d", i, len(want))
	}
}

// Records written at once from many goroutines come out as whole lines.
func TestConcurrentRecordsAreWholeLines(t *testing.T) {
	var buf bytes.Buffer
	restore := SetOutput(&buf, "dev")
	defer restore()
	const workers, each = 32, 50
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				Count(OrdersPlaced)
				BalanceDebit("USD", 5)
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != workers*each*3 {
		t.Fatalf("%d lines, want %d", len(lines), workers*each*3)
	}
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["_aws"] == nil {
			t.Fatalf("a torn line: %q", l)
		}
	}
}

// Outside Lambda, and without PAYGATE_EMF, nothing is written anywhere;
// inside Lambda the lines go to stdout, which Lambda sends to CloudWatch Logs.
func TestOutputIsStdoutOnlyInLambda(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	if w := defaultOutput(env()); w != io.Discard {
		t.Errorf("no Lambda: output %v, want io.Discard", w)
	}
	if w := defaultOutput(env("AWS_LAMBDA_FUNCTION_NAME", "paygate-dev-gate-orders")); w != os.Stdout {
		t.Errorf("in Lambda: output %v, want stdout", w)
	}
	if w := defaultOutput(env("PAYGATE_EMF", "stdout")); w != os.Stdout {
		t.Errorf("PAYGATE_EMF=stdout: output %v, want stdout", w)
	}
	if e := NewEmitter(io.Discard, ""); e.env != "local" {
		t.Errorf("no ENVIRONMENT: %q, want local", e.env)
	}
}
