package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// network is Toxiproxy (run in this process) between the gateway and
// DynamoDB Local and moto: the faults of the wire rather than of the SDK's
// calls, toggled by a seeded schedule.
type network struct {
	client  *toxiclient.Client
	proxies []*toxiclient.Proxy

	mu     sync.Mutex
	counts map[string]int
}

// toxics are the network faults, each as Toxiproxy names it and with the
// attributes it is added with.
var toxics = []struct {
	name  string
	typ   string
	attrs toxiclient.Attributes
}{
	{"net-latency", "latency", toxiclient.Attributes{"latency": 400, "jitter": 300}},
	{"net-bandwidth", "bandwidth", toxiclient.Attributes{"rate": 16}}, // KB/s
	{"net-reset", "reset_peer", toxiclient.Attributes{"timeout": 50}},
	{"net-timeout", "timeout", toxiclient.Attributes{"timeout": 1500}},
}

// startNetwork starts Toxiproxy's API on a free port and a proxy in front
// of each upstream (host:port); it returns the proxies' addresses in order.
func startNetwork(upstreams ...string) (*network, []string, error) {
	port, err := freePort()
	if err != nil {
		return nil, nil, err
	}
	// Its toxics log through zerolog's global logger: quiet.
	zerolog.SetGlobalLevel(zerolog.Disabled)
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	go srv.Listen("127.0.0.1", port)
	n := &network{client: toxiclient.NewClient("127.0.0.1:" + port), counts: map[string]int{}}
	for end := time.Now().Add(10 * time.Second); ; {
		if _, err := http.Get("http://127.0.0.1:" + port + "/version"); err == nil {
			break
		} else if time.Now().After(end) {
			return nil, nil, fmt.Errorf("toxiproxy did not start: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var addrs []string
	for i, up := range upstreams {
		listen, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		p, err := n.client.CreateProxy(fmt.Sprintf("upstream-%d", i), "127.0.0.1:"+listen, up)
		if err != nil {
			return nil, nil, fmt.Errorf("toxiproxy: %w", err)
		}
		n.proxies = append(n.proxies, p)
		addrs = append(addrs, "127.0.0.1:"+listen)
	}
	return n, addrs, nil
}

// run adds a toxic to one proxy for a moment, again and again, until ctx
// ends: every few seconds, chosen by the seed.
func (n *network) run(ctx context.Context, seed uint64, every, hold time.Duration) {
	rng := rand.New(rand.NewPCG(seed, 0x7011c))
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(every/2 + time.Duration(rng.Int64N(int64(every)))):
		}
		t := toxics[rng.IntN(len(toxics))]
		p := n.proxies[rng.IntN(len(n.proxies))]
		stream := []string{"upstream", "downstream"}[rng.IntN(2)]
		if _, err := p.AddToxic(t.name, t.typ, stream, 1, t.attrs); err != nil {
			continue
		}
		n.mu.Lock()
		n.counts[t.name]++
		n.mu.Unlock()
		select {
		case <-ctx.Done():
		case <-time.After(hold):
		}
		_ = p.RemoveToxic(t.name)
	}
}

func (n *network) snapshot() map[string]int {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[string]int{}
	for k, v := range n.counts {
		out[k] = v
	}
	return out
}

// hostPort is the host:port of an endpoint URL.
func hostPort(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", err
	}
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return "", fmt.Errorf("%s: no port", endpoint)
	}
	return u.Host, nil
}
