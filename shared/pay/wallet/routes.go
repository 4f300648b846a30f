package wallet

import (
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the WalletFunction's routes (declared in WalletGroup).
func (s *Service) Group() httpapi.Group {
	return WalletGroup.Bind(map[string]httpapi.Handler{
		"POST /v1/wallet/authorize":              s.authorize,
		"GET /v1/wallet/transaction/{id}":        s.get,
		"GET /v1/wallet/transactions":            s.list,
		"POST /v1/wallet/{id}/capture":           s.capture,
		"POST /v1/wallet/{id}/cancel":            s.cancel,
		"POST /v1/wallet/{id}/refund":            s.refund,
		"POST /test-helpers/wallet/{id}/confirm": s.confirm,
		"POST /test-helpers/wallet/{id}/decline": s.decline,
	})
}

func (s *Service) authorize(r *httpapi.Request) (*httpapi.Response, error) {
	var in AuthorizeRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	t, err := s.Authorize(r.HTTP.Context(), AuthorizeInput{AccountID: r.AccountID(), TestMode: r.TestMode(), Request: in, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, t), nil
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

func (s *Service) list(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f Filter
	if st := r.Query("status"); st != "" {
		if !validStatus(Status(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", Statuses)
		}
		f.Status = Status(st)
	}
	if ref := r.Query("orderReference"); ref != "" {
		if err := checkOrderReference("orderReference", ref); err != nil {
			return nil, err
		}
		f.OrderReference = ref
	}
	if f.From, f.To, err = r.TimeRange("createdFrom", "createdTo"); err != nil {
		return nil, err
	}
	items, next, err := s.List(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(Kind, items, next), nil
}

func validStatus(s Status) bool {
	for _, v := range Statuses {
		if v == s {
			return true
		}
	}
	return false
}

// opInput reads the optional body ({} or {"amount": n}; no body at all is
// the same as {}), then the path id: a malformed body is named first, as on
// every other route.
func opInput(r *httpapi.Request, withAmount bool) (OpInput, error) {
	in := OpInput{AccountID: r.AccountID(), Idem: r.Idem()}
	if len(r.Body) > 0 {
		var body AmountRequest
		var err error
		if withAmount {
			err = r.Decode(&body)
		} else {
			err = r.Decode(&struct{}{})
		}
		if err != nil {
			return in, err
		}
		in.Amount = body.Amount
	}
	var err error
	in.ID, err = r.PathID("id")
	return in, err
}

func (s *Service) capture(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := opInput(r, true)
	if err != nil {
		return nil, err
	}
	return render(s.Capture(r.HTTP.Context(), in))
}

func (s *Service) cancel(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := opInput(r, false)
	if err != nil {
		return nil, err
	}
	return render(s.Cancel(r.HTTP.Context(), in))
}

func (s *Service) refund(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := opInput(r, true)
	if err != nil {
		return nil, err
	}
	return render(s.Refund(r.HTTP.Context(), in))
}

func render(t *Transaction, err error) (*httpapi.Response, error) {
	if err != nil {
		return nil, err
	}
	return httpapi.OK(Kind, t), nil
}

func (s *Service) confirm(r *httpapi.Request) (*httpapi.Response, error) {
	in, err := opInput(r, false)
	if err != nil {
		return nil, err
	}
	return render(s.ForceOutcome(r.HTTP.Context(), ForceInput{AccountID: in.AccountID, ID: in.ID, Approve: true, Idem: in.Idem}))
}

// decline takes an optional {"reason": "snake_case"}; default
// declined_by_shopper.
func (s *Service) decline(r *httpapi.Request) (*httpapi.Response, error) {
	body := struct {
		Reason string `json:"reason" maxlen:"64"`
	}{Reason: ReasonDeclined}
	if len(r.Body) > 0 {
		if err := r.Decode(&body); err != nil {
			return nil, err
		}
	}
	if !validReason(body.Reason) {
		return nil, apierr.Invalidf("reason", "reason must be 1 to 64 characters of a-z, 0-9 and _")
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	return render(s.ForceOutcome(r.HTTP.Context(), ForceInput{AccountID: r.AccountID(), ID: id, Reason: body.Reason, Idem: r.Idem()}))
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
