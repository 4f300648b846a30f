package orders

import (
	"github.com/paygate/paygate/shared/domain/metadata"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// CreateOrder is the body of POST /orders (spec §2.6). Pointers tell an
// absent field from a zero one.
type CreateOrder struct {
	ProductID    *int64            `json:"product_id"`
	CurrencyCode *string           `json:"currency_code" maxlen:"3"` // optional; must match the product's (provider example)
	ExternalRef  *string           `json:"external_ref" maxlen:"64"`
	TopupRequest *TopUpRequest     `json:"topup_request"`
	Quantity     *int64            `json:"quantity"`
	Test         bool              `json:"test"`
	Metadata     map[string]string `json:"metadata" maxlen:"500" maxkey:"40"`
}

// TopUpRequest is the direct top-up part of an order.
type TopUpRequest struct {
	Amount          *string        `json:"amount" maxlen:"32"`
	CustomerAccount map[string]any `json:"customer_account"`
}

// validate checks what needs no product: every error names its field.
func (in *CreateOrder) validate() error {
	if in.ProductID == nil {
		return apierr.Missing("product_id")
	}
	if *in.ProductID <= 0 {
		return apierr.Invalidf("product_id", "product_id must be a positive integer")
	}
	if in.Quantity != nil && (*in.Quantity < 1 || *in.Quantity > MaxQuantity) {
		return apierr.Invalidf("quantity", "quantity must be an integer from 1 to %d", MaxQuantity)
	}
	if in.ExternalRef != nil {
		if err := checkExternalRef("external_ref", *in.ExternalRef); err != nil {
			return err
		}
	}
	return metadata.Check(in.Metadata)
}

// checkExternalRef: 1 to 64 characters of A-Z a-z 0-9 . _ - :
func checkExternalRef(param, s string) error {
	if s == "" || len(s) > MaxExternalRefLen {
		return apierr.Invalidf(param, "%s must be 1 to %d characters", param, MaxExternalRefLen)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == ':'
		if !ok {
			return apierr.Invalidf(param, "%s may hold only letters, digits and . _ - :", param)
		}
	}
	return nil
}

// priced is what an order costs, decided from the input and the product.
type priced struct {
	quantity        int64
	unitPrice       int64
	charge          int64
	customerAccount map[string]string
}

// price validates the input against the product and computes the charge.
func (in *CreateOrder) price(p *catalog.Product) (priced, error) {
	if !p.IsActive {
		return priced{}, apierr.New(CodeProductInactive, "product is not active and cannot be ordered")
	}
	if in.CurrencyCode != nil && *in.CurrencyCode != p.CurrencyCode {
		return priced{}, apierr.Invalidf("currency_code", "currency_code must be the product's currency, %s", p.CurrencyCode)
	}
	qty := int64(1)
	if in.Quantity != nil {
		qty = *in.Quantity
	}
	if p.TypeCode == catalog.TypeDirectTopUp {
		return in.priceTopUp(p, qty)
	}
	if in.TopupRequest != nil {
		return priced{}, apierr.Invalidf("topup_request", "topup_request is only for direct_top_up products; product %d is %s", p.ID, p.TypeCode)
	}
	if p.IsRange() || p.Price <= 0 {
		return priced{}, apierr.New(CodeProductNotOrderable, "product has no fixed price and is not a direct top-up")
	}
	charge, err := money.Mul(p.Price, qty)
	if err != nil {
		return priced{}, apierr.Invalidf("quantity", "price times quantity is out of range")
	}
	return priced{quantity: qty, unitPrice: p.Price, charge: charge}, nil
}

// priceTopUp: one top-up per order (quantity 1), the buyer's amount on the
// product's range and step, the vendor's customer_account fields.
func (in *CreateOrder) priceTopUp(p *catalog.Product, qty int64) (priced, error) {
	if in.TopupRequest == nil {
		return priced{}, apierr.Missing("topup_request")
	}
	if qty != 1 {
		return priced{}, apierr.Invalidf("quantity", "a direct_top_up order is for one top-up: quantity must be 1")
	}
	tr := in.TopupRequest
	if tr.Amount == nil {
		return priced{}, apierr.Missing("topup_request.amount")
	}
	amount, err := money.ParseDecimalField("topup_request.amount", *tr.Amount, p.Currency())
	if err != nil {
		return priced{}, err
	}
	if err := p.CheckAmount("topup_request.amount", amount); err != nil {
		return priced{}, err
	}
	acct := tr.CustomerAccount
	if acct == nil {
		acct = map[string]any{}
	}
	if err := p.CheckCustomerAccount("topup_request.customer_account", acct); err != nil {
		return priced{}, err
	}
	ca := make(map[string]string, len(acct))
	for k, v := range acct {
		if s, ok := v.(string); ok && s != "" {
			ca[k] = s
		}
	}
	return priced{quantity: 1, unitPrice: amount, charge: amount, customerAccount: ca}, nil
}
