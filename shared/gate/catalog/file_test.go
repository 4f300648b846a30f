package catalog

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
)

const demoPath = "../../../infra/democatalog/demo.json"

func TestDemoCatalogIsValid(t *testing.T) {
	b, err := os.ReadFile(demoPath)
	require.NoError(t, err)
	f, err := ParseFile(b)
	require.NoError(t, err)
	var active, inactive, ranges int
	regions := map[string]bool{}
	for _, p := range f.Products {
		if p.IsActive {
			active++
		} else {
			inactive++
		}
		if p.IsRange() {
			ranges++
		}
		regions[p.RegionCode] = true
	}
	require.GreaterOrEqual(t, active, 10)
	require.Equal(t, 1, inactive)
	require.GreaterOrEqual(t, ranges, 2)
	require.GreaterOrEqual(t, len(regions), 4)
}

// base is a valid one-product file that each case breaks in one place.
func base() map[string]any {
	return map[string]any{
		"categories": []any{map[string]any{"id": 1, "name": "Gaming", "slug": "gaming", "parent_id": nil}},
		"products": []any{
			map[string]any{"id": 1, "name": "Card", "slug": "card", "category_id": 1, "product_type_id": 1,
				"region_code": "US", "currency_code": "USD", "is_active": true, "price": "10.00"},
			map[string]any{"id": 2, "name": "Top-up", "slug": "top-up", "category_id": 1, "product_type_id": 3,
				"region_code": "GLOBAL", "currency_code": "USD", "is_active": true,
				"min_amount": "5.00", "max_amount": "100.00", "step": "1.00",
				"customer_account": []any{map[string]any{"name": "steam_login", "label": "Login", "required": true, "pattern": "[a-z]+"}}},
		},
	}
}

func product(f map[string]any, i int) map[string]any {
	return f["products"].([]any)[i].(map[string]any)
}

func parse(t *testing.T, f map[string]any) (*File, error) {
	t.Helper()
	b, err := json.Marshal(f)
	require.NoError(t, err)
	return ParseFile(b)
}

func TestParseFileValid(t *testing.T) {
	f, err := parse(t, base())
	require.NoError(t, err)
	require.Equal(t, StandardTypes, f.ProductTypes) // defaulted
	require.Len(t, f.Products, 2)
	require.Equal(t, int64(1000), f.Products[0].Price)
	require.False(t, f.Products[0].IsRange())
	p := f.Products[1]
	require.True(t, p.IsRange())
	require.Equal(t, TypeDirectTopUp, p.TypeCode)
	require.Equal(t, []int64{500, 10000, 100}, []int64{p.MinAmount, p.MaxAmount, p.Step})
}

func TestParseFileRejects(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(f map[string]any)
		param string
	}{
		{"range without step", func(f map[string]any) { delete(product(f, 1), "step") }, "products[1].step"},
		{"fixed without price", func(f map[string]any) { delete(product(f, 0), "price") }, "products[0].price"},
		{"price and range", func(f map[string]any) { product(f, 0)["step"] = "1.00" }, "products[0].price"},
		{"zero price", func(f map[string]any) { product(f, 0)["price"] = "0.00" }, "products[0].price"},
		{"duplicate product id", func(f map[string]any) { product(f, 1)["id"] = 1 }, "products[1].id"},
		{"duplicate category id", func(f map[string]any) {
			f["categories"] = append(f["categories"].([]any), map[string]any{"id": 1, "name": "X", "slug": "x"})
		}, "categories[1].id"},
		{"unknown type id", func(f map[string]any) { product(f, 0)["product_type_id"] = 9 }, "products[0].product_type_id"},
		{"unknown type code", func(f map[string]any) {
			f["product_types"] = []any{map[string]any{"id": 4, "code": "gift", "name": "Gift"}}
		}, "product_types[0].code"},
		{"type code mismatch", func(f map[string]any) { product(f, 0)["product_type_code"] = "direct_top_up" }, "products[0].product_type_code"},
		{"too many decimals USD", func(f map[string]any) { product(f, 0)["price"] = "10.001" }, "products[0].price"},
		{"decimals on JPY", func(f map[string]any) {
			product(f, 0)["currency_code"] = "JPY"
			product(f, 0)["price"] = "500.5"
		}, "products[0].price"},
		{"exponent form", func(f map[string]any) { product(f, 0)["price"] = "1e3" }, "products[0].price"},
		{"negative amount", func(f map[string]any) { product(f, 1)["min_amount"] = "-5.00" }, "products[1].min_amount"},
		{"unknown currency", func(f map[string]any) { product(f, 0)["currency_code"] = "XYZ" }, "products[0].currency_code"},
		{"max below min", func(f map[string]any) { product(f, 1)["max_amount"] = "4.00" }, "products[1].max_amount"},
		{"bound off step", func(f map[string]any) { product(f, 1)["max_amount"] = "99.50" }, "products[1].max_amount"},
		{"unknown category", func(f map[string]any) { product(f, 0)["category_id"] = 7 }, "products[0].category_id"},
		{"missing parent", func(f map[string]any) {
			f["categories"].([]any)[0].(map[string]any)["parent_id"] = 5
		}, "categories[0].parent_id"},
		{"bad slug", func(f map[string]any) { product(f, 0)["slug"] = "Bad Slug" }, "products[0].slug"},
		{"bad region", func(f map[string]any) { product(f, 0)["region_code"] = "us" }, "products[0].region_code"},
		{"top-up with a price", func(f map[string]any) {
			p := product(f, 1)
			delete(p, "min_amount")
			delete(p, "max_amount")
			delete(p, "step")
			p["price"] = "5.00"
		}, "products[1].price"},
		{"range on a card", func(f map[string]any) {
			p := product(f, 0)
			delete(p, "price")
			p["min_amount"], p["max_amount"], p["step"] = "1.00", "2.00", "1.00"
		}, "products[0].step"},
		{"top-up without fields", func(f map[string]any) { product(f, 1)["customer_account"] = []any{} }, "products[1].customer_account"},
		{"fields on a card", func(f map[string]any) {
			product(f, 0)["customer_account"] = product(f, 1)["customer_account"]
		}, "products[0].customer_account"},
		{"bad pattern", func(f map[string]any) {
			product(f, 1)["customer_account"] = []any{map[string]any{"name": "login", "label": "L", "pattern": "("}}
		}, "products[1].customer_account[0].pattern"},
		{"duplicate field", func(f map[string]any) {
			fl := map[string]any{"name": "login", "label": "L"}
			product(f, 1)["customer_account"] = []any{fl, fl}
		}, "products[1].customer_account[1].name"},
		{"unknown product field", func(f map[string]any) { product(f, 0)["colour"] = "red" }, "products[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := base()
			c.edit(f)
			_, err := parse(t, f)
			require.Error(t, err)
			e := apierr.As(err)
			require.Equal(t, apierr.Invalid, e.Kind, err.Error())
			require.Equal(t, c.param, e.Param, err.Error())
		})
	}
}

func TestParseFileNotJSON(t *testing.T) {
	_, err := ParseFile([]byte("{"))
	require.True(t, apierr.Is(err, apierr.Invalid))
	_, err = ParseFile([]byte(`{"produkts": []}`))
	require.True(t, apierr.Is(err, apierr.Invalid))
}

func TestCheckAmountAndAccount(t *testing.T) {
	f, err := parse(t, base())
	require.NoError(t, err)
	card, top := f.Products[0], f.Products[1]
	require.Error(t, card.CheckAmount("amount", 1000))
	require.NoError(t, top.CheckAmount("amount", 500))
	require.NoError(t, top.CheckAmount("amount", 10000))
	for _, bad := range []int64{499, 10100, 550} {
		e := apierr.As(top.CheckAmount("topup_request.amount", bad))
		require.Equal(t, "topup_request.amount", e.Param)
		require.True(t, strings.HasPrefix(e.Code.Name(), "amount_"), e.Code.Name())
	}
	const field = "topup_request.customer_account"
	require.NoError(t, top.CheckCustomerAccount(field, map[string]any{"steam_login": "gamer"}))
	for acct, param := range map[*map[string]any]string{
		{}:                                 field + ".steam_login",
		{"steam_login": ""}:                field + ".steam_login",
		{"steam_login": 5}:                 field + ".steam_login",
		{"steam_login": "Gamer!"}:          field + ".steam_login",
		{"steam_login": "g", "email": "x"}: field + ".email",
	} {
		require.Equal(t, param, apierr.As(top.CheckCustomerAccount(field, *acct)).Param, *acct)
	}
}
