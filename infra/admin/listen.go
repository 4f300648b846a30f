package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks/signature"
)

// webhooks listen works over the HTTP API (the running `make run`, or a
// deployed stack with a test key), not the store: it registers a temporary
// test endpoint pointing at a listener of its own, prints each delivery and
// forwards it, signature headers included, to --forward-to, like a local
// tunnel. The endpoint is deleted when it stops.
func init() {
	register(command{Name: "webhooks listen", Summary: "print each delivered event and forward it to --forward-to (over the API, with a test key)", Flags: webhooksListen})
}

func webhooksListen(fs *flag.FlagSet) action {
	api := fs.String("api", "http://127.0.0.1:8080", "the API's base URL (make run's by default)")
	key := fs.String("key", "", "a test-mode secret key, sk_test_... ($PAYGATE_KEY)")
	forward := fs.String("forward-to", "", "where to forward each delivery, e.g. http://localhost:3000/webhooks (empty: print only)")
	events := fs.String("events", "*", "comma-separated event types to listen to")
	return func(ctx context.Context, e *env) error {
		if *key == "" {
			*key = e.Getenv("PAYGATE_KEY")
		}
		if !strings.HasPrefix(*key, "sk_test_") {
			return usagef("--key (or $PAYGATE_KEY) must be a test-mode secret key, sk_test_...")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		defer ln.Close()
		c := &apiClient{base: strings.TrimRight(*api, "/"), key: *key}
		var ep struct{ ID, Secret string }
		err = c.do(ctx, http.MethodPost, "/v1/webhook-endpoints", map[string]any{
			"url": "http://" + ln.Addr().String() + "/", "enabled_events": strings.Split(*events, ","),
			"description": "admin webhooks listen (temporary)",
		}, &ep)
		if err != nil {
			return fmt.Errorf("register the listening endpoint: %w", err)
		}
		defer func() {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := c.do(dctx, http.MethodDelete, "/v1/webhook-endpoints/"+ep.ID, nil, nil); err != nil {
				fmt.Fprintf(e.Out, "could not delete endpoint %s: %v\n", ep.ID, err)
			}
		}()
		fmt.Fprintf(e.Out, "listening as endpoint %s for %s; forwarding to %s (Ctrl-C stops and deletes it)\n", ep.ID, *events, orNone(*forward))
		srv := &http.Server{Handler: forwarder(e.Out, ep.Secret, *forward), ReadHeaderTimeout: 5 * time.Second}
		go func() {
			<-ctx.Done()
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(sctx)
		}()
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

func orNone(s string) string {
	if s == "" {
		return "nowhere"
	}
	return s
}

// forwarder verifies each delivery, prints a line for it and passes it on;
// the delivery's answer is the forward target's (or 204).
func forwarder(out io.Writer, secret, target string) http.Handler {
	client := &http.Client{Timeout: 9 * time.Second}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ev, err := signature.VerifyRequest(r, secret)
		if err != nil {
			fmt.Fprintf(out, "refused a request that does not verify: %v\n", err)
			http.Error(w, "bad signature", http.StatusBadRequest)
			return
		}
		status := http.StatusNoContent
		if target != "" {
			req, err := http.NewRequestWithContext(r.Context(), http.MethodPost, target, bytes.NewReader(ev.Body))
			if err == nil {
				for _, h := range []string{"Content-Type", "User-Agent", signature.HeaderSignature, signature.HeaderEventID, signature.HeaderEventType} {
					req.Header.Set(h, r.Header.Get(h))
				}
				var resp *http.Response
				if resp, err = client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
					resp.Body.Close()
					status = resp.StatusCode
				}
			}
			if err != nil {
				fmt.Fprintf(out, "%s %s -> forward failed: %v\n", ev.ID, ev.Type, err)
				http.Error(w, "forward failed", http.StatusBadGateway)
				return
			}
		}
		fmt.Fprintf(out, "%s %s %s -> %d\n", time.Now().UTC().Format(time.RFC3339), ev.ID, ev.Type, status)
		w.WriteHeader(status)
	})
}

// apiClient calls the HTTP API with a secret key.
type apiClient struct{ base, key string }

func (c *apiClient) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s %s answered %d: %s", method, path, resp.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}
