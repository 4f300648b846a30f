package catalog

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildGateCatalog builds the GateCatalogFunction.
func BuildGateCatalog(d *app.Deps) (httpapi.Group, error) { return Group(NewRepo(d.Store)), nil }
