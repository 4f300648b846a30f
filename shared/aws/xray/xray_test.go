package xray_test

import (
	"context"
	"encoding/json"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/aws/sqsqueue/sqstest"
	"github.com/paygate/paygate/shared/aws/xray"
)

// The tracer runs on real SDK clients against DynamoDB Local and moto's
// SQS; a UDP socket stands in for the X-Ray daemon and receives what Lambda's
// daemon would.

const (
	root   = "1-6742f0a1-0123456789abcdef01234567"
	parent = "53995c3f42cd8ad8"
)

type daemon struct {
	conn *net.UDPConn
}

func newDaemon(t *testing.T) (*daemon, *xray.Tracer) {
	t.Helper()
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadBuffer(1 << 20)
	t.Cleanup(func() { c.Close() })
	return &daemon{conn: c}, xray.FromEnv(func(k string) string {
		if k == "AWS_XRAY_DAEMON_ADDRESS" {
			return "tcp:" + c.LocalAddr().String() + " udp:" + c.LocalAddr().String()
		}
		return ""
	})
}

// next reads one datagram: the daemon header line, then the document.
func (d *daemon) next(t *testing.T, within time.Duration) (xray.Subsegment, bool) {
	t.Helper()
	buf := make([]byte, 64<<10)
	d.conn.SetReadDeadline(time.Now().Add(within))
	n, err := d.conn.Read(buf)
	if err != nil {
		return xray.Subsegment{}, false
	}
	msg := string(buf[:n])
	doc, ok := strings.CutPrefix(msg, xray.DaemonHeader)
	if !ok {
		t.Errorf("datagram does not start with the daemon header: %q", msg)
		return xray.Subsegment{}, false
	}
	var s xray.Subsegment
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		t.Errorf("document %s: %v", doc, err)
		return xray.Subsegment{}, false
	}
	return s, true
}

func traced(sampled string) context.Context {
	h := "Root=" + root + ";Parent=" + parent + ";Sampled=" + sampled
	//lint:ignore SA1029 the key aws-lambda-go sets, a plain string
	return context.WithValue(context.Background(), "x-amzn-trace-id", h)
}

var hexID = regexp.MustCompile(`^[0-9a-f]{16}$`)

// checkDoc holds a subsegment to the fields X-Ray requires of an
// independently sent subsegment: name, 16-hex id, trace_id, parent_id,
// start_time <= end_time (epoch seconds), type "subsegment"; and the AWS
// call's namespace and operation.
func checkDoc(t *testing.T, s xray.Subsegment, name, op string, before time.Time) {
	t.Helper()
	if s.Name != name || s.AWS.Operation != op || s.Namespace != "aws" || s.Type != "subsegment" {
		t.Errorf("name %q operation %q namespace %q type %q, want %s %s aws subsegment", s.Name, s.AWS.Operation, s.Namespace, s.Type, name, op)
	}
	if !hexID.MatchString(s.ID) || s.TraceID != root || s.ParentID != parent {
		t.Errorf("id %q trace %q parent %q", s.ID, s.TraceID, s.ParentID)
	}
	if s.StartTime < float64(before.Unix()) || s.EndTime < s.StartTime || s.EndTime > float64(time.Now().Unix()+1) {
		t.Errorf("times %f..%f, call began at %d", s.StartTime, s.EndTime, before.Unix())
	}
	if s.AWS.Region != "us-east-1" {
		t.Errorf("region %q", s.AWS.Region)
	}
}

func TestDynamoDBCallsAreSubsegments(t *testing.T) {
	d, tr := newDaemon(t)
	client := dynamotest.Client(t, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, tr.AddMiddleware) })
	before := time.Now()
	if _, err := client.ListTables(traced("1"), &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	s, ok := d.next(t, 2*time.Second)
	if !ok {
		t.Fatal("no subsegment for a sampled ListTables")
	}
	checkDoc(t, s, "DynamoDB", "ListTables", before)
	if s.HTTP.Response.Status != 200 || s.Error || s.Fault || s.AWS.RequestID == "" {
		t.Errorf("a successful call: status %d error %v fault %v request id %q", s.HTTP.Response.Status, s.Error, s.Fault, s.AWS.RequestID)
	}

	// A 400 answer is an error (not a fault).
	_, err := client.DescribeTable(traced("1"), &dynamodb.DescribeTableInput{TableName: aws.String("paygate-no-such-table")})
	if err == nil {
		t.Fatal("DescribeTable of a missing table succeeded")
	}
	s, ok = d.next(t, 2*time.Second)
	if !ok {
		t.Fatal("no subsegment for the failed call")
	}
	checkDoc(t, s, "DynamoDB", "DescribeTable", before)
	if s.HTTP.Response.Status != 400 || !s.Error || s.Fault {
		t.Errorf("a 400: status %d error %v fault %v", s.HTTP.Response.Status, s.Error, s.Fault)
	}
}

// Unsampled invocations and calls outside any invocation send nothing; the
// env var Lambda sets is read when the context has no header.
func TestOnlySampledInvocationsAreTraced(t *testing.T) {
	d, tr := newDaemon(t)
	client := dynamotest.Client(t, func(o *dynamodb.Options) { o.APIOptions = append(o.APIOptions, tr.AddMiddleware) })
	t.Setenv("_X_AMZN_TRACE_ID", "")
	for _, ctx := range []context.Context{traced("0"), context.Background()} {
		if _, err := client.ListTables(ctx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
			t.Fatal(err)
		}
		if s, ok := d.next(t, 300*time.Millisecond); ok {
			t.Errorf("sent %+v for an unsampled call", s)
		}
	}
	t.Setenv("_X_AMZN_TRACE_ID", "Root="+root+";Parent="+parent+";Sampled=1")
	if _, err := client.ListTables(context.Background(), &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.next(t, 2*time.Second); !ok {
		t.Error("no subsegment with the trace header in _X_AMZN_TRACE_ID")
	}
}

func TestSQSCallsAreSubsegments(t *testing.T) {
	d, tr := newDaemon(t)
	base := sqstest.Client(t)
	client := sqs.New(base.Options(), func(o *sqs.Options) { o.APIOptions = append(o.APIOptions, tr.AddMiddleware) })
	before := time.Now()
	if _, err := client.ListQueues(traced("1"), &sqs.ListQueuesInput{MaxResults: aws.Int32(1)}); err != nil {
		t.Fatal(err)
	}
	s, ok := d.next(t, 2*time.Second)
	if !ok {
		t.Fatal("no subsegment for ListQueues")
	}
	checkDoc(t, s, "SQS", "ListQueues", before)
	if s.HTTP.Response.Status != 200 || s.Error || s.Fault {
		t.Errorf("status %d error %v fault %v", s.HTTP.Response.Status, s.Error, s.Fault)
	}
}

// No daemon address (not in Lambda, or tracing off): no tracer, and
// registering it changes nothing.
func TestNoDaemonNoTracer(t *testing.T) {
	tr := xray.FromEnv(func(string) string { return "" })
	if tr != nil {
		t.Fatalf("tracer %v without AWS_XRAY_DAEMON_ADDRESS", tr)
	}
	var cfg aws.Config
	tr.Register(&cfg)
	if len(cfg.APIOptions) != 0 {
		t.Error("a nil tracer added middleware")
	}
	if h, ok := xray.ParseHeader("Root=" + root + ";Parent=" + parent + ";Sampled=1"); !ok || !h.Sampled || h.Root != root || h.Parent != parent {
		t.Errorf("ParseHeader = %+v, %v", h, ok)
	}
	if _, ok := xray.ParseHeader("Root=" + root); ok {
		t.Error("a header without Parent parsed")
	}
}

// Calls from many goroutines each send one whole subsegment, with distinct
// ids.
func TestConcurrentCalls(t *testing.T) {
	d, tr := newDaemon(t)
	cfg, _ := dynamotest.Config(t)
	tr.Register(&cfg)
	client := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(dynamotest.Endpoint(t)) })
	const n = 40
	ids := make(chan string, n)
	var reading sync.WaitGroup
	reading.Add(1)
	go func() {
		defer reading.Done()
		for range n {
			s, ok := d.next(t, 10*time.Second)
			if !ok {
				return
			}
			ids <- s.ID
		}
	}()
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := client.ListTables(traced("1"), &dynamodb.ListTablesInput{Limit: aws.Int32(1)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	reading.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct subsegments for %d calls", len(seen), n)
	}
}
