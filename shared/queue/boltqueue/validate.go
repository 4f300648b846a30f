package boltqueue

import "time"

// ceilSeconds rounds d up to whole seconds: SQS counts visibility and delay in
// seconds, and never hiding a message for less than asked is the safe side.
func ceilSeconds(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
