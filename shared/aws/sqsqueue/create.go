package sqsqueue

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/paygate/paygate/shared/queue"
)

// CreateQueues creates, for each logical name, the queue prefix+name and its
// DLQ prefix+DLQName(name), with a redrive policy of queue.MaxReceives. It
// returns the URL of every queue keyed by logical name (DLQs included), ready
// for New. Deployed stacks get their queues from the SAM template instead;
// this is for tests and local tools. Creating an existing queue with the
// same attributes is a no-op in SQS, so it is safe to repeat.
func CreateQueues(ctx context.Context, client *sqs.Client, names []string, prefix string) (map[string]string, error) {
	urls := make(map[string]string, 2*len(names))
	for _, name := range names {
		dlq := queue.DLQName(name)
		dlqURL, err := createQueue(ctx, client, prefix+dlq, nil)
		if err != nil {
			return nil, err
		}
		attrs, err := client.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{
			QueueUrl:       aws.String(dlqURL),
			AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return nil, fmt.Errorf("sqsqueue: arn of %s: %w", prefix+dlq, err)
		}
		policy, err := json.Marshal(map[string]string{
			"deadLetterTargetArn": attrs.Attributes[string(types.QueueAttributeNameQueueArn)],
			"maxReceiveCount":     strconv.Itoa(queue.MaxReceives),
		})
		if err != nil {
			return nil, err
		}
		url, err := createQueue(ctx, client, prefix+name, map[string]string{
			string(types.QueueAttributeNameRedrivePolicy): string(policy),
		})
		if err != nil {
			return nil, err
		}
		urls[name], urls[dlq] = url, dlqURL
	}
	return urls, nil
}

func createQueue(ctx context.Context, client *sqs.Client, name string, attrs map[string]string) (string, error) {
	out, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	if err != nil {
		return "", fmt.Errorf("sqsqueue: create queue %s: %w", name, err)
	}
	return aws.ToString(out.QueueUrl), nil
}
