package merchants

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildMerchants builds the MerchantsFunction.
func BuildMerchants(d *app.Deps) (httpapi.Group, error) { return Group(d.Accounts), nil }
