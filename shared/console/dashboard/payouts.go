package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/listing"
)

// Payouts: the list (status filter), a payout's page with its history, and
// the form that pays the available balance out to a saved payout card,
// through balance.CreatePayout under the form's idempotency key (a form
// sent twice reserves the amount once). A payout cannot be cancelled: the
// service hands it to the processor at once and it is decided once (paid
// or failed), so the pages offer no cancel. Payout cards are saved through
// the API only: a card number never reaches the dashboard.

type payoutsData struct {
	statusList[balance.Payout, balance.PayoutStatus]
	Balances []balance.CurrencyBalance
	Cards    []balance.PayoutCard
}

func (s *Service) payoutsView(c *call, status int, form formState) (*httpapi.Response, error) {
	st, p, err := listFilter(c, balance.PayoutStatuses)
	if err != nil {
		return nil, err
	}
	if c.r.HTTP.Method == http.MethodPost {
		st, p = "", listing.Params{Limit: 25}
	}
	items, next, err := s.balance.Payouts(c.ctx(), c.account(), balance.PayoutFilter{Status: st}, p)
	if err != nil {
		return nil, err
	}
	bals, err := s.balance.Balances(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	cards, _, err := s.balance.Cards(c.ctx(), c.account(), listing.Params{Limit: 100})
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Payouts", "payouts"
	c.v.Data = payoutsData{statusList: newStatusList(items, balance.PayoutStatuses, st, next, form),
		Balances: bals, Cards: cards}
	return render(status, "payouts", c.v, nil)
}

func (s *Service) payoutsPage(c *call) (*httpapi.Response, error) {
	return s.payoutsView(c, http.StatusOK, formState{})
}

// payoutParams are the form fields of CreatePayout's params.
var payoutParams = withParams(amountParams, map[string]string{"payout_card_id": "payout_card_id", "reference": "reference"})

// createPayout pays out of the available balance; the service reserves the
// amount in the transaction that records the form's key.
func (s *Service) createPayout(c *call) (*httpapi.Response, error) {
	p, err := s.makePayout(c)
	if replayed(err) {
		return redirect("/dashboard/payouts", nil), nil
	}
	if fs, ok := fieldError(err, c.form, payoutParams); ok {
		c.v.Error = "The payout was not made: " + fs.Errors[firstKey(fs.Errors)]
		return s.payoutsView(c, apierr.As(err).Kind.Status(), fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/payouts/"+url.PathEscape(p.ID), nil), nil
}

func (s *Service) makePayout(c *call) (*balance.Payout, error) {
	req, err := payoutRequest(c.form)
	if err != nil {
		return nil, err
	}
	a := audit{"payout.create", "", formatAmount(*req.Amount.Value, *req.Amount.Currency) + " to payout card " + *req.PayoutCardID}
	return withIdem(s, c, req, a, func(ctx context.Context, in idemIn) (*balance.Payout, error) {
		return s.balance.CreatePayout(ctx, balance.PayoutInput{AccountID: c.account(), Request: req, Idem: in})
	}, func(p *balance.Payout) string { return p.ID })
}

func payoutRequest(form url.Values) (balance.PayoutRequest, error) {
	value, cur, err := formAmount(form)
	if err != nil {
		return balance.PayoutRequest{}, err
	}
	card := strings.TrimSpace(form.Get("payout_card_id"))
	if card == "" {
		return balance.PayoutRequest{}, apierr.Missing("payout_card_id")
	}
	ref := strings.TrimSpace(form.Get("reference"))
	if ref == "" {
		return balance.PayoutRequest{}, apierr.Missing("reference")
	}
	return balance.PayoutRequest{Amount: &balance.AmountInput{Value: &value, Currency: &cur}, PayoutCardID: &card, Reference: &ref}, nil
}

// historyRow is one step of a record's life on its page.
type historyRow struct {
	At   time.Time
	What string
}

func payoutHistory(p *balance.Payout) []historyRow {
	rows := []historyRow{{p.CreatedAt, "Created: " + formatAmount(p.Amount.Value, p.Amount.Currency) + " reserved from the available balance"}}
	if p.PaidAt != nil {
		rows = append(rows, historyRow{*p.PaidAt, "Paid to the card"})
	}
	if p.FailedAt != nil {
		rows = append(rows, historyRow{*p.FailedAt, "Failed (" + p.FailureReason + "): the amount went back to the available balance"})
	}
	return rows
}

func (s *Service) payoutPage(c *call) (*httpapi.Response, error) {
	p, err := s.balance.Payout(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Payout "+p.ID, "payouts"
	c.v.Data = map[string]any{"P": p, "History": payoutHistory(p)}
	return render(http.StatusOK, "payout", c.v, nil)
}

// firstKey is a map's smallest key (the one message a summary shows).
func firstKey(m map[string]string) string {
	first := ""
	for k := range m {
		if first == "" || k < first {
			first = k
		}
	}
	return first
}
