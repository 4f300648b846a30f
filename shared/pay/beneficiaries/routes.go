package beneficiaries

import (
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the BeneficiariesFunction's routes (declared in BeneficiariesGroup).
func (s *Service) Group() httpapi.Group {
	return BeneficiariesGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/merchants/beneficiaries":                 s.create,
		"GET /v1/merchants/beneficiaries":                  s.list,
		"GET /v1/merchants/beneficiaries/{id}":             s.get,
		"POST /v1/merchants/beneficiaries/{id}":            s.update,
		"POST /v1/merchants/beneficiaries/{id}/transfer":   s.transfer,
		"POST /v1/merchants/settlement-payment-orders":     s.createOrder,
		"GET /v1/merchants/settlement-payment-orders":      s.orders,
		"GET /v1/merchants/settlement-payment-orders/{id}": s.getOrder,
		"POST /v1/distributions":                           s.distribute,
		"GET /v1/distributions":                            s.distributions,
		"GET /v1/distributions/balance":                    s.balance,
		"GET /v1/distributions/{id}":                       s.getDistribution,
	})
}

func (s *Service) create(r *httpapi.Request) (*httpapi.Response, error) {
	var body CreateRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	b, err := s.Create(r.HTTP.Context(), CreateInput{AccountID: r.AccountID(), Livemode: !r.TestMode(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindBeneficiary, b), nil
}

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if f.Status = r.Query("status"); f.Status != "" && !validStatus(f.Status, Statuses) {
		return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindBeneficiary, items, next), nil
}

func (s *Service) get(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	b, err := s.Get(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindBeneficiary, b), nil
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
	b, err := s.Update(r.HTTP.Context(), UpdateInput{AccountID: r.AccountID(), ID: id, Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindBeneficiary, b), nil
}

func (s *Service) transfer(r *httpapi.Request) (*httpapi.Response, error) {
	var body TransferRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	t, err := s.Transfer(r.HTTP.Context(), TransferInput{AccountID: r.AccountID(), BeneficiaryID: id, Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindTransfer, t), nil
}

func (s *Service) createOrder(r *httpapi.Request) (*httpapi.Response, error) {
	var body OrderRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	res, err := s.CreateOrder(r.HTTP.Context(), OrderInput{AccountID: r.AccountID(), Livemode: !r.TestMode(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	if !res.Created {
		return httpapi.OK(KindPaymentOrder, res.Order), nil
	}
	return httpapi.Created(KindPaymentOrder, res.Order), nil
}

func (s *Service) orders(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f OrderFilter
	if f.Status = r.Query("status"); f.Status != "" && !validStatus(f.Status, OrderStatuses) {
		return nil, apierr.Invalidf("status", "status must be one of %v", OrderStatuses)
	}
	if f.BeneficiaryID = r.Query("beneficiary_id"); f.BeneficiaryID != "" {
		if _, err := ids.ParseField("beneficiary_id", f.BeneficiaryID); err != nil {
			return nil, err
		}
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.Orders(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindPaymentOrder, items, next), nil
}

func (s *Service) getOrder(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	o, err := s.Order(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindPaymentOrder, o), nil
}

func (s *Service) distribute(r *httpapi.Request) (*httpapi.Response, error) {
	var body DistributionRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	d, err := s.Distribute(r.HTTP.Context(), DistributionInput{AccountID: r.AccountID(), Livemode: !r.TestMode(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindDistribution, d), nil
}

func (s *Service) distributions(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f DistFilter
	if f.Status = r.Query("status"); f.Status != "" && !validStatus(f.Status, DistStatuses) {
		return nil, apierr.Invalidf("status", "status must be one of %v", DistStatuses)
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.Distributions(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindDistribution, items, next), nil
}

func (s *Service) getDistribution(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	d, err := s.DistributionByID(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindDistribution, d), nil
}

func (s *Service) balance(r *httpapi.Request) (*httpapi.Response, error) {
	bs, err := s.Balance(r.HTTP.Context(), r.AccountID())
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindDistBalance, bs, ""), nil
}
