package direct

import (
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the DirectPaymentsFunction's routes (declared in PaymentsGroup).
func (s *Service) Group() httpapi.Group {
	return PaymentsGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/payments/direct/keys": s.listKeys,
		"POST /v1/payments/direct":     s.pay,
	})
}

func (s *Service) listKeys(r *httpapi.Request) (*httpapi.Response, error) {
	keys, err := s.Keys(r.HTTP.Context())
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindKey, keys, ""), nil
}

func (s *Service) pay(r *httpapi.Request) (*httpapi.Response, error) {
	var body PaymentRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	p, err := s.Pay(r.HTTP.Context(), PayInput{AccountID: r.AccountID(), TestMode: r.TestMode(), Request: body, RequestID: r.ID, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(transactions.Kind, p), nil
}
