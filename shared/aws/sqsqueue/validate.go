package sqsqueue

import "time"

// seconds rounds d up to whole seconds, the unit of the SQS API: never hiding
// or waiting for less than asked is the safe side.
func seconds(d time.Duration) int32 {
	return int32((d + time.Second - 1) / time.Second)
}
