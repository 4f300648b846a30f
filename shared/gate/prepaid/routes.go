package prepaid

import (
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// KindBalance is the resource kind of a balance row.
const KindBalance = "gate_balance"

// BalanceRow is the public form of one balance.
type BalanceRow struct {
	CurrencyCode string    `json:"currency_code"`
	Available    string    `json:"available"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Row renders b for the API.
func (b Balance) Row() BalanceRow {
	c, _ := money.ParseCurrency(b.Currency)
	return BalanceRow{CurrencyCode: b.Currency, Available: money.FormatDecimal(b.Available, c), UpdatedAt: b.UpdatedAt}
}

// Group is the GateBalanceFunction's routes (declared in BalanceGroup).
func Group(l *Ledger) httpapi.Group {
	return BalanceGroup.Bind(map[string]httpapi.Handler{
		"GET /balance":                l.handleBalance,
		"GET /deposits":               l.handleDeposits,
		"POST /test-helpers/deposits": l.handleTestDeposit,
	})
}

func (l *Ledger) handleBalance(r *httpapi.Request) (*httpapi.Response, error) {
	bs, err := l.Balances(r.HTTP.Context(), r.AccountID())
	if err != nil {
		return nil, err
	}
	rows := make([]BalanceRow, len(bs))
	for i, b := range bs {
		rows[i] = b.Row()
	}
	return httpapi.List(KindBalance, rows, ""), nil
}

func (l *Ledger) handleDeposits(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := r.ListParams()
	if err != nil {
		return nil, err
	}
	var f DepositFilter
	switch s := Status(r.Query("status")); s {
	case "", StatusPending, StatusPosted:
		f.Status = s
	default:
		return nil, apierr.Invalidf("status", "status must be pending or posted")
	}
	if s := r.Query("currency"); s != "" {
		c, err := money.ParseCurrencyField("currency", s)
		if err != nil {
			return nil, err
		}
		f.Currency = c.Code()
	}
	if f.From, f.To, err = r.TimeRange("created_from", "created_to"); err != nil {
		return nil, err
	}
	ds, next, err := l.Deposits(r.HTTP.Context(), r.AccountID(), f, p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	views := make([]View, len(ds))
	for i := range ds {
		views[i] = ds[i].View()
	}
	return httpapi.List(KindDeposit, views, next), nil
}

// testDepositRequest is the body of POST /test-helpers/deposits.
type testDepositRequest struct {
	CurrencyCode string `json:"currency_code" maxlen:"3"`
	Amount       string `json:"amount" maxlen:"32"`
	ExternalRef  string `json:"external_ref" maxlen:"128"`
	Method       Method `json:"method" maxlen:"9"`
}

// handleTestDeposit posts a deposit to a test account: 201 when new, 200 with
// the first deposit when the reference was posted before with the same
// currency and amount, 409 when that reference holds another deposit.
func (l *Ledger) handleTestDeposit(r *httpapi.Request) (*httpapi.Response, error) {
	var in testDepositRequest
	if err := r.Decode(&in); err != nil {
		return nil, err
	}
	if in.CurrencyCode == "" {
		return nil, apierr.Missing("currency_code")
	}
	c, err := money.ParseCurrencyField("currency_code", in.CurrencyCode)
	if err != nil {
		return nil, err
	}
	if in.Amount == "" {
		return nil, apierr.Missing("amount")
	}
	amount, err := money.ParseDecimalField("amount", in.Amount, c)
	if err != nil {
		return nil, err
	}
	d, created, err := l.Post(r.HTTP.Context(), PostInput{AccountID: r.AccountID(), Idem: r.Idem(), Deposit: Deposit{
		Currency: c.Code(), Amount: amount, Method: in.Method, ExternalRef: in.ExternalRef, Livemode: !r.TestMode(),
	}})
	if err != nil {
		return nil, err
	}
	if created {
		return httpapi.Created(KindDeposit, d.View()), nil
	}
	if d.Currency != c.Code() || d.Amount != amount {
		return nil, apierr.New(apierr.CodeExternalRefInUse,
			"external_ref %q was already posted as deposit %s with another amount", d.ExternalRef, d.ID)
	}
	return &httpapi.Response{Status: http.StatusOK, Kind: KindDeposit, Body: d.View()}, nil
}
