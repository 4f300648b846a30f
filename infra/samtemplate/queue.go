package samtemplate

// Queue is an SQS queue of the template.
type Queue struct {
	LogicalID string
	Name      string // QueueName as written (usually a !Sub)
	// DeadLetter is the logical id of the RedrivePolicy target ("" for none).
	DeadLetter        string
	MaxReceiveCount   int
	VisibilityTimeout int // seconds; SQS's default (30) when not set
	RetentionSeconds  int // MessageRetentionPeriod; SQS's default (4 days) when not set
}

// SQS defaults applied when the template leaves a property out.
const (
	defaultVisibility = 30
	defaultRetention  = 4 * 24 * 3600
)

// Queues returns the SQS queues, dead-letter queues included, sorted by
// logical id.
func (t *Template) Queues() []Queue {
	var out []Queue
	for _, r := range t.ResourcesOfType(TypeQueue) {
		p := r.Properties
		q := Queue{
			LogicalID:         r.LogicalID,
			Name:              Raw(p["QueueName"]),
			VisibilityTimeout: defaultVisibility,
			RetentionSeconds:  defaultRetention,
		}
		if n, ok := intOf(p["VisibilityTimeout"]); ok {
			q.VisibilityTimeout = n
		}
		if n, ok := intOf(p["MessageRetentionPeriod"]); ok {
			q.RetentionSeconds = n
		}
		redrive := mapOf(p["RedrivePolicy"])
		q.DeadLetter = RefTarget(redrive["deadLetterTargetArn"])
		q.MaxReceiveCount, _ = intOf(redrive["maxReceiveCount"])
		out = append(out, q)
	}
	return out
}
