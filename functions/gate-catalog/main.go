// Command gate-catalog is the GateCatalogFunction Lambda: the Gate API catalog.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring/gatewire"
)

func main() { app.StartHTTP(gatewire.GateCatalog, awsapp.Open) }
