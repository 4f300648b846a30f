package merchants

import (
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Group is the MerchantsFunction's routes (declared in MerchantsGroup).
func Group(repo *accounts.Repo) httpapi.Group {
	return MerchantsGroup.Bind(map[string]httpapi.Handler{
		"GET /v1/merchants/me": func(r *httpapi.Request) (*httpapi.Response, error) {
			a, err := repo.Get(r.HTTP.Context(), r.AccountID())
			if err != nil {
				return nil, err
			}
			return httpapi.OK(Kind, FromAccount(a)), nil
		},
	})
}
