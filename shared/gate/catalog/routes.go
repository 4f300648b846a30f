package catalog

import (
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/listing"
)

// Group is the GateCatalogFunction's routes (declared in CatalogGroup): each
// path with the agent prefix of the spec's endpoint map, and without it (the
// integration flow's form, where the agent is the key's account).
func Group(repo *Repo) httpapi.Group {
	h := handlers{repo: repo}
	bind := map[string]httpapi.Handler{}
	for _, base := range []string{"/agent/{agent_id}", ""} {
		bind["GET "+base+"/product-types"] = h.types
		bind["GET "+base+"/product-categories"] = h.categories
		bind["GET "+base+"/products"] = h.products
		bind["GET "+base+"/products/{productId}"] = h.product
	}
	return CatalogGroup.Bind(bind)
}

type handlers struct{ repo *Repo }

// agent checks the agent_id path parameter, when the route has one: a UUID,
// and the caller's own account (another account's id answers 404, as a
// missing one does).
func agent(r *httpapi.Request) error {
	id := r.PathValue("agent_id")
	if id == "" {
		return nil // the short form: the mux never matches an empty segment
	}
	u, err := ids.ParseField("agent_id", id)
	if err != nil {
		return err
	}
	if u.String() != r.AccountID() {
		return apierr.NotFoundf("no such agent: %s", id)
	}
	return nil
}

func (h handlers) types(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := listParams(r)
	if err != nil {
		return nil, err
	}
	ts, next, err := h.repo.ProductTypes(r.HTTP.Context(), r.AccountID(), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindProductType, ts, next), nil
}

func (h handlers) categories(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := listParams(r)
	if err != nil {
		return nil, err
	}
	cs, next, err := h.repo.Categories(r.HTTP.Context(), r.AccountID(), p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindCategory, cs, next), nil
}

func (h handlers) products(r *httpapi.Request) (*httpapi.Response, error) {
	p, err := listParams(r)
	if err != nil {
		return nil, err
	}
	f, err := filter(r)
	if err != nil {
		return nil, err
	}
	ps, next, err := h.repo.Products(r.HTTP.Context(), r.AccountID(), f, p.Limit, p.Cursor)
	if err != nil {
		return nil, err
	}
	return httpapi.List(KindProduct, ps, next), nil
}

func (h handlers) product(r *httpapi.Request) (*httpapi.Response, error) {
	if err := agent(r); err != nil {
		return nil, err
	}
	id, err := positiveInt(r, "productId")
	if err != nil {
		return nil, err
	}
	p, err := h.repo.Product(r.HTTP.Context(), r.AccountID(), id)
	if err != nil {
		return nil, err
	}
	return httpapi.OK(KindProduct, p), nil
}

// listParams checks the agent, then the list convention's parameters.
func listParams(r *httpapi.Request) (listing.Params, error) {
	if err := agent(r); err != nil {
		return listing.Params{}, err
	}
	return r.ListParams()
}

func filter(r *httpapi.Request) (Filter, error) {
	var f Filter
	var err error
	if r.Query("category_id") != "" {
		if f.CategoryID, err = positiveInt(r, "category_id"); err != nil {
			return f, err
		}
	}
	if r.Query("product_type_id") != "" {
		if f.ProductTypeID, err = positiveInt(r, "product_type_id"); err != nil {
			return f, err
		}
	}
	switch t := r.Query("type"); t {
	case "", TypeRedeemCard, TypeDirectTransfer, TypeDirectTopUp:
		f.TypeCode = t
	default:
		return f, apierr.Invalidf("type", "type must be redeem_card, direct_transfer or direct_top_up")
	}
	if s := r.Query("region_code"); s != "" {
		if !validRegion(s) {
			return f, apierr.Invalidf("region_code", "region_code must be 2 to 16 upper-case letters, digits or _ (e.g. US, GLOBAL)")
		}
		f.RegionCode = s
	}
	switch s := r.Query("is_active"); s {
	case "":
	case "true", "false":
		v := s == "true"
		f.IsActive = &v
	default:
		return f, apierr.Invalidf("is_active", "is_active must be true or false")
	}
	return f, nil
}

// positiveInt parses a path or query parameter that holds an integer id,
// strictly (ids.ParseInt): "/products/+311" and "/products/0311" are 400s,
// never product 311.
func positiveInt(r *httpapi.Request, name string) (int64, error) {
	s := r.PathValue(name)
	if s == "" {
		s = r.Query(name)
	}
	return ids.ParseInt(name, s)
}
