// Command hellosdk is hello world with the AWS SDK's DynamoDB and SQS
// packages linked and nothing else: its cold start over hello's is what the
// SDK's own package initialisation costs (generated schemas, endpoint
// tables), the floor of any function that talks to DynamoDB and SQS, which
// no code of ours can make lazy.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	_ "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	_ "github.com/aws/aws-sdk-go-v2/service/sqs"
)

func main() {
	lambda.Start(func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: `{"hello":"world"}`}, nil
	})
}
