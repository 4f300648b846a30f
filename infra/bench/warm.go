package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/paygate/paygate/shared/console/merchants"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// warmFixture is a warm MerchantsFunction in this process: the handler
// lambda.Start would call, over the embedded store, with the sample account.
type warmFixture struct {
	adapter *httpadapter.HandlerAdapterV2
	req     events.APIGatewayV2HTTPRequest
	close   func()
}

func newWarmFixture(ctx context.Context, root string) (*warmFixture, error) {
	dir, err := os.MkdirTemp("", "paygate-bench-warm-")
	if err != nil {
		return nil, err
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	cleanup := func() { st.Close(); os.RemoveAll(dir) }
	d := app.WithStore(st, nil, nil, nil)
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		cleanup()
		return nil, err
	}
	g, err := merchants.BuildMerchants(d)
	if err != nil {
		cleanup()
		return nil, err
	}
	// The request is the sample event the invoker test also sends.
	raw, err := os.ReadFile(filepath.Join(root, "events", "merchants-me.json"))
	if err != nil {
		cleanup()
		return nil, err
	}
	f := &warmFixture{adapter: httpadapter.NewV2(d.Server(g)), close: cleanup}
	if err := json.Unmarshal(raw, &f.req); err != nil {
		cleanup()
		return nil, err
	}
	return f, nil
}

// serve is one warm invocation; it fails unless the answer is a 200.
func (f *warmFixture) serve(ctx context.Context) error {
	resp, err := f.adapter.ProxyWithContext(ctx, f.req)
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET /v1/merchants/me answered %d: %s", resp.StatusCode, resp.Body)
	}
	return nil
}

// benchMerchantDetailsWarm is BenchmarkMerchantDetailsWarm's body, shared
// with the runner (testing.Benchmark).
func benchMerchantDetailsWarm(b *testing.B, root string) {
	ctx := context.Background()
	f, err := newWarmFixture(ctx, root)
	if err != nil {
		b.Fatal(err)
	}
	defer f.close()
	b.ReportAllocs()
	for b.Loop() {
		if err := f.serve(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// benchAdapterFloor is the warm GET's floor: the same event through the same
// API Gateway v2 adapter (aws-lambda-go-api-proxy, which the design card
// names) to a handler that only writes a fixed JSON body. What the warm
// GET costs above it is the service's; this much is the adapter's.
func benchAdapterFloor(b *testing.B, root string) {
	raw, err := os.ReadFile(filepath.Join(root, "events", "merchants-me.json"))
	if err != nil {
		b.Fatal(err)
	}
	var req events.APIGatewayV2HTTPRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"id":"acct_1"}`)
	adapter := httpadapter.NewV2(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		resp, err := adapter.ProxyWithContext(ctx, req)
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("the adapter answered %d: %v", resp.StatusCode, err)
		}
	}
}
