package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/listing"
)

// Payouts: the list (status filter), a payout's page with its history, the
// form that pays the available balance out to a saved payout card
// (balance.CreatePayout under the form's idempotency key: a form sent twice
// reserves the amount once), a pending payout's cancel (balance.CancelPayout
// under the form's key, after a confirmation; the service's race with the
// payouts sender decides, and a payout already sent is a 409 page), and the
// payout cards: saved with the API's checks (balance.SaveCard) and deleted.
// A card number passes through the save form's request only: it is never
// drawn again (a refused form keeps every field but the number), written to
// the audit log (the last four digits only), the form's idempotency
// fingerprint (the last four digits stand for it) or a log line.

type payoutsData struct {
	statusList[balance.Payout, balance.PayoutStatus]
	Balances []balance.CurrencyBalance
	Cards    []balance.PayoutCard
	CardForm formState // the save card form (never its number)
}

// Cancellable reports whether p may still be cancelled (pending).
func (payoutsData) Cancellable(p balance.Payout) bool { return p.Status == balance.PayoutPending }

func (s *Service) payoutsView(c *call, status int, form formState) (*httpapi.Response, error) {
	return s.payoutsViewWith(c, status, form, formState{})
}

func (s *Service) payoutsViewWith(c *call, status int, form, cardForm formState) (*httpapi.Response, error) {
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
		Balances: bals, Cards: cards, CardForm: cardForm}
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
	if p.CancelledAt != nil {
		rows = append(rows, historyRow{*p.CancelledAt, "Cancelled: the amount went back to the available balance"})
	}
	return rows
}

func (s *Service) payoutPage(c *call) (*httpapi.Response, error) {
	p, err := s.balance.Payout(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Payout "+p.ID, "payouts"
	c.v.Data = map[string]any{"P": p, "History": payoutHistory(p), "Cancellable": p.Status == balance.PayoutPending}
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

// cardParams are the save card form's fields by the service's params.
var cardParams = map[string]string{"number": "number", "expiry_month": "expiry_month", "expiry_year": "expiry_year",
	"holder_name": "holder_name"}

// saveCard saves a payout card through the API's service and its checks;
// the number goes to the service and nowhere else.
func (s *Service) saveCard(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	req, last4, err := cardRequest(c.form)
	if err == nil {
		// The fingerprint and the audit entry know the last four digits,
		// never the number.
		fields := url.Values{}
		for _, k := range []string{"expiry_month", "expiry_year", "holder_name"} {
			fields.Set(k, c.form.Get(k))
		}
		fields.Set("last4", last4)
		a := audit{"payout_card.create", "", "card ending " + last4}
		_, err = withIdem(s, c, fields.Encode(), a, func(ctx context.Context, in idemIn) (*balance.PayoutCard, error) {
			return s.balance.SaveCard(ctx, balance.SaveCardInput{AccountID: acct.ID, TestMode: acct.Mode != accounts.Live, Request: req, Idem: in})
		}, func(pc *balance.PayoutCard) string { return pc.ID })
	}
	if replayed(err) {
		return redirect("/dashboard/payouts", nil), nil
	}
	if fs, ok := cardError(err, c.form); ok {
		c.v.Error = "The payout card was not saved: " + fs.Errors[firstKey(fs.Errors)]
		return s.payoutsViewWith(c, apierr.As(err).Kind.Status(), formState{}, fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/payouts", nil), nil
}

// cardError is fieldError for the card form, also for the card checks'
// card_error codes (invalid_number, card_not_supported, expired_card), with
// the number left out of the values drawn again.
func cardError(err error, form url.Values) (formState, bool) {
	e := apierr.As(err)
	if e.Kind != apierr.Invalid && e.Kind != apierr.CardDeclined {
		return formState{}, false
	}
	field, ok := cardParams[e.Param]
	if !ok {
		field = "card_form"
	}
	kept := url.Values{}
	for k, v := range form {
		if k != "number" {
			kept[k] = v
		}
	}
	return formState{Values: kept, Errors: map[string]string{field: e.Message}}, true
}

// cardRequest reads the save card form: the number as typed without its
// spaces and dashes (the service checks it as the API does), the expiry as
// numbers. last4 is the number's last four digits, for the audit entry.
func cardRequest(form url.Values) (req balance.CardRequest, last4 string, err error) {
	number := strings.NewReplacer(" ", "", "-", "").Replace(form.Get("number"))
	if number != "" {
		req.Number = &number
	}
	if len(number) >= 4 {
		last4 = number[len(number)-4:]
	}
	for _, f := range []struct {
		name string
		to   **int64
	}{{"expiry_month", &req.ExpiryMonth}, {"expiry_year", &req.ExpiryYear}} {
		raw := strings.TrimSpace(form.Get(f.name))
		if raw == "" {
			continue
		}
		n, perr := strconv.ParseInt(raw, 10, 64)
		if perr != nil {
			return req, "", apierr.Invalidf(f.name, "%s must be a number", f.name)
		}
		*f.to = &n
	}
	if h := form.Get("holder_name"); h != "" {
		req.HolderName = &h
	}
	return req, last4, nil
}

// deleteCard deletes one of the account's payout cards (another account's
// is a 404 page, as a missing one); payouts made to it are not affected.
func (s *Service) deleteCard(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	err := s.audited(c, "payout_card.delete", id, "", func(ctx context.Context) (string, error) {
		_, err := s.balance.DeleteCard(ctx, c.account(), id)
		return "", err
	})
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/payouts", nil), nil
}

// cancelPayout cancels a pending payout under the form's idempotency key
// (the service records it in the cancel's transaction): sent twice, it
// cancels once and the second replays. A payout the sender took first is a
// 409 page naming its status.
func (s *Service) cancelPayout(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	back := "/dashboard/payouts/" + url.PathEscape(id)
	if _, err := s.balance.Payout(c.ctx(), c.account(), id); err != nil {
		return nil, err
	}
	_, err := withIdem(s, c, "{}", audit{"payout.cancel", id, ""}, func(ctx context.Context, in idemIn) (*balance.Payout, error) {
		return s.balance.CancelPayout(ctx, balance.CancelInput{AccountID: c.account(), ID: id, Idem: in})
	}, nil)
	if err != nil && !replayed(err) {
		return nil, err
	}
	return redirect(back, nil), nil
}
