package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks/signature"
)

// post sends a JSON body with the key and an Idempotency-Key.
func (g *gateway) post(t *testing.T, path, key string, body any) (int, map[string]any) {
	t.Helper()
	status, out, err := g.tryPost(path, key, body)
	require.NoError(t, err)
	return status, out
}

// tryPost is post for a gateway that may die before it answers.
func (g *gateway) tryPost(path, key string, body any) (int, map[string]any, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequest(http.MethodPost, "http://"+g.addr+path, bytes.NewReader(b))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", uuid.NewString())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	err = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, err
}

// The whole local pipeline, as `make run` wires it: an order's outcome is
// committed with its event, the change feed hands the record to the
// publisher, the embedded queue to the sender, and the receiver gets it
// signed with the endpoint's secret.
func TestOrderOutcomeReachesTheReceiver(t *testing.T) {
	const key = "sk_test_webhookse2e0123456789abcdefgh"
	g := start(t, t.TempDir(), map[string]string{"SANDBOX_API_KEY": key}, nil)
	orderOutcomeReachesTheReceiver(t, g, key)
}

// orderOutcomeReachesTheReceiver places an order on g and waits for its
// order.completed webhook, verified, and its recorded attempt.
func orderOutcomeReachesTheReceiver(t *testing.T, g *gateway, key string) {
	var mu sync.Mutex
	var got []*signature.Event
	var secret string
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		ev, err := signature.VerifyRequest(r, secret)
		if err != nil {
			b, _ := io.ReadAll(r.Body)
			t.Errorf("delivery does not verify: %v (%s)", err, b)
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		got = append(got, ev)
	}))
	defer rc.Close()

	status, ep := g.post(t, "/v1/webhook-endpoints", key, map[string]any{"url": rc.URL + "/hook", "enabled_events": []string{"order.completed", "order.failed"}})
	require.Equal(t, 201, status, "%v", ep)
	mu.Lock()
	secret = ep["secret"].(string)
	mu.Unlock()

	status, dep := g.post(t, "/test-helpers/deposits", key, map[string]any{"currency_code": "USD", "amount": "100.00"})
	require.Equal(t, 201, status, "%v", dep)
	status, order := g.post(t, "/orders", key, map[string]any{"product_id": 131})
	require.Equal(t, 201, status, "%v", order)
	id := order["id"].(string)
	// The fulfilment worker's sandbox supplier may complete it first (409).
	status, done := g.post(t, "/test-helpers/orders/"+id+"/complete", key, map[string]any{})
	require.Contains(t, []int{200, 409}, status, "%v", done)

	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got) >= 1
	}, 30*time.Second, 20*time.Millisecond, "no delivery")
	mu.Lock()
	ev := got[0]
	mu.Unlock()
	require.Equal(t, "order.completed", ev.Type)
	var env struct {
		ID   string `json:"id"`
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(ev.Body, &env))
	require.Equal(t, ev.ID, env.ID)
	require.Equal(t, id, env.Data.ID)

	// The sender records the attempt after the receiver answered it.
	var as []any
	require.Eventually(t, func() bool {
		status, list := g.get(t, "/v1/webhook-endpoints/"+ep["id"].(string)+"/deliveries", key)
		require.Equal(t, 200, status)
		as = list["data"].([]any)
		return len(as) > 0
	}, 30*time.Second, 20*time.Millisecond, "the attempt was never recorded")
	require.Len(t, as, 1)
	require.Equal(t, "succeeded", as[0].(map[string]any)["status"])
}
