package catalog

import (
	"context"
	"encoding/json"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// Filter narrows a product list; zero fields match everything.
type Filter struct {
	CategoryID    int64
	ProductTypeID int64
	TypeCode      string
	RegionCode    string
	IsActive      *bool
}

func (f Filter) match(p *Product) bool {
	return (f.CategoryID == 0 || p.CategoryID == f.CategoryID) &&
		(f.ProductTypeID == 0 || p.ProductTypeID == f.ProductTypeID) &&
		(f.TypeCode == "" || p.TypeCode == f.TypeCode) &&
		(f.RegionCode == "" || p.RegionCode == f.RegionCode) &&
		(f.IsActive == nil || p.IsActive == *f.IsActive)
}

// Products lists accountID's products by id, filtered while paging.
func (r *Repo) Products(ctx context.Context, accountID string, f Filter, limit int, cursor string) ([]Product, string, error) {
	q := store.Query{Table: store.TableCatalog, PK: partition(accountID), Prefix: prefixProduct, Cursor: cursor}
	return listing.Collect(ctx, r.st, q, limit, scanMax, func(it store.Item) (Product, bool, error) {
		var p Product
		if err := p.UnmarshalJSON(it.Data); err != nil {
			return p, false, apierr.Wrap("catalog.Products", apierr.Internal, err)
		}
		return p, f.match(&p), nil
	})
}

// ProductTypes lists accountID's product types by id.
func (r *Repo) ProductTypes(ctx context.Context, accountID string, limit int, cursor string) ([]ProductType, string, error) {
	return listAll[ProductType](ctx, r.st, accountID, prefixType, limit, cursor)
}

// Categories lists accountID's categories by id.
func (r *Repo) Categories(ctx context.Context, accountID string, limit int, cursor string) ([]Category, string, error) {
	return listAll[Category](ctx, r.st, accountID, prefixCategory, limit, cursor)
}

func listAll[T any](ctx context.Context, st store.Store, accountID, prefix string, limit int, cursor string) ([]T, string, error) {
	q := store.Query{Table: store.TableCatalog, PK: partition(accountID), Prefix: prefix, Cursor: cursor}
	return listing.Collect(ctx, st, q, limit, scanMax, func(it store.Item) (T, bool, error) {
		var v T
		if err := json.Unmarshal(it.Data, &v); err != nil {
			return v, false, apierr.Wrap("catalog.list", apierr.Internal, err)
		}
		return v, true, nil
	})
}
