// Package metadata is the one rule for the metadata every resource takes:
// a map of string keys to string values that the service stores and shows
// as sent and never reads (Stripe's limits, which the provider notes name).
package metadata

import (
	"unicode/utf8"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// The limits (the OpenAPI document's Metadata schema repeats them).
const (
	MaxKeys     = 50
	MaxKeyLen   = 40  // characters
	MaxValueLen = 500 // characters
)

// Param is the field every resource takes metadata in.
const Param = "metadata"

// Check applies the limits: at most MaxKeys keys, each of 1 to MaxKeyLen
// characters, each value at most MaxValueLen characters. A key over its
// limit names metadata; a value names its key (metadata.<key>). Errors:
// Invalid.
func Check(md map[string]string) error {
	if len(md) > MaxKeys {
		return apierr.Invalidf(Param, "metadata takes at most %d keys", MaxKeys)
	}
	for k, v := range md {
		if k == "" || utf8.RuneCountInString(k) > MaxKeyLen {
			return apierr.Invalidf(Param, "metadata keys must have 1 to %d characters", MaxKeyLen)
		}
		if utf8.RuneCountInString(v) > MaxValueLen {
			return apierr.Invalidf(Param+"."+k, "metadata values must have at most %d characters", MaxValueLen)
		}
	}
	return nil
}
