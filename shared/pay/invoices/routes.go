package invoices

import (
	"slices"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the InvoicesFunction's routes (declared in InvoicesGroup).
func (s *Service) Group() httpapi.Group {
	return InvoicesGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/invoices":                    s.create,
		"GET /v1/invoices":                     s.list,
		"GET /v1/invoices/{id}":                s.get,
		"POST /v1/invoices/{id}/cancel":        s.cancel,
		"POST /test-helpers/invoices/{id}/pay": s.pay,
	})
}

func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var body CreateRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	inv, err := s.Create(r.HTTP.Context(), CreateInput{AccountID: r.AccountID(), Livemode: !r.TestMode(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(Kind, inv), nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !slices.Contains(Statuses, Status(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
		}
		f.Status = Status(st)
	}
	if f.OrderReference = r.Query("order_reference"); len([]rune(f.OrderReference)) > MaxOrderReference {
		return nil, apierr.Invalidf("order_reference", "order_reference must be at most %d characters", MaxOrderReference)
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

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	inv, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, inv), nil
}

// action reads the path id and an optional empty body ({} or none).
func action(r *httpapi.Request) (ActionInput, error) {
	if len(r.Body) > 0 {
		var body struct{}
		if err := r.Decode(&body); err != nil {
			return ActionInput{}, err
		}
	}
	id, err := r.PathID("id")
	if err != nil {
		return ActionInput{}, err
	}
	return ActionInput{AccountID: r.AccountID(), ID: id, Idem: r.Idem()}, nil
}

func (s *Service) cancel(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := action(r)
	if err != nil {
		return nil, err
	}
	inv, err := s.Cancel(r.HTTP.Context(), in)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, inv), nil
}

func (s *Service) pay(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := action(r)
	if err != nil {
		return nil, err
	}
	inv, err := s.Pay(r.HTTP.Context(), in)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, inv), nil
}
