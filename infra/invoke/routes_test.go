package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/infra/runtimeapi"
)

// The route keys send a function more than its declared routes: the catch-all
// gets every path no group declares ($default), and a group gets any path and
// method below its prefix. Through the real binaries, those answer the
// documented error body: 404 route_not_found, or 405 with Allow.
func TestUndeclaredRequestsGetTheDocumentedErrors(t *testing.T) {
	root, err := runtimeapi.ModuleRoot(".")
	require.NoError(t, err)
	fns, err := functions(filepath.Join(root, "template.yaml"))
	require.NoError(t, err)
	byID := map[string]function{}
	for _, f := range fns {
		byID[f.LogicalID] = f
	}
	cases := []struct {
		fn, sample, routeKey, method, path string
		status                             int
		code                               string
	}{
		{"HealthFunction", "health-get.json", "$default", "GET", "/v3/nothing/here", 404, "route_not_found"},
		{"HealthFunction", "health-get.json", "ANY /health", "DELETE", "/health", 405, ""},
		{"GateOrdersFunction", "gate-orders-list.json", "ANY /orders/{proxy+}", "GET", "/orders/x/unknown", 404, "route_not_found"},
		{"GateOrdersFunction", "gate-orders-list.json", "ANY /orders", "DELETE", "/orders", 405, ""},
	}
	// One warm instance per function, owned by the outer test.
	instances := map[string]*instance{}
	for _, c := range cases {
		if instances[c.fn] == nil {
			instances[c.fn] = newInstance(t, root, byID[c.fn])
		}
	}
	for _, c := range cases {
		t.Run(c.fn+" "+c.method+" "+c.path, func(t *testing.T) {
			require.Contains(t, byID[c.fn].Routes, c.routeKey)
			in := instances[c.fn]
			raw, err := os.ReadFile(filepath.Join(root, "events", c.sample))
			require.NoError(t, err)
			var ev events.APIGatewayV2HTTPRequest
			require.NoError(t, json.Unmarshal(raw, &ev))
			ev.RouteKey, ev.RequestContext.RouteKey = c.routeKey, c.routeKey
			ev.RawPath, ev.RequestContext.HTTP.Path, ev.RequestContext.HTTP.Method = c.path, c.path, c.method
			ev.RawQueryString, ev.PathParameters = "", nil
			event, err := json.Marshal(ev)
			require.NoError(t, err)
			assert.True(t, routeMatches(c.routeKey, c.method, c.path))

			out, err := in.invoke(event)
			require.NoError(t, err)
			var resp events.APIGatewayV2HTTPResponse
			require.NoError(t, json.Unmarshal(out, &resp))
			require.Equal(t, c.status, resp.StatusCode, "body: %s", resp.Body)
			var body struct {
				Error struct {
					Type      string `json:"type"`
					Code      string `json:"code"`
					Message   string `json:"message"`
					RequestID string `json:"request_id"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(resp.Body), &body), "body: %s", resp.Body)
			assert.NotEmpty(t, body.Error.Message, "body: %s", resp.Body)
			assert.NotEmpty(t, body.Error.RequestID, "body: %s", resp.Body)
			if c.code != "" {
				assert.Equal(t, c.code, body.Error.Code)
			} else {
				assert.NotEmpty(t, header(resp, "Allow"))
			}
		})
	}
}
