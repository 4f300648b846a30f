package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/infra/runtimeapi"
)

// TestEveryEventFile runs every file of events/ through the real bootstrap
// binary of its function, under the fake Runtime API, on an embedded store
// in a temporary directory, and checks the answer against
// events/expectations.json. Each function is built once and one instance
// serves all its events, as a warm Lambda would.
func TestEveryEventFile(t *testing.T) {
	root, err := runtimeapi.ModuleRoot(".")
	require.NoError(t, err)
	eventsDir := filepath.Join(root, "events")
	exps, err := sample.Expectations(eventsDir)
	require.NoError(t, err)
	fns, err := functions(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	byID := map[string]function{}
	for _, f := range fns {
		byID[f.LogicalID] = f
	}
	files := map[string][]string{} // function -> event files
	for file, e := range exps {
		if _, ok := byID[e.Function]; !ok {
			t.Errorf("%s expects function %s, which template.yaml does not define", file, e.Function)
			continue
		}
		files[e.Function] = append(files[e.Function], file)
	}
	ids := make([]string, 0, len(files))
	for id := range files {
		ids = append(ids, id)
		sort.Strings(files[id])
	}
	sort.Strings(ids)
	for _, id := range ids {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			inst := newInstance(t, root, byID[id])
			for _, file := range files[id] {
				t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
					event, err := os.ReadFile(filepath.Join(eventsDir, file))
					require.NoError(t, err)
					checkEvent(t, inst, event, exps[file])
				})
			}
		})
	}
}

// instance is one function's running bootstrap; it restarts after a crash so
// one bad event does not fail the next ones.
type instance struct {
	t   *testing.T
	fn  function
	cfg runtimeapi.Config
	f   *runtimeapi.Function
}

func newInstance(t *testing.T, root string, fn function) *instance {
	bin := filepath.Join(t.TempDir(), "bootstrap")
	require.NoError(t, runtimeapi.Build(context.Background(), root, "./"+fn.CodeURI, bin, runtimeapi.BuildOptions{}))
	env, err := functionEnv(fn, options{store: "embedded", dataDir: t.TempDir()})
	require.NoError(t, err)
	require.NoError(t, seed(context.Background(), env))
	in := &instance{t: t, fn: fn, cfg: runtimeapi.Config{Binary: bin, Name: fn.LogicalID, Timeout: fn.Timeout, MemoryMB: fn.MemoryMB, Env: env}}
	t.Cleanup(func() {
		if in.f != nil {
			in.f.Close()
		}
	})
	return in
}

func (in *instance) invoke(event []byte) ([]byte, error) {
	if in.f == nil {
		f, err := runtimeapi.Start(in.cfg)
		require.NoError(in.t, err)
		in.f = f
	}
	out, err := in.f.Invoke(context.Background(), event)
	var fe *runtimeapi.FunctionError
	if err != nil && !errors.As(err, &fe) {
		in.f.Close()
		in.f = nil
	}
	return out, err
}

func checkEvent(t *testing.T, in *instance, event []byte, exp sample.Expectation) {
	var shape struct {
		Records []json.RawMessage `json:"Records"`
	}
	require.NoError(t, json.Unmarshal(event, &shape), "the event file is not JSON")
	if shape.Records != nil {
		out, err := in.invoke(event)
		require.NoError(t, err)
		var resp events.SQSEventResponse
		require.NoError(t, json.Unmarshal(out, &resp), "answer: %s", out)
		assert.Len(t, resp.BatchItemFailures, exp.BatchItemFailures, "answer: %s", out)
		return
	}
	if bytes.Contains(event, []byte(`"detail-type"`)) {
		checkScheduledEvent(t, in, event, exp)
		return
	}
	routeKey := checkHTTPEvent(t, event)
	assert.Contains(t, in.fn.Routes, routeKey, "the event's route is not one of %s's routes in template.yaml", in.fn.LogicalID)
	out, err := in.invoke(event)
	require.NoError(t, err)
	var resp events.APIGatewayV2HTTPResponse
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&resp), "not an API Gateway v2 response: %s", out)
	assert.Equal(t, exp.Status, resp.StatusCode, "body: %s", resp.Body)
	assert.NotEmpty(t, header(resp, "Request-Id"), "every answer carries Request-Id; headers: %v", resp.Headers)
	assert.Equal(t, "max-age=31536000; includeSubDomains", header(resp, "Strict-Transport-Security"),
		"every answer served through API Gateway carries HSTS; headers: %v", resp.Headers)
	if strings.HasPrefix(header(resp, "Content-Type"), "application/json") && !resp.IsBase64Encoded {
		assert.True(t, json.Valid([]byte(resp.Body)), "body is not JSON: %s", resp.Body)
	}
}

// checkHTTPEvent holds an event file to the HTTP API payload 2.0 format, so
// `sam local invoke -e` and API Gateway would send the same thing.
func checkHTTPEvent(t *testing.T, event []byte) string {
	var ev events.APIGatewayV2HTTPRequest
	dec := json.NewDecoder(bytes.NewReader(event))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&ev), "not an API Gateway v2 HTTP event")
	assert.Equal(t, "2.0", ev.Version)
	http := ev.RequestContext.HTTP
	assert.NotEmpty(t, http.Method)
	assert.Equal(t, http.Path, ev.RawPath)
	assert.Equal(t, ev.RouteKey, ev.RequestContext.RouteKey)
	assert.True(t, routeMatches(ev.RouteKey, http.Method, http.Path), "routeKey %q does not match %s %s", ev.RouteKey, http.Method, http.Path)
	assert.Equal(t, "$default", ev.RequestContext.Stage)
	assert.NotEmpty(t, ev.RequestContext.RequestID)
	assert.NotEmpty(t, http.SourceIP)
	for k := range ev.Headers {
		assert.Equal(t, strings.ToLower(k), k, "HTTP API sends header names in lower case")
	}
	return ev.RouteKey
}

func header(resp events.APIGatewayV2HTTPResponse, name string) string {
	for k, v := range resp.Headers {
		if strings.EqualFold(k, name) {
			return v
		}
	}
	for k, v := range resp.MultiValueHeaders {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

// routeMatches reports whether an HTTP API route key ("GET /v1/x/{id}",
// "ANY /{proxy+}", "$default") matches a request.
func routeMatches(routeKey, method, path string) bool {
	if routeKey == "$default" {
		return true
	}
	m, p, ok := strings.Cut(routeKey, " ")
	if !ok || (m != "ANY" && m != method) {
		return false
	}
	want, got := strings.Split(p, "/"), strings.Split(path, "/")
	for i, seg := range want {
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "+}") {
			return i < len(got) && got[i] != ""
		}
		if i >= len(got) {
			return false
		}
		if strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") {
			if got[i] == "" {
				return false
			}
			continue
		}
		if seg != got[i] {
			return false
		}
	}
	return len(want) == len(got)
}

func TestRouteMatches(t *testing.T) {
	for _, c := range []struct {
		key, method, path string
		want              bool
	}{
		{"GET /health", "GET", "/health", true},
		{"GET /health", "POST", "/health", false},
		{"GET /v1/orders/{id}", "GET", "/v1/orders/42", true},
		{"GET /v1/orders/{id}", "GET", "/v1/orders/", false},
		{"GET /v1/orders/{id}", "GET", "/v1/orders/42/x", false},
		{"ANY /{proxy+}", "PUT", "/a/b", true},
		{"$default", "GET", "/anything", true},
	} {
		assert.Equal(t, c.want, routeMatches(c.key, c.method, c.path), "%s vs %s %s", c.key, c.method, c.path)
	}
}

// checkScheduledEvent holds an EventBridge event file to its shape and checks
// that the scheduled function's invocation succeeds (or fails) as expected.
func checkScheduledEvent(t *testing.T, in *instance, event []byte, exp sample.Expectation) {
	var ev events.EventBridgeEvent
	dec := json.NewDecoder(bytes.NewReader(event))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&ev), "not an EventBridge event")
	assert.Equal(t, "aws.events", ev.Source)
	assert.Equal(t, "Scheduled Event", ev.DetailType)
	out, err := in.invoke(event)
	if exp.FunctionError {
		var fe *runtimeapi.FunctionError
		require.ErrorAs(t, err, &fe, "answer: %s", out)
		return
	}
	require.NoError(t, err)
}
