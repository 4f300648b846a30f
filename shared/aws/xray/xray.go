// Package xray adds an X-Ray subsegment for every AWS SDK call (DynamoDB,
// SQS) to the trace of the Lambda invocation making it, through
// aws-sdk-go-v2 middleware: which table call or queue call a slow request
// spent its time in, with its status, retries and request id.
//
// With Tracing: Active, Lambda starts each invocation's trace and records
// the function's own segment; what it cannot see is the calls inside. This
// middleware sends one subsegment document per SDK call (all retries
// included) to the X-Ray daemon Lambda runs beside the function
// (AWS_XRAY_DAEMON_ADDRESS, UDP), parented on the invocation's segment
// (the trace header of the invocation: the context value aws-lambda-go
// sets, else _X_AMZN_TRACE_ID). Nothing is sent for an unsampled
// invocation, nor outside Lambda (no daemon address).
//
// Why not a library: the AWS X-Ray SDK for Go (its awsv2 instrumentor is
// the same middleware) takes a function binary from 6.7 to 18.9 MB and is in
// maintenance mode; OpenTelemetry (otelaws with the SDK and an OTLP
// exporter) takes it to 15.0 MB and needs a collector extension (the ADOT
// layer) in every function to reach X-Ray, which adds to each cold start
// and its memory. What is needed here, a timed subsegment per call sent as
// one UDP datagram, is this file. Its wire format is the X-Ray segment
// document (https://docs.aws.amazon.com/xray/latest/devguide/xray-api-segmentdocuments.html)
// behind the daemon's header line.
package xray

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// DaemonHeader starts every datagram sent to the daemon.
const DaemonHeader = `{"format": "json", "version": 1}` + "\n"

// Tracer sends the subsegments. A nil *Tracer traces nothing.
type Tracer struct {
	addr string
	now  func() time.Time

	once sync.Once
	conn net.Conn // nil when the daemon address cannot be dialled
}

// FromEnv returns a tracer when Lambda runs an X-Ray daemon for the function
// (AWS_XRAY_DAEMON_ADDRESS, "host:port" or "tcp:host:port udp:host:port"),
// else nil.
func FromEnv(getenv func(string) string) *Tracer {
	addr := getenv("AWS_XRAY_DAEMON_ADDRESS")
	for _, part := range strings.Fields(addr) {
		if a, ok := strings.CutPrefix(part, "udp:"); ok {
			addr = a
		}
	}
	if addr == "" || strings.Contains(addr, " ") {
		return nil
	}
	return New(addr)
}

// New returns a tracer sending to the daemon at addr (host:port, UDP).
func New(addr string) *Tracer { return &Tracer{addr: addr, now: time.Now} }

// Register traces every client built from cfg afterwards.
func (t *Tracer) Register(cfg *aws.Config) {
	if t != nil {
		cfg.APIOptions = append(cfg.APIOptions, t.AddMiddleware)
	}
}

// AddMiddleware adds the tracing middleware to one client's stack (for
// Options.APIOptions).
func (t *Tracer) AddMiddleware(stack *middleware.Stack) error {
	// Initialize runs once per call, around the retry loop, with the
	// service and operation already in the context.
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("paygateXRay", t.handle), middleware.After)
}

// Header is an invocation's trace header (Root=...;Parent=...;Sampled=...).
type Header struct {
	Root, Parent string
	Sampled      bool
}

// ParseHeader reads a trace header; ok is false when it lacks Root or
// Parent.
func ParseHeader(s string) (h Header, ok bool) {
	for _, kv := range strings.Split(s, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		switch k {
		case "Root":
			h.Root = v
		case "Parent":
			h.Parent = v
		case "Sampled":
			h.Sampled = v == "1"
		}
	}
	return h, h.Root != "" && h.Parent != ""
}

// traceHeader is the header of the invocation ctx belongs to.
func traceHeader(ctx context.Context) string {
	// aws-lambda-go stores it under this string key (and in the env var).
	if s, ok := ctx.Value("x-amzn-trace-id").(string); ok && s != "" {
		return s
	}
	return os.Getenv("_X_AMZN_TRACE_ID")
}

// Subsegment is the document sent per call (the fields X-Ray reads).
type Subsegment struct {
	Name      string  `json:"name"`
	ID        string  `json:"id"`
	TraceID   string  `json:"trace_id"`
	ParentID  string  `json:"parent_id"`
	StartTime float64 `json:"start_time"`
	EndTime   float64 `json:"end_time"`
	Type      string  `json:"type"`
	Namespace string  `json:"namespace"`
	AWS       struct {
		Operation string `json:"operation"`
		Region    string `json:"region,omitempty"`
		RequestID string `json:"request_id,omitempty"`
		Retries   int    `json:"retries"`
	} `json:"aws"`
	HTTP struct {
		Response struct {
			Status int `json:"status,omitempty"`
		} `json:"response"`
	} `json:"http"`
	Error    bool `json:"error,omitempty"`    // a 4xx answer
	Throttle bool `json:"throttle,omitempty"` // a 429 answer
	Fault    bool `json:"fault,omitempty"`    // a 5xx answer or no answer
}

func (t *Tracer) handle(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	h, ok := ParseHeader(traceHeader(ctx))
	if !ok || !h.Sampled {
		return next.HandleInitialize(ctx, in)
	}
	start := t.now()
	out, md, err := next.HandleInitialize(ctx, in)
	s := Subsegment{Name: awsmiddleware.GetServiceID(ctx), ID: newID(), TraceID: h.Root, ParentID: h.Parent,
		StartTime: seconds(start), EndTime: seconds(t.now()), Type: "subsegment", Namespace: "aws"}
	s.AWS.Operation = awsmiddleware.GetOperationName(ctx)
	s.AWS.Region = awsmiddleware.GetRegion(ctx)
	s.AWS.RequestID, _ = awsmiddleware.GetRequestIDMetadata(md)
	if res, ok := retry.GetAttemptResults(md); ok && len(res.Results) > 1 {
		s.AWS.Retries = len(res.Results) - 1
	}
	if raw, ok := awsmiddleware.GetRawResponse(md).(*smithyhttp.Response); ok {
		s.HTTP.Response.Status = raw.StatusCode
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		s.HTTP.Response.Status = re.HTTPStatusCode()
	}
	switch st := s.HTTP.Response.Status; {
	case err != nil && st == 0, st >= 500:
		s.Fault = true
	case st == 429:
		s.Error, s.Throttle = true, true
	case st >= 400 || err != nil:
		s.Error = true
	}
	t.send(s)
	return out, md, err
}

// send writes the document as one datagram; a failure loses only the
// subsegment, never the call.
func (t *Tracer) send(s Subsegment) {
	t.once.Do(func() {
		if c, err := net.Dial("udp", t.addr); err == nil {
			t.conn = c
		}
	})
	if t.conn == nil {
		return
	}
	doc, err := json.Marshal(s)
	if err != nil {
		return
	}
	_, _ = t.conn.Write(append([]byte(DaemonHeader), doc...))
}

func seconds(t time.Time) float64 { return float64(t.UnixMicro()) / 1e6 }

// newID is a subsegment id: 64 random bits in hex.
func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
