package dashboard

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/listing"
)

// Beneficiaries: the list (status filter) with the form that registers one,
// a beneficiary's page (balances per currency, its settlement payment
// orders, the edit form, the transfer of its balance to the merchant), and
// the account's payment orders and distributions (read only: orders and
// distributions are made by the merchant's systems through the API). Every
// form goes through the beneficiaries service with the form's idempotency
// key; a field the service refuses (an IIN, BIN, IBAN, BIC or KBe breaking
// its kzid rule) is shown beside that field, with what was typed.

func (s *Service) beneficiariesView(c *call, status int, form formState) (*httpapi.Response, error) {
	st, p, err := listFilter(c, beneficiaries.Statuses)
	if err != nil {
		return nil, err
	}
	items, next, err := s.beneficiaries.List(c.ctx(), c.account(), beneficiaries.Filter{Status: string(st)}, p)
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Beneficiaries", "beneficiaries"
	c.v.Data = newStatusList(items, beneficiaries.Statuses, st, next, form)
	return render(status, "beneficiaries", c.v, nil)
}

func (s *Service) beneficiariesPage(c *call) (*httpapi.Response, error) {
	return s.beneficiariesView(c, http.StatusOK, formState{Values: url.Values{"type": {"person"}}})
}

// beneficiaryParams are the form fields of the service's params: an IIN or
// a BIN is one field (identifier), read as the type says.
var beneficiaryParams = map[string]string{"name": "name", "type": "type", "iin": "identifier", "bin": "identifier",
	"iban": "iban", "bic": "bic", "kbe": "kbe", "email": "email", "status": "status", "metadata": "form"}

func (s *Service) createBeneficiary(c *call) (*httpapi.Response, error) {
	acct, err := s.accounts.Get(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	f := c.form
	req := beneficiaries.CreateRequest{Name: optional(f, "name"), Type: optional(f, "type"), IBAN: optional(f, "iban"),
		BIC: optional(f, "bic"), KBe: optional(f, "kbe"), Email: optional(f, "email")}
	if id := optional(f, "identifier"); id != nil {
		if f.Get("type") == string(beneficiaries.Company) {
			req.BIN = id
		} else {
			req.IIN = id
		}
	}
	name := f.Get("name")
	b, err := withIdem(s, c, req, audit{"beneficiary.create", "", name}, func(ctx context.Context, in idemIn) (*beneficiaries.Beneficiary, error) {
		return s.beneficiaries.Create(ctx, beneficiaries.CreateInput{AccountID: acct.ID, Livemode: acct.Mode == accounts.Live,
			Request: req, Idem: in})
	}, func(b *beneficiaries.Beneficiary) string { return b.ID })
	if replayed(err) {
		return redirect("/dashboard/beneficiaries", nil), nil
	}
	if fs, ok := fieldError(err, f, beneficiaryParams); ok {
		c.v.Error = "The beneficiary was not saved: check the field marked below."
		return s.beneficiariesView(c, http.StatusBadRequest, fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect("/dashboard/beneficiaries/"+url.PathEscape(b.ID), nil), nil
}

type beneficiaryData struct {
	B        *beneficiaries.Beneficiary
	Orders   []beneficiaries.PaymentOrder
	Edit     formState
	Transfer formState
	Statuses []beneficiaries.Status
}

func (s *Service) beneficiaryView(c *call, status int, edit, transfer formState) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	b, err := s.beneficiaries.Get(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	orders, _, err := s.beneficiaries.Orders(c.ctx(), c.account(), beneficiaries.OrderFilter{BeneficiaryID: id}, listing.Params{Limit: 25})
	if err != nil {
		return nil, err
	}
	if edit.Values == nil {
		edit.Values = url.Values{"name": {b.Name}, "iban": {b.IBAN}, "bic": {b.BIC}, "kbe": {b.KBe}, "email": {b.Email}, "status": {string(b.Status)}}
	}
	if transfer.Values == nil && b.Balances != nil && len(*b.Balances) > 0 {
		transfer.Values = url.Values{"currency": {(*b.Balances)[0].Currency}}
	}
	c.v.Title, c.v.Nav = "Beneficiary "+b.Name, "beneficiaries"
	c.v.Data = beneficiaryData{B: b, Orders: orders, Edit: edit, Transfer: transfer, Statuses: beneficiaries.Statuses}
	return render(status, "beneficiary", c.v, nil)
}

func (s *Service) beneficiaryPage(c *call) (*httpapi.Response, error) {
	return s.beneficiaryView(c, http.StatusOK, formState{}, formState{})
}

// updateBeneficiary sends the fields that changed (an empty e-mail is left
// as it is: the service keeps an e-mail once given).
func (s *Service) updateBeneficiary(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	cur, err := s.beneficiaries.Get(c.ctx(), c.account(), id)
	if err != nil {
		return nil, err
	}
	f := c.form
	var req beneficiaries.UpdateRequest
	changed := func(name, was string) *string {
		v := optional(f, name)
		if v == nil || *v == was {
			return nil
		}
		return v
	}
	req.Name, req.IBAN, req.BIC = changed("name", cur.Name), changed("iban", cur.IBAN), changed("bic", cur.BIC)
	req.KBe, req.Email, req.Status = changed("kbe", cur.KBe), changed("email", cur.Email), changed("status", string(cur.Status))
	back := "/dashboard/beneficiaries/" + url.PathEscape(id)
	_, err = withIdem(s, c, req, audit{"beneficiary.update", id, strings.Join(changedNames(req), ", ")},
		func(ctx context.Context, in idemIn) (*beneficiaries.Beneficiary, error) {
			return s.beneficiaries.Update(ctx, beneficiaries.UpdateInput{AccountID: c.account(), ID: id, Request: req, Idem: in})
		}, nil)
	if replayed(err) {
		return redirect(back, nil), nil
	}
	if fs, ok := fieldError(err, f, beneficiaryParams); ok {
		c.v.Error = "The changes were not saved: check the field marked below."
		return s.beneficiaryView(c, http.StatusBadRequest, fs, formState{})
	}
	if err != nil {
		return nil, err
	}
	return redirect(back, nil), nil
}

func changedNames(r beneficiaries.UpdateRequest) []string {
	var out []string
	for name, v := range map[string]*string{"name": r.Name, "iban": r.IBAN, "bic": r.BIC, "kbe": r.KBe, "email": r.Email, "status": r.Status} {
		if v != nil {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return []string{"nothing changed"}
	}
	return sortStrings(out)
}

// transferBeneficiary moves an amount of the beneficiary's balance to the
// merchant's available balance.
func (s *Service) transferBeneficiary(c *call) (*httpapi.Response, error) {
	id := c.r.PathValue("id")
	back := "/dashboard/beneficiaries/" + url.PathEscape(id)
	_, err := func() (*beneficiaries.Transfer, error) {
		value, cur, err := formAmount(c.form)
		if err != nil {
			return nil, err
		}
		req := beneficiaries.TransferRequest{Amount: &beneficiaries.AmountRequest{Value: &value, Currency: &cur}, Description: optional(c.form, "description")}
		a := audit{"beneficiary.transfer", id, formatAmount(value, cur) + " to the merchant's balance"}
		return withIdem(s, c, req, a, func(ctx context.Context, in idemIn) (*beneficiaries.Transfer, error) {
			return s.beneficiaries.Transfer(ctx, beneficiaries.TransferInput{AccountID: c.account(), BeneficiaryID: id, Request: req, Idem: in})
		}, nil)
	}()
	if replayed(err) {
		return redirect(back, nil), nil
	}
	if fs, ok := fieldError(err, c.form, withParams(amountParams, map[string]string{"description": "description"})); ok {
		c.v.Error = "Nothing was transferred: " + fs.Errors[firstKey(fs.Errors)]
		return s.beneficiaryView(c, apierr.As(err).Kind.Status(), formState{}, fs)
	}
	if err != nil {
		return nil, err
	}
	return redirect(back, nil), nil
}

// --- payment orders and distributions (read only)

func (s *Service) paymentOrdersPage(c *call) (*httpapi.Response, error) {
	st, p, err := listFilter(c, beneficiaries.OrderStatuses)
	if err != nil {
		return nil, err
	}
	items, next, err := s.beneficiaries.Orders(c.ctx(), c.account(), beneficiaries.OrderFilter{Status: string(st)}, p)
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Settlement payment orders", "beneficiaries"
	c.v.Data = map[string]any{"Items": items, "Statuses": beneficiaries.OrderStatuses, "Status": string(st), "Next": next,
		"NextQuery": nextStatus(string(st), next)}
	return render(http.StatusOK, "paymentorders", c.v, nil)
}

func (s *Service) paymentOrderPage(c *call) (*httpapi.Response, error) {
	o, err := s.beneficiaries.Order(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	h := []historyRow{{o.CreatedAt, "Created: " + formatAmount(o.Amount.Value, o.Amount.Currency) + " reserved from the beneficiary's balance"}}
	if o.PaidAt != nil {
		h = append(h, historyRow{*o.PaidAt, "Paid by the bank to the beneficiary's account"})
	}
	if o.FailedAt != nil {
		h = append(h, historyRow{*o.FailedAt, "Failed (" + o.FailureReason + "): the amount went back to the beneficiary"})
	}
	c.v.Title, c.v.Nav = "Payment order "+o.ID, "beneficiaries"
	c.v.Data = map[string]any{"O": o, "History": h}
	return render(http.StatusOK, "paymentorder", c.v, nil)
}

func (s *Service) distributionsPage(c *call) (*httpapi.Response, error) {
	st, p, err := listFilter(c, beneficiaries.DistStatuses)
	if err != nil {
		return nil, err
	}
	items, next, err := s.beneficiaries.Distributions(c.ctx(), c.account(), beneficiaries.DistFilter{Status: string(st)}, p)
	if err != nil {
		return nil, err
	}
	bal, err := s.beneficiaries.Balance(c.ctx(), c.account())
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Distributions", "beneficiaries"
	c.v.Data = map[string]any{"Items": items, "Statuses": beneficiaries.DistStatuses, "Status": string(st), "Next": next,
		"NextQuery": nextStatus(string(st), next), "Balances": bal}
	return render(http.StatusOK, "distributions", c.v, nil)
}

func (s *Service) distributionPage(c *call) (*httpapi.Response, error) {
	d, err := s.beneficiaries.DistributionByID(c.ctx(), c.account(), c.r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	c.v.Title, c.v.Nav = "Distribution "+d.ID, "beneficiaries"
	c.v.Data = map[string]any{"D": d}
	return render(http.StatusOK, "distribution", c.v, nil)
}
