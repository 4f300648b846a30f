package transactions

import (
	"slices"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the TransactionsFunction's routes (declared in TransactionsGroup).
func (s *Service) Group() httpapi.Group {
	g := TransactionsGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/transactions":                                      s.list,
		"GET /v1/transactions/{id}":                                 s.get,
		"GET /v1/transactions/by-order-reference/{order_reference}": s.byOrderReference,
		"GET /v1/transactions/by-payment-link/{payment_link_id}":    s.byPaymentLink,
		"GET /v1/transactions/{id}/history":                         s.history,
		"POST /v1/transactions/{id}/capture":                        s.capture,
		"POST /v1/transactions/{id}/cancel":                         s.cancel,
		"POST /v1/transactions/{id}/refund":                         s.refund,
	})
	// Go's mux refuses /{id}/history beside /by-order-reference/{ref} (each
	// matches a path the other does not, e.g. .../by-order-reference/history);
	// it serves history as /{id}/{sub}, which the by- routes out-rank, and
	// the server narrows it back to /{id}/history (httpapi.Route.MuxPath).
	for i := range g.Routes {
		if g.Routes[i].Path == "/v1/transactions/{id}/history" {
			g.Routes[i].MuxPath = "/v1/transactions/{id}/{sub}"
		}
	}
	return g
}

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	t, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, t), nil
}

func (s *Service) history(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	h, err := s.History(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.List(payments.KindHistory, h, ""), nil
}

// Limits of the query and body fields (the OpenAPI fragment repeats them).
const (
	MaxOrderReference = 128
	MaxReason         = 500
)

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !slices.Contains(payments.Statuses, payments.Status(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", payments.Statuses)
		}
		f.Status = payments.Status(st)
	}
	if ty := r.Query("type"); ty != "" {
		if !slices.Contains(Types, payments.Type(ty)) {
			return nil, apierr.Invalidf("type", "type must be one of %v", Types)
		}
		f.Type = payments.Type(ty)
	}
	if ref := r.Query("order_reference"); ref != "" {
		if err := checkReference("order_reference", ref); err != nil {
			return nil, err
		}
		f.OrderReference = ref
	}
	if c := r.Query("customer_id"); c != "" {
		if _, err := ids.ParseField("customer_id", c); err != nil {
			return nil, err
		}
		f.CustomerID = c
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

// Types are the transaction types.
var Types = []payments.Type{payments.TypePayment, payments.TypeRefund, payments.TypeReversal}

func checkReference(param, ref string) error {
	if n := len([]rune(ref)); n < 1 || n > MaxOrderReference {
		return apierr.Invalidf(param, "%s must have 1 to %d characters", param, MaxOrderReference)
	}
	return nil
}

func (s *Service) byOrderReference(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	ref := r.PathValue("order_reference")
	if err := checkReference("order_reference", ref); err != nil {
		return nil, err
	}
	items, next, err := s.ByOrderReference(r.HTTP.Context(), r.AccountID(), ref, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

func (s *Service) byPaymentLink(r *httpapi.Request) (*httpapi.Response, error) {
	id := r.PathValue("payment_link_id")
	if _, err := ids.ParseField("payment_link_id", id); err != nil {
		return nil, err
	}
	t, err := s.ByPaymentLink(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, t), nil
}

// CaptureRequest is the optional body of a capture.
type CaptureRequest struct {
	Amount   *int64  `json:"amount"`              // minor units of the transaction's currency; default: all that is capturable
	Currency *string `json:"currency" maxlen:"3"` // optional; must be the transaction's
	Final    bool    `json:"final"`               // no further capture: the rest of the hold is released
}

// CancelRequest is the optional body of a cancel.
type CancelRequest struct {
	Reason string `json:"reason" maxlen:"500"`
}

// RefundRequest is the optional body of a refund.
type RefundRequest struct {
	Amount   *int64  `json:"amount"`              // default: the whole balance
	Currency *string `json:"currency" maxlen:"3"` // optional; must be the transaction's
	Reason   string  `json:"reason" maxlen:"500"`
}

// opInput decodes the optional body (no body is the same as {}) into v, then
// reads the path id: a malformed body is named first, as on every route.
func opInput(r *httpapi.Request, v any) (OpInput, error) {
	in := OpInput{AccountID: r.AccountID(), Idem: r.Idem(), RequestID: r.ID}
	if len(r.Body) > 0 {
		if err := r.Decode(v); err != nil {
			return in, err
		}
	}
	var err error
	in.ID, err = r.PathID("id")
	return in, err
}

// checkCurrency checks an optional currency: absent is fine, but a sent one
// ("" included) must be an ISO 4217 code in capitals.
func checkCurrency(c *string) (string, error) {
	if c == nil {
		return "", nil
	}
	v := *c
	if len(v) != 3 || v[0] < 'A' || v[0] > 'Z' || v[1] < 'A' || v[1] > 'Z' || v[2] < 'A' || v[2] > 'Z' {
		return "", apierr.Invalidf("currency", "currency must be an ISO 4217 code in capitals, the transaction's")
	}
	return v, nil
}

func (s *Service) capture(r *httpapi.Request) (*httpapi.Response, error) {
	var body CaptureRequest
	in, err := opInput(r, &body)
	if err != nil {
		return nil, err
	}
	if in.Currency, err = checkCurrency(body.Currency); err != nil {
		return nil, err
	}
	in.Amount, in.Final = body.Amount, body.Final
	return render(s.Capture(r.HTTP.Context(), in))
}

func (s *Service) cancel(r *httpapi.Request) (*httpapi.Response, error) {
	var body CancelRequest
	in, err := opInput(r, &body)
	if err != nil {
		return nil, err
	}
	in.Reason = body.Reason
	return render(s.Cancel(r.HTTP.Context(), in))
}

func (s *Service) refund(r *httpapi.Request) (*httpapi.Response, error) {
	var body RefundRequest
	in, err := opInput(r, &body)
	if err != nil {
		return nil, err
	}
	if in.Currency, err = checkCurrency(body.Currency); err != nil {
		return nil, err
	}
	in.Amount, in.Reason = body.Amount, body.Reason
	return render(s.Refund(r.HTTP.Context(), in))
}

func render(t *Transaction, err error) (*httpapi.Response, error) {
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, t), nil
}
