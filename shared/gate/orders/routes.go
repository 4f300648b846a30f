package orders

import (
	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/ids"
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
	o, err := s.ForceOutcome(r.HTTP.Context(), r.AccountID(), id, StatusCompleted, "")
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
	o, err := s.ForceOutcome(r.HTTP.Context(), r.AccountID(), id, StatusFailed, in.Reason)
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
