package queue

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// The SQS limits, checked by both adapters before they act so that a misuse
// is ErrInvalid on the embedded queue exactly as on SQS.
const (
	maxBody       = 256 << 10
	maxDelay      = 15 * time.Minute
	maxVisibility = 12 * time.Hour
	maxWait       = 20 * time.Second
	maxBatch      = 10
)

// CheckName refuses an empty queue name.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty queue name", ErrInvalid)
	}
	return nil
}

// CheckBody accepts what SQS accepts in a message body: 1..256 KiB of XML
// characters (valid UTF-8 without most control characters).
func CheckBody(body []byte) error {
	if len(body) == 0 || len(body) > maxBody {
		return fmt.Errorf("%w: body size %d not in 1..%d", ErrInvalid, len(body), maxBody)
	}
	for i := 0; i < len(body); {
		r, n := utf8.DecodeRune(body[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("%w: body is not UTF-8 at byte %d", ErrInvalid, i)
		}
		if !xmlChar(r) {
			return fmt.Errorf("%w: body has character %U at byte %d", ErrInvalid, r, i)
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

// CheckDelay: 0 to 15 minutes.
func CheckDelay(d time.Duration) error {
	if d < 0 || d > maxDelay {
		return fmt.Errorf("%w: delay %s not in 0..%s", ErrInvalid, d, maxDelay)
	}
	return nil
}

// CheckVisibility: 0 is allowed only for ChangeVisibility (release now); a
// receive with 0 would leave the message visible, which SQS reads as "use
// the queue default" instead.
func CheckVisibility(d time.Duration, allowZero bool) error {
	if d < 0 || d > maxVisibility || (d == 0 && !allowZero) {
		return fmt.Errorf("%w: visibility %s out of range", ErrInvalid, d)
	}
	return nil
}

// CheckReceive: 1 to 10 messages, a wait of 0 to 20 s, a visibility as above.
func CheckReceive(max int, visibility, wait time.Duration) error {
	if max < 1 || max > maxBatch {
		return fmt.Errorf("%w: max %d not in 1..%d", ErrInvalid, max, maxBatch)
	}
	if wait < 0 || wait > maxWait {
		return fmt.Errorf("%w: wait %s not in 0..%s", ErrInvalid, wait, maxWait)
	}
	return CheckVisibility(visibility, false)
}
