package catalog

import (
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// CatalogGroup is the GateCatalogFunction: each catalog path in the spec's
// /agent/{agent_id} form and in the short form (the key's own account).
var CatalogGroup = registry.Group{
	Function: "GateCatalogFunction", Dir: "gate-catalog", OpenAPI: "paths-gate-catalog.json",
	Routes: catalogRoutes(),
	// Authenticating the key is a GetItem; the catalog is read by GetItem and
	// Query (one partition per account, never Scan).
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableCatalog, Actions: []string{"GetItem", "Query"}},
	},
}

func catalogRoutes() []registry.Route {
	var out []registry.Route
	for _, base := range []string{"/agent/{agent_id}", ""} {
		for _, p := range []string{"/product-types", "/product-categories", "/products", "/products/{productId}"} {
			out = append(out, registry.Route{Method: "GET", Path: base + p, Auth: httpapi.AuthSecret})
		}
	}
	return out
}

// Area is the gate catalog: one partition per account on the catalog table.
var Area = registry.Area{
	Name:   "gate/catalog",
	Groups: []registry.Group{CatalogGroup},
	Keys:   []registry.Key{{Table: store.TableCatalog, Prefix: partition(""), What: "an account's catalog (types, categories, products)"}},
}
