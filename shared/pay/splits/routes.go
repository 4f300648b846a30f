package splits

import (
	"slices"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the SplitRequestsFunction's routes (declared in SplitRequestsGroup).
func (s *Service) Group() httpapi.Group {
	return SplitRequestsGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/split-requests":        s.create,
		"GET /v1/split-requests":         s.list,
		"GET /v1/split-requests/{id}":    s.get,
		"POST /v1/split-requests/{id}":   s.update,
		"DELETE /v1/split-requests/{id}": s.delete,
	})
}

func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var body CreateRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	v, err := s.Create(r.HTTP.Context(), CreateInput{AccountID: r.AccountID(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(Kind, v), nil
}

// Statuses are the split request statuses (the list filter).
var Statuses = []payments.SplitStatus{payments.SplitPending, payments.SplitApplied}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !slices.Contains(Statuses, payments.SplitStatus(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
		}
		f.Status = payments.SplitStatus(st)
	}
	if tx := r.Query("transaction_id"); tx != "" {
		if _, err := ids.ParseField("transaction_id", tx); err != nil {
			return nil, err
		}
		f.TransactionID = tx
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
	v, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, v), nil
}

func (s *Service) update(r *httpapi.Request) (*httpapi.Response, error) {
	var body UpdateRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	v, err := s.Update(r.HTTP.Context(), UpdateInput{AccountID: r.AccountID(), ID: id, Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, v), nil
}

func (s *Service) delete(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	d, err := s.Delete(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK("", d), nil
}
