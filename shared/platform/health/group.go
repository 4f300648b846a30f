package health

import "github.com/paygate/paygate/shared/platform/registry"

// HealthGroup is the HealthFunction: liveness and the OpenAPI document, no
// data. It is also API Gateway's catch-all, so a path no group declares gets
// the documented 404 body; that costs nothing here (no store, no AWS SDK).
var HealthGroup = registry.Group{
	Function: "HealthFunction", Dir: "health", OpenAPI: "paths-platform.json", CatchAll: true,
	Routes: []registry.Route{
		{Method: "GET", Path: "/health"},
		{Method: "GET", Path: "/openapi.json"},
	},
}

// Area is the health area: no tables, no keys.
var Area = registry.Area{Name: "health", Groups: []registry.Group{HealthGroup}}
