package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Invoices: the list (status filter) with the form that sends one, an
// invoice's page, and its cancel (while created), through the invoices
// service under the form's idempotency key. The form takes one payer (a
// phone, an IIN or a BIN) and no line items (the API takes those).

func (s *Service) invoicesView(c *call, status int, form formState) (*httpapi.Response, error) {
	st, p, err := listFilter(c, invoices.Statuses)
	if err != nil {
		return nil, err
	}
	items, next, err := s.invoices.List(c.ctx(), c.account(), invoices.Filter{Status: st}, p)
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Invoices", "invoices"
	c.v.Data = newStatusList(items, invoices.Statuses, st, next, form)
	return render(status, "invoices", c.v, nil)
}

func (s *Service) invoicesPage(c *call) (*httpapi.Response, error) {
	return s.invoicesView(c, http.StatusOK, formState{Values: url.Values{"payer_type": {"phone"}, "expires_in": {"24"}}})
}

var invoiceParams = withParams(amountParams, map[string]string{"payer": "payer", "payer.phone": "payer", "payer.iin": "payer",
	"payer.bin": "payer", "description": "description", "order_reference": "order_reference", "expires_at": "expires_in"})

// maxExpiryHours is the longest expiry the form offers (the service's).
var maxExpiryHours = int(invoices.MaxExpiry.Hours())

func (s *Service) createInvoice(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	inv, err := func() (*invoices.Invoice, error) {
		req, err := s.invoiceRequest(c.form)
		if err != nil {
			return nil, err
		}
		// The form's fields, not the request: its expires_at moves with
		// the clock, and a form sent again must replay, not mismatch.
		a := audit{"invoice.create", "", formatAmount(*req.Amount.Value, *req.Amount.Currency)}
		return withIdem(s, c, formFields(c.form), a, func(ctx context.Context, in idemIn) (*invoices.Invoice, error) {
			return s.invoices.Create(ctx, invoices.CreateInput{AccountID: acct.ID, Livemode: acct.Mode == accounts.Live, Request: req, Idem: in})
		}, func(inv *invoices.Invoice) string { return inv.ID })
	}()
	if replayed(err) {
		return redirect("/dashboard/invoices", nil), nil
	}
	if fs, ok := fieldError(err, c.form, invoiceParams); ok {
		c.v.Error = "The invoice was not sent: check the field marked below."
		return s.invoicesView(c, http.StatusBadRequest, fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/invoices/"+url.PathEscape(inv.ID), nil), nil
}

func (s *Service) invoiceRequest(f url.Values) (invoices.CreateRequest, error) {
	value, cur, err := formAmount(f)
	if err != nil {
		return invoices.CreateRequest{}, err
	}
	req := invoices.CreateRequest{Amount: &invoices.AmountRequest{Value: &value, Currency: &cur}, Payer: &invoices.PayerRequest{},
		Description: optional(f, "description"), OrderReference: optional(f, "order_reference")}
	payer := optional(f, "payer")
	if payer == nil {
		return req, apierr.Missing("payer")
	}
	switch f.Get("payer_type") {
	case "iin":
		req.Payer.IIN = payer
	case "bin":
		req.Payer.BIN = payer
	default:
		req.Payer.Phone = payer
	}
	if raw := strings.TrimSpace(f.Get("expires_in")); raw != "" {
		h, err := strconv.Atoi(raw)
		if err != nil || h < 1 || h > maxExpiryHours {
			return req, apierr.Invalidf("expires_at", "the invoice expires in 1 to %d hours", maxExpiryHours)
		}
		at := s.clock().UTC().Add(time.Duration(h) * time.Hour).Format(time.RFC3339)
		req.ExpiresAt = &at
	}
	return req, nil
}

func (s *Service) invoicePage(c *call) (*httpapi.Response, error) {
	inv, err := s.invoices.Get(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	h := []historyRow{{inv.CreatedAt, "Sent to the payer's bank"}}
	for _, x := range []struct {
		at   *time.Time
		what string
	}{{inv.PaidAt, "Paid by the payer: the amount is the merchant's"}, {inv.CancelledAt, "Cancelled"}, {inv.ExpiredAt, "Expired unpaid"}} {
		if x.at != nil {
			h = append(h, historyRow{*x.at, x.what})
		}
	}
	c.v.Title, c.v.Nav = "Invoice "+inv.ID, "invoices"
	c.v.Data = map[string]any{"I": inv, "History": h, "Open": inv.Status == invoices.Created}
	return render(http.StatusOK, "invoice", c.v, nil)
}

func (s *Service) cancelInvoice(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	back := "/dashboard/invoices/" + url.PathEscape(id)
	if _, err := s.invoices.Get(c.ctx(), c.account(), id); err != nil {
		return nil, err
	}
	_, err := withIdem(s, c, "{}", audit{"invoice.cancel", id, ""}, func(ctx context.Context, in idemIn) (*invoices.Invoice, error) {
		return s.invoices.Cancel(ctx, invoices.ActionInput{AccountID: c.account(), ID: id, Idem: in})
	}, nil)
	if replayed(err) {
		return redirect(back, nil), nil
	}
	if err != nil {
		return nil, err
	}
	return redirect(back, nil), nil
}
