// Package catalog is the Gate API catalog of one account: product types,
// categories and products (fixed-price or a range of amounts), loaded from a
// file by the operator and browsed by resellers.
package catalog

import (
	"bytes"
	"encoding/json"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/platform/apierr"
)

// Product type codes (provider notes: ids 1, 2, 3).
const (
	TypeRedeemCard     = "redeem_card"
	TypeDirectTransfer = "direct_transfer"
	TypeDirectTopUp    = "direct_top_up"
)

// Resource kinds for version changes.
const (
	KindProductType = "gate_product_type"
	KindCategory    = "gate_product_category"
	KindProduct     = "gate_product"
)

// ProductType is one kind of product.
type ProductType struct {
	ID   int64  `json:"id"`
	Code string `json:"code"`
	Name string `json:"name"`
}

// Category groups products; ParentID nests categories.
type Category struct {
	ID       int64  `json:"id"`
	Name     string `json:"name"`
	Slug     string `json:"slug"`
	ParentID *int64 `json:"parent_id"`
}

// AccountField is one field of a direct top-up's customer_account object, as
// the vendor needs it.
type AccountField struct {
	Name      string `json:"name"`
	Label     string `json:"label"`
	Required  bool   `json:"required"`
	Pattern   string `json:"pattern,omitempty"`    // optional regexp the value must match (whole value)
	MaxLength int    `json:"max_length,omitempty"` // optional; 0 means the default limit
}

// Product is one orderable product. Amounts are minor units of CurrencyCode:
// Price for fixed-price products (0 otherwise); MinAmount, MaxAmount and Step
// for range products (IsRange), where the buyer chooses the amount.
type Product struct {
	ID              int64
	Name            string
	Slug            string
	CategoryID      int64
	ProductTypeID   int64
	TypeCode        string
	RegionCode      string
	CurrencyCode    string
	Logo            string
	Description     string
	IsActive        bool
	Price           int64
	MinAmount       int64
	MaxAmount       int64
	Step            int64
	CustomerAccount []AccountField
	Metadata        map[string]string
}

// IsRange reports whether the buyer chooses the amount (min/max/step).
func (p *Product) IsRange() bool { return p.Price == 0 && p.Step > 0 }

// Currency is the product's currency (valid for every stored product).
func (p *Product) Currency() money.Currency {
	c, _ := money.ParseCurrency(p.CurrencyCode)
	return c
}

// productJSON is the public (and file) form of a product: amounts are
// DecimalAmount strings, null when they do not apply.
type productJSON struct {
	ID              int64             `json:"id"`
	Name            string            `json:"name"`
	Slug            string            `json:"slug"`
	CategoryID      int64             `json:"category_id"`
	ProductTypeID   int64             `json:"product_type_id"`
	TypeCode        string            `json:"product_type_code"`
	RegionCode      string            `json:"region_code"`
	CurrencyCode    string            `json:"currency_code"`
	Logo            string            `json:"logo"`
	Description     string            `json:"description"`
	IsActive        bool              `json:"is_active"`
	Price           *string           `json:"price"`
	MinAmount       *string           `json:"min_amount"`
	MaxAmount       *string           `json:"max_amount"`
	Step            *string           `json:"step"`
	CustomerAccount []AccountField    `json:"customer_account"`
	Metadata        map[string]string `json:"metadata"`
}

// MarshalJSON renders the public form.
func (p Product) MarshalJSON() ([]byte, error) {
	c := p.Currency()
	amt := func(v int64, on bool) *string {
		if !on {
			return nil
		}
		s := money.FormatDecimal(v, c)
		return &s
	}
	fields := p.CustomerAccount
	if fields == nil {
		fields = []AccountField{}
	}
	md := p.Metadata
	if md == nil {
		md = map[string]string{}
	}
	rng := p.IsRange()
	return json.Marshal(productJSON{
		ID: p.ID, Name: p.Name, Slug: p.Slug, CategoryID: p.CategoryID, ProductTypeID: p.ProductTypeID,
		TypeCode: p.TypeCode, RegionCode: p.RegionCode, CurrencyCode: p.CurrencyCode, Logo: p.Logo,
		Description: p.Description, IsActive: p.IsActive,
		Price: amt(p.Price, !rng), MinAmount: amt(p.MinAmount, rng), MaxAmount: amt(p.MaxAmount, rng), Step: amt(p.Step, rng),
		CustomerAccount: fields, Metadata: md,
	})
}

// UnmarshalJSON parses the public form, amounts included; errors are
// *apierr.Error naming the field. Cross-record rules (type and category ids)
// are checked by ParseFile.
func (p *Product) UnmarshalJSON(b []byte) error {
	var j productJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a typo in a catalog file must not pass silently
	if err := dec.Decode(&j); err != nil {
		return apierr.Invalidf("", "product is not valid: %v", err)
	}
	out := Product{
		ID: j.ID, Name: j.Name, Slug: j.Slug, CategoryID: j.CategoryID, ProductTypeID: j.ProductTypeID,
		TypeCode: j.TypeCode, RegionCode: j.RegionCode, CurrencyCode: j.CurrencyCode, Logo: j.Logo,
		Description: j.Description, IsActive: j.IsActive, CustomerAccount: j.CustomerAccount, Metadata: j.Metadata,
	}
	c, err := money.ParseCurrencyField("currency_code", j.CurrencyCode)
	if err != nil {
		return err
	}
	parse := func(field string, s *string, dst *int64) error {
		if s == nil {
			return nil
		}
		v, err := money.ParseDecimalField(field, *s, c)
		if err != nil {
			return err
		}
		*dst = v
		return nil
	}
	for _, f := range []struct {
		name string
		s    *string
		dst  *int64
	}{{"price", j.Price, &out.Price}, {"min_amount", j.MinAmount, &out.MinAmount}, {"max_amount", j.MaxAmount, &out.MaxAmount}, {"step", j.Step, &out.Step}} {
		if err := parse(f.name, f.s, f.dst); err != nil {
			return err
		}
	}
	if err := out.validateAmounts(j.Price != nil, j.MinAmount != nil || j.MaxAmount != nil || j.Step != nil); err != nil {
		return err
	}
	*p = out
	return nil
}

// validateAmounts enforces one pricing model: a positive price, or a range
// min <= max with a positive step that both bounds sit on.
func (p *Product) validateAmounts(hasPrice, hasRange bool) error {
	switch {
	case hasPrice && hasRange:
		return apierr.Invalidf("price", "a product has either price or min_amount/max_amount/step, not both")
	case hasPrice:
		if p.Price <= 0 {
			return apierr.Invalidf("price", "price must be greater than zero")
		}
		return nil
	case !hasRange:
		return apierr.Missing("price")
	}
	switch {
	case p.Step <= 0:
		return apierr.Invalidf("step", "a range product needs a step greater than zero")
	case p.MinAmount <= 0:
		return apierr.Invalidf("min_amount", "a range product needs a min_amount greater than zero")
	case p.MaxAmount < p.MinAmount:
		return apierr.Invalidf("max_amount", "max_amount must be at least min_amount")
	case p.MinAmount%p.Step != 0:
		return apierr.Invalidf("min_amount", "min_amount must be a multiple of step")
	case p.MaxAmount%p.Step != 0:
		return apierr.Invalidf("max_amount", "max_amount must be a multiple of step")
	}
	return nil
}
