// Command gate-catalog is the GateCatalogFunction Lambda: the Gate API catalog.
package main

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateCatalog) }
