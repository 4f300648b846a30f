// Command hello is the cold start baseline: the smallest aws-lambda-go
// function, built and run exactly like the real ones, so the benchmark can
// report their cold start as a ratio to it.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: `{"hello":"world"}`}, nil
	})
}
