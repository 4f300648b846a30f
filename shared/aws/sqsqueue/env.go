package sqsqueue

import (
	"strings"

	"github.com/paygate/paygate/shared/queue"
)

// EnvName is the environment variable holding the URL of a logical queue:
// "QUEUE_" + upper(name, '-' -> '_') + "_URL", e.g. QUEUE_WEBHOOKS_DLQ_URL.
func EnvName(name string) string {
	return "QUEUE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")) + "_URL"
}

// URLsFromEnv reads the URLs of the known queues and their DLQs. Unset ones
// are left out, so each function checks only the queues it uses (a missing
// one fails at use with queue.ErrInvalid).
func URLsFromEnv(getenv func(string) string) map[string]string {
	urls := map[string]string{}
	for _, base := range queue.Names {
		for _, name := range []string{base, queue.DLQName(base)} {
			if u := getenv(EnvName(name)); u != "" {
				urls[name] = u
			}
		}
	}
	return urls
}
