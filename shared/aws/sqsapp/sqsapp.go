// Package sqsapp opens the SQS-backed queue for the functions that use one
// (app.WithQueue(sqsapp.Open)). It is apart from package awsapp so that the
// other functions do not link the SQS client and pay for it at cold start.
package sqsapp

import (
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/paygate/paygate/shared/aws/awsapp"
	"github.com/paygate/paygate/shared/aws/sqsqueue"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// Open builds the queue from the QUEUE_*_URL variables.
func Open(cfg app.Config) (queue.Queue, error) {
	ac, err := awsapp.Config(cfg)
	if err != nil {
		return nil, err
	}
	client := sqs.NewFromConfig(ac, func(o *sqs.Options) {
		if cfg.SQSEndpoint != "" {
			o.BaseEndpoint = aws.String(cfg.SQSEndpoint)
		}
	})
	return sqsqueue.New(client, sqsqueue.URLsFromEnv(cfg.Getenv)), nil
}
