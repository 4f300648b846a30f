package balance

import (
	"slices"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the MerchantBalanceFunction's routes (declared in BalanceGroup).
func (s *Service) Group() httpapi.Group {
	return BalanceGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/balance":               s.balance,
		"GET /v1/balance/entries":       s.entries,
		"POST /v1/payouts/cards":        s.saveCard,
		"GET /v1/payouts/cards":         s.cards,
		"GET /v1/payouts/cards/{id}":    s.getCard,
		"DELETE /v1/payouts/cards/{id}": s.deleteCard,
		"POST /v1/payouts":              s.createPayout,
		"GET /v1/payouts":               s.payouts,
		"GET /v1/payouts/{id}":          s.getPayout,
		"POST /v1/payouts/{id}/cancel":  s.cancelPayout,
	})
}

func (s *Service) balance(r *httpapi.Request) (*httpapi.Response, error) {
	bs, err := s.Balances(r.HTTP.Context(), r.AccountID())
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindBalance, bs, ""), nil
}

func (s *Service) entries(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f ledger.EntryFilter
	if t := r.Query("type"); t != "" {
		if !ledger.EntryType(t).Valid() {
			return nil, apierr.Invalidf("type", "type must be one of %v", ledger.EntryTypes)
		}
		f.Type = ledger.EntryType(t)
	}
	if c := r.Query("currency"); c != "" {
		if _, err := money.ParseCurrencyField("currency", c); err != nil {
			return nil, err
		}
		f.Currency = c
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.Entries(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindEntry, items, next), nil
}

func (s *Service) saveCard(r *httpapi.Request) (*httpapi.Response, error) {
	var body CardRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	c, err := s.SaveCard(r.HTTP.Context(), SaveCardInput{AccountID: r.AccountID(), TestMode: r.TestMode(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindCard, c), nil
}

func (s *Service) cards(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	items, next, err := s.Cards(r.HTTP.Context(), r.AccountID(), p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindCard, items, next), nil
}

func (s *Service) getCard(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	c, err := s.Card(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindCard, c), nil
}

func (s *Service) deleteCard(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	d, err := s.DeleteCard(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK("", d), nil
}

func (s *Service) createPayout(r *httpapi.Request) (*httpapi.Response, error) {
	var body PayoutRequest
	if err := r.Decode(&body); err != nil {
		return nil, err
	}
	p, err := s.CreatePayout(r.HTTP.Context(), PayoutInput{AccountID: r.AccountID(), Request: body, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.Created(KindPayout, p), nil
}

func (s *Service) payouts(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f PayoutFilter
	if st := r.Query("status"); st != "" {
		if !slices.Contains(PayoutStatuses, PayoutStatus(st)) {
			return nil, apierr.Invalidf("status", "status must be one of %v", PayoutStatuses)
		}
		f.Status = PayoutStatus(st)
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	items, next, err := s.Payouts(r.HTTP.Context(), r.AccountID(), f, p)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindPayout, items, next), nil
}

func (s *Service) getPayout(r *httpapi.Request) (*httpapi.Response, error) {
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	p, err := s.Payout(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindPayout, p), nil
}

func (s *Service) cancelPayout(r *httpapi.Request) (*httpapi.Response, error) {
	if len(r.Body) > 0 { // an optional body: nothing to send today
		if err := r.Decode(&struct{}{}); err != nil {
			return nil, err
		}
	}
	id, err := r.PathID("id")
	if err != nil {
		return nil, err
	}
	p, err := s.CancelPayout(r.HTTP.Context(), CancelInput{AccountID: r.AccountID(), ID: id, Idem: r.Idem()})
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindPayout, p), nil
}
