package webhooks

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks/outbound"
	"github.com/paygate/paygate/shared/console/webhooks/signature"
	"github.com/paygate/paygate/shared/pay/adyen"
)

// The sender's HTTP client: the one part of this package that speaks HTTP,
// to the merchants' endpoints (through webhooks/outbound's SSRF-checked
// clients).

// Clients are the outbound clients by policy (test endpoints may reach
// loopback where the environment is local, live ones never:
// outbound.PolicyFor).
type Clients map[outbound.Policy]*http.Client

// withDefaults fills each policy without a client with outbound.Client.
func (c Clients) withDefaults() Clients {
	if c == nil {
		c = Clients{}
	}
	for _, p := range []outbound.Policy{outbound.TestLocal, outbound.Test, outbound.Live} {
		if c[p] == nil {
			c[p] = outbound.Client(p)
		}
	}
	return c
}

// errNotAccepted fails an Adyen-format delivery answered 2xx without
// "[accepted]".
var errNotAccepted = errors.New("the endpoint answered without " + adyen.Accepted)

// post signs body for e at the moment of sending and POSTs it; it returns
// the status, the answer's body (bounded: read so the connection can be
// reused, and for Adyen's "[accepted]"; neither stored nor logged) and the
// latency.
func (s *Sender) post(ctx context.Context, e *Endpoint, ev *Event, body []byte) (int, []byte, time.Duration, error) {
	t := s.svc.now()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", signature.UserAgent)
	h.Set(signature.HeaderSignature, signature.Sign(body, t, e.SigningSecrets(t)...))
	h.Set(signature.HeaderEventID, ev.ID)
	h.Set(signature.HeaderEventType, ev.Type)
	p := s.svc.policy(e.Livemode)
	start := time.Now()
	code, answer, err := outbound.Post(ctx, s.clients[p], e.URL, h, body)
	return code, answer, time.Since(start), err
}
