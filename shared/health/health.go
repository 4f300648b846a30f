// Package health serves the liveness probe and the OpenAPI document. Liveness
// calls no dependency: it says the function runs, nothing more.
package health

import (
	"net/http"
	"time"

	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/openapi"
)

// Status is the liveness body.
type Status struct {
	Status  string    `json:"status"`
	Service string    `json:"service"`
	Time    time.Time `json:"time"`
}

// Group is the HealthFunction's routes.
func Group() httpapi.Group {
	return httpapi.Group{Name: "HealthFunction", Routes: []httpapi.Route{
		{Method: "GET", Path: "/health", Handler: func(r *httpapi.Request) (*httpapi.Response, error) {
			return httpapi.OK("", Status{Status: "ok", Service: "paygate", Time: r.Now.UTC().Truncate(time.Second)}), nil
		}},
		{Method: "GET", Path: "/openapi.json", Handler: func(r *httpapi.Request) (*httpapi.Response, error) {
			return httpapi.Raw(http.StatusOK, openapi.Document()), nil
		}},
	}}
}
