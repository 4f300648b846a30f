// Command health is the HealthFunction Lambda: GET /health, GET /openapi.json.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring"
)

func main() { app.StartHTTP(wiring.Health) }
