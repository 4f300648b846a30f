package webhooks_test

import (
	"testing"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

func buildEndpoints(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).EndpointsRoutes(), nil
}

func buildEvents(d *app.Deps) (httpapi.Group, error) {
	return webhooks.New(d.Store, d.Clock).EventsRoutes(), nil
}

// both runs f over HTTP on the embedded store and on DynamoDB Local.
func both(t *testing.T, f func(t *testing.T, e *apitest.Env)) {
	t.Run("embedded", func(t *testing.T) {
		f(t, apitest.New(t, buildEndpoints, buildEvents))
	})
	t.Run("dynamodb", func(t *testing.T) {
		clock := &apitest.Clock{}
		f(t, apitest.NewWith(t, apitest.Options{Store: dynamotest.New(t, clock.Now), Clock: clock}, buildEndpoints, buildEvents))
	})
}
