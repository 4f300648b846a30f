package checkout

import (
	"context"

	"github.com/paygate/paygate/shared/app"
)

// FromDeps builds the service for a function group. Deployed functions
// (store dynamodb outside the local environment) must get
// SESSION_SIGNING_SECRET; local runs may use the store's generated secret.
func FromDeps(d *app.Deps) (*Service, error) {
	allowGenerated := d.Config.Store != "dynamodb" || d.Config.Environment == "local"
	return Open(context.Background(), d.Store, d.Config.Getenv, allowGenerated)
}
