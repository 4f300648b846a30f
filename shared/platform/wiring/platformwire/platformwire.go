// Package platformwire builds the platform's function groups: health and
// merchant details. Each area's builders live in their own package so a
// function links only its own area (smaller binary, shorter cold start).
package platformwire

import (
	"github.com/paygate/paygate/shared/console/merchants"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Health builds the HealthFunction's routes (its Lambda main wires them
// without package app; the local gateway uses this builder).
func Health(*app.Deps) (httpapi.Group, error) { return health.Group(), nil }

// Merchants builds the MerchantsFunction.
func Merchants(d *app.Deps) (httpapi.Group, error) { return merchants.Group(d.Accounts), nil }
