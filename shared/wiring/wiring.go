// Package wiring names every function group once: the Lambda main.go files
// start one builder each, and the local gateway starts them all.
package wiring

import (
	"github.com/paygate/paygate/shared/app"
	"github.com/paygate/paygate/shared/health"
	"github.com/paygate/paygate/shared/httpapi"
	"github.com/paygate/paygate/shared/merchants"
)

// Health builds the HealthFunction.
func Health(*app.Deps) (httpapi.Group, error) { return health.Group(), nil }

// Merchants builds the MerchantsFunction.
func Merchants(d *app.Deps) (httpapi.Group, error) { return merchants.Group(d.Accounts), nil }

// HTTP lists every HTTP function group, for the local gateway.
func HTTP() []app.HTTPBuilder {
	return []app.HTTPBuilder{Health, Merchants}
}

// SQS lists every queue consumer by logical function id and queue, for the
// local gateway's workers.
func SQS() []Consumer {
	return nil
}

// Consumer is a queue consumer function.
type Consumer struct {
	Function string // logical id in template.yaml
	Queue    string // logical queue name
	Build    app.SQSBuilder
}
