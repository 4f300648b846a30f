// Command gate-catalog is the GateCatalogFunction Lambda: the Gate API catalog.
package main

import (
	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/app"
)

func main() { app.StartHTTP(catalog.BuildGateCatalog, awsapp.Open) }
