package prepaid

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildGateBalance builds the GateBalanceFunction.
func BuildGateBalance(d *app.Deps) (httpapi.Group, error) { return Group(New(d.Store, d.Clock)), nil }
