// Command health is the HealthFunction Lambda: GET /health, GET /openapi.json.
// Liveness calls no dependency, so it opens none.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartHTTP(wiring.Health, app.WithoutStore()) }
