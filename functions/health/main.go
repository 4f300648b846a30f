// Command health is the HealthFunction Lambda: GET /health, GET /openapi.json.
// Liveness calls no dependency, so this main wires the server itself instead
// of going through package app: the binary links no store and no AWS SDK, and
// its cold start stays that of a plain Go Lambda.
package main

import (
	"log/slog"
	"os"

	"github.com/aws/aws-lambda-go/lambda"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	lambda.Start(httpadapter.NewV2(httpapi.NewServer(httpapi.Config{Log: log}, health.Group())).ProxyWithContext)
}
