package orders

import (
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// GroupName is the function's logical id in template.yaml.
const GroupName = "GateOrdersFunction"

// Group is the GateOrdersFunction's routes (declared in OrdersGroup).
func (s *Service) Group() httpapi.Group {
	return OrdersGroup.Bind(map[string]httpapi.Handler{
		"POST /orders":          s.create,
		"GET /orders":           s.list,
		"GET /orders/{orderId}": s.get,
		"POST /test-helpers/orders/{orderId}/complete": s.forceComplete,
		"POST /test-helpers/orders/{orderId}/fail":     s.forceFail,
	})
}

// create serves POST /orders: decode, place, render. The platform reads the
// key first (IdemInline) and sends the recorded bytes.
func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var in CreateOrder
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	o, err := s.Place(r.HTTP.Context(), PlaceInput{AccountID: r.AccountID(), TestMode: r.TestMode(), Order: in, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(Kind, o), nil
}

func orderID(r *httpapi.Request) (string, error) {
	id := r.PathValue("orderId")
	if _, err := ids.ParseField("orderId", id); err != nil {
		return "", err
	}
	return id, nil
}

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := orderID(r)
	if err != nil {
		return nil, err
	}
	o, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, o), nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	f, err := parseFilter(r)
	if err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

func (s *Service) forceComplete(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := orderID(r)
	if err != nil {
		return nil, err
	}
	if len(r.Body) > 0 {
		var none struct{}
		if err := r.Decode(&none); err != nil {
			return nil, err
		}
	}
	o, err := s.ForceOutcome(r.HTTP.Context(), ForceInput{AccountID: r.AccountID(), OrderID: id, Status: StatusCompleted, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, o), nil
}

// forceFail takes an optional {"reason": "snake_case"}; default
// "forced_failure".
func (s *Service) forceFail(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := orderID(r)
	if err != nil {
		return nil, err
	}
	in := struct {
		Reason string `json:"reason"`
	}{Reason: "forced_failure"}
	if len(r.Body) > 0 {
		if err := r.Decode(&in); err != nil {
			return nil, err
		}
	}
	if !validReason(in.Reason) {
		return nil, apierr.Invalidf("reason", "reason must be 1 to 64 characters of a-z, 0-9 and _")
	}
	o, err := s.ForceOutcome(r.HTTP.Context(), ForceInput{AccountID: r.AccountID(), OrderID: id, Status: StatusFailed, Reason: in.Reason, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, o), nil
}

func validReason(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// parseFilter reads the list's query parameters.
func parseFilter(r *httpapi.Request) (Filter, error) {
	var f Filter
	if st := Status(r.Query("status")); st != "" {
		if !st.Valid() {
			return f, apierr.Invalidf("status", "status must be pending, completed or failed")
		}
		f.Status = st
	}
	if s := r.Query("product_id"); s != "" {
		n, err := ids.ParseInt("product_id", s) // strict: "+311" and "0311" are not product 311
		if err != nil {
			return f, err
		}
		f.ProductID = n
	}
	if s := r.Query("external_ref"); s != "" {
		if err := checkExternalRef("external_ref", s); err != nil {
			return f, err
		}
		f.ExternalRef = s
	}
	var err error
	f.From, f.To, err = r.TimeRange("created_from", "created_to")
	return f, err
}
