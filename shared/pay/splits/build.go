package splits

import (
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// BuildSplitRequests builds the SplitRequestsFunction.
func BuildSplitRequests(d *app.Deps) (httpapi.Group, error) {
	return New(Config{Store: d.Store, Clock: d.Clock}).Group(), nil
}
