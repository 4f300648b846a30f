package sqsqueue

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/shared/queue"
)

// The SQS limits, checked before the call so that a misuse is queue.ErrInvalid
// here exactly as in boltqueue (which keeps a copy of these checks).
const (
	maxBody       = 256 << 10
	maxDelay      = 15 * time.Minute
	maxVisibility = 12 * time.Hour
	maxWait       = 20 * time.Second
	maxBatch      = 10
)

// seconds rounds d up to whole seconds, the unit of the SQS API: never hiding
// or waiting for less than asked is the safe side.
func seconds(d time.Duration) int32 {
	return int32((d + time.Second - 1) / time.Second)
}

func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty queue name", queue.ErrInvalid)
	}
	return nil
}

// checkBody accepts what SQS accepts in a message body: 1..256 KiB of XML
// characters (valid UTF-8 without most control characters).
func checkBody(body []byte) error {
	if len(body) == 0 || len(body) > maxBody {
		return fmt.Errorf("%w: body size %d not in 1..%d", queue.ErrInvalid, len(body), maxBody)
	}
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("%w: body is not UTF-8 at byte %d", queue.ErrInvalid, i)
		}
		if !xmlChar(r) {
			return fmt.Errorf("%w: body has character %U at byte %d", queue.ErrInvalid, r, i)
		}
		i += n
	}
	return nil
}

// xmlChar is the XML 1.0 Char production, the set SQS allows in bodies.
func xmlChar(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}

func checkDelay(d time.Duration) error {
	if d < 0 || d > maxDelay {
		return fmt.Errorf("%w: delay %s not in 0..%s", queue.ErrInvalid, d, maxDelay)
	}
	return nil
}

// checkVisibility: 0 is allowed only for ChangeVisibility (release now); a
// receive with 0 would leave the message visible, which SQS reads as "use
// the queue default" instead.
func checkVisibility(d time.Duration, allowZero bool) error {
	if d < 0 || d > maxVisibility || (d == 0 && !allowZero) {
		return fmt.Errorf("%w: visibility %s out of range", queue.ErrInvalid, d)
	}
	return nil
}

func checkReceive(max int, visibility, wait time.Duration) error {
	if max < 1 || max > maxBatch {
		return fmt.Errorf("%w: max %d not in 1..%d", queue.ErrInvalid, max, maxBatch)
	}
	if wait < 0 || wait > maxWait {
		return fmt.Errorf("%w: wait %s not in 0..%s", queue.ErrInvalid, wait, maxWait)
	}
	return checkVisibility(visibility, false)
}
