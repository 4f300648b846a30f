package catalog_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func build(d *app.Deps) (httpapi.Group, error) { return catalog.Group(catalog.NewRepo(d.Store)), nil }

// demoEnv is a server whose sandbox account holds the demo catalog.
func demoEnv(t *testing.T) *apitest.Env {
	e := apitest.New(t, build)
	b, err := os.ReadFile("../../../infra/democatalog/demo.json")
	require.NoError(t, err)
	f, err := catalog.ParseFile(b)
	require.NoError(t, err)
	require.NoError(t, catalog.NewRepo(e.Deps.Store).Load(context.Background(), e.Account.ID, f))
	return e
}

type productList struct {
	Data       []map[string]any `json:"data"`
	HasMore    bool             `json:"has_more"`
	NextCursor string           `json:"next_cursor"`
}

func list(t *testing.T, e *apitest.Env, path string) productList {
	t.Helper()
	r := e.Do("GET", path, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var l productList
	r.JSON(t, &l)
	return l
}

func ids(l productList) []float64 {
	out := make([]float64, len(l.Data))
	for i, p := range l.Data {
		out[i] = p["id"].(float64)
	}
	return out
}

func TestBothPathForms(t *testing.T) {
	e := demoEnv(t)
	for _, base := range []string{"", "/agent/" + e.Account.ID} {
		types := list(t, e, base+"/product-types")
		require.Len(t, types.Data, 3)
		require.Equal(t, "redeem_card", types.Data[0]["code"])
		cats := list(t, e, base+"/product-categories")
		require.Len(t, cats.Data, 7)
		require.Nil(t, cats.Data[0]["parent_id"])
		require.Equal(t, float64(1), cats.Data[1]["parent_id"])
		prods := list(t, e, base+"/products?limit=100")
		require.Len(t, prods.Data, 13)
		require.False(t, prods.HasMore)

		r := e.Do("GET", base+"/products/101", nil)
		require.Equal(t, 200, r.Status)
		p := r.Map(t)
		require.Equal(t, "20.00", p["price"])
		require.Nil(t, p["step"])
		require.Equal(t, "redeem_card", p["product_type_code"])

		r = e.Do("GET", base+"/products/311", nil)
		require.Equal(t, 200, r.Status)
		p = r.Map(t)
		require.Nil(t, p["price"])
		require.Equal(t, []any{"5.00", "500.00", "1.00"}, []any{p["min_amount"], p["max_amount"], p["step"]})
		fields := p["customer_account"].([]any)
		require.Equal(t, "steam_login", fields[0].(map[string]any)["name"])
		require.Equal(t, true, fields[0].(map[string]any)["required"])
		require.Equal(t, false, fields[1].(map[string]any)["required"])
	}
	// JPY has no decimals.
	require.Equal(t, "5000", e.Do("GET", "/products/121", nil).Map(t)["price"])
}

func TestAgentOfAnotherAccountIs404(t *testing.T) {
	e := demoEnv(t)
	other, _ := e.NewAccount(accounts.Test)
	missing := "123e4567-e89b-12d3-a456-426614174000"
	for _, agent := range []string{other.ID, missing} {
		for _, p := range []string{"/product-types", "/product-categories", "/products", "/products/101"} {
			r := e.Do("GET", "/agent/"+agent+p, nil)
			require.Equal(t, 404, r.Status, p)
			require.Equal(t, "resource_missing", r.Err(t)["code"])
		}
	}
	// The other account's key sees its own (empty) catalog, not ours.
	_, otherKey := e.NewAccount(accounts.Test)
	require.Equal(t, 404, e.DoKey(otherKey, "GET", "/products/101", nil).Status)
}

func TestBadInput(t *testing.T) {
	e := demoEnv(t)
	cases := []struct{ path, param string }{
		{"/agent/not-a-uuid/products", "agent_id"},
		{"/agent/123/product-types", "agent_id"},
		{"/agent/not-a-uuid/products/101", "agent_id"},
		{"/products/abc", "productId"},
		{"/products/1.5", "productId"},
		{"/products/-3", "productId"},
		{"/agent/" + e.Account.ID + "/products/x", "productId"},
		{"/products?category_id=x", "category_id"},
		{"/products?product_type_id=0", "product_type_id"},
		{"/products?type=voucher", "type"},
		{"/products?region_code=us", "region_code"},
		{"/products?is_active=yes", "is_active"},
		{"/products?limit=0", "limit"},
		{"/products?limit=101", "limit"},
		{"/products?cursor=%21%21", "cursor"},
		// The string rule and duplicate parameters (issue 8).
		{"/products?region_code=U%00S", "region_code"},
		{"/products?region_code=%E2%80%AEUS", "region_code"},
		{"/products?region_code=U%ffS", "region_code"},
		{"/products?type=redeem_card&type=direct_top_up", "type"},
		{"/products/101%00", "productId"},
		{"/agent/%E2%81%A6" + e.Account.ID + "/products", "agent_id"},
	}
	for _, c := range cases {
		r := e.Do("GET", c.path, nil)
		require.Equal(t, 400, r.Status, c.path)
		require.Equal(t, c.param, r.Err(t)["param"], c.path)
	}
}

// TestStrictPathIDs: an id has one spelling. Every other way to write
// product 311 (sign, leading zeros, spaces, a fraction, an exponent) and an
// int64 overflow are 400s naming the parameter, never product 311; a UUID
// agent_id is accepted in lower case only.
func TestStrictPathIDs(t *testing.T) {
	e := demoEnv(t)
	require.Equal(t, 200, e.Do("GET", "/products/311", nil).Status)
	for _, id := range []string{"+311", "%2B311", "0311", "00311", "%20311", "311%20", "311.0", "3.11e2", "0x137",
		"311%00", "0", "9223372036854775808", "99999999999999999999", "%EF%BC%93%EF%BC%91%EF%BC%91"} {
		for _, base := range []string{"", "/agent/" + e.Account.ID} {
			r := e.Do("GET", base+"/products/"+id, nil)
			require.Equal(t, 400, r.Status, "%s: %s", id, r.Body)
			require.Equal(t, "productId", r.Err(t)["param"], id)
		}
	}
	require.Equal(t, 404, e.Do("GET", "/products/9223372036854775807", nil).Status, "the largest id parses, and is missing")
	for _, q := range []string{"category_id=%2B1", "category_id=01", "product_type_id=1.0", "product_type_id=%201"} {
		r := e.Do("GET", "/products?"+q, nil)
		require.Equal(t, 400, r.Status, q)
	}
	upper := strings.ToUpper(e.Account.ID)
	r := e.Do("GET", "/agent/"+upper+"/products/311", nil)
	require.Equal(t, 400, r.Status, "%s", r.Body)
	require.Equal(t, "agent_id", r.Err(t)["param"])
	require.Contains(t, r.Err(t)["message"], "lower case")
	require.Equal(t, 200, e.Do("GET", "/agent/"+e.Account.ID+"/products/311", nil).Status)
}

func TestUnknownProduct(t *testing.T) {
	e := demoEnv(t)
	for _, p := range []string{"/products/999", "/agent/" + e.Account.ID + "/products/999"} {
		r := e.Do("GET", p, nil)
		require.Equal(t, 404, r.Status)
		require.Equal(t, "resource_missing", r.Err(t)["code"])
	}
	// Inactive products are still readable, marked inactive.
	require.Equal(t, false, e.Do("GET", "/products/133", nil).Map(t)["is_active"])
}

func TestFilters(t *testing.T) {
	e := demoEnv(t)
	cases := map[string][]float64{
		"/products?category_id=2":                        {101, 102, 103, 311},
		"/products?product_type_id=3":                    {301, 302, 311},
		"/products?type=direct_transfer":                 {201},
		"/products?type=redeem_card&region_code=US":      {112, 131, 133},
		"/products?is_active=false":                      {133},
		"/products?region_code=US&is_active=true":        {112, 131, 302},
		"/products?category_id=5&is_active=true":         {131, 132},
		"/products?region_code=ZZ":                       {},
		"/products?category_id=2&product_type_id=1":      {101, 102, 103},
		"/products?product_type_id=1&type=direct_top_up": {},
	}
	for path, want := range cases {
		require.Equal(t, want, ids(list(t, e, path)), path)
	}
}

func TestPaging(t *testing.T) {
	e := demoEnv(t)
	var got []float64
	path := "/agent/" + e.Account.ID + "/products?limit=4"
	for pages := 0; ; pages++ {
		require.Less(t, pages, 10)
		l := list(t, e, path)
		require.LessOrEqual(t, len(l.Data), 4)
		got = append(got, ids(l)...)
		if !l.HasMore {
			require.Empty(t, l.NextCursor)
			break
		}
		require.NotEmpty(t, l.NextCursor)
		path = "/agent/" + e.Account.ID + "/products?limit=4&cursor=" + l.NextCursor
	}
	require.Equal(t, []float64{101, 102, 103, 111, 112, 121, 131, 132, 133, 201, 301, 302, 311}, got)

	// Filters apply across pages: 10 active redeem cards and transfers, in pages of 3.
	got = nil
	path = "/products?is_active=true&limit=3&type=redeem_card"
	for {
		l := list(t, e, path)
		got = append(got, ids(l)...)
		if !l.HasMore {
			break
		}
		require.Len(t, l.Data, 3)
		path = "/products?is_active=true&limit=3&type=redeem_card&cursor=" + l.NextCursor
	}
	require.Equal(t, []float64{101, 102, 103, 111, 112, 121, 131, 132}, got)

	// An exactly full last page says there is no more.
	l := list(t, e, "/products?type=direct_top_up&limit=3")
	require.Len(t, l.Data, 3)
	require.False(t, l.HasMore)

	cats := list(t, e, "/product-categories?limit=5")
	require.True(t, cats.HasMore)
	rest := list(t, e, "/product-categories?limit=5&cursor="+cats.NextCursor)
	require.Len(t, rest.Data, 2)
	require.False(t, rest.HasMore)
}

func TestEmptyCatalogAndReload(t *testing.T) {
	e := apitest.New(t, build)
	require.Empty(t, list(t, e, "/products").Data)
	require.Empty(t, list(t, e, "/product-types").Data)

	repo := catalog.NewRepo(e.Deps.Store)
	b, err := os.ReadFile("../../../infra/democatalog/demo.json")
	require.NoError(t, err)
	f, err := catalog.ParseFile(b)
	require.NoError(t, err)
	ctx := context.Background()
	res, err := repo.Sync(ctx, e.Account.ID, f)
	require.NoError(t, err)
	require.Equal(t, catalog.LoadResult{Written: 3 + 7 + 13}, res)
	res, err = repo.Sync(ctx, e.Account.ID, f)
	require.NoError(t, err)
	require.Equal(t, catalog.LoadResult{Unchanged: 23}, res, "loading the same file again changes nothing")

	// A smaller file replaces the catalog: dropped products disappear.
	f.Products = f.Products[:2]
	f.Products[1].Name = "Renamed"
	res, err = repo.Sync(ctx, e.Account.ID, f)
	require.NoError(t, err)
	require.Equal(t, catalog.LoadResult{Written: 1, Unchanged: 11, Deleted: 11}, res)
	require.Equal(t, []float64{101, 102}, ids(list(t, e, "/products")))
	require.Equal(t, "Renamed", e.Do("GET", "/products/102", nil).Map(t)["name"])
	require.Equal(t, 404, e.Do("GET", "/products/311", nil).Status)
}
