// Package metadata is the one rule for the metadata every resource takes:
// a map of string keys to string values that the service stores and shows
// as sent and never reads (Stripe's limits, which the provider notes name),
// and the one way an update changes it (Merge: Stripe's).
package metadata

import (
	"maps"
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

// Merge is md after an update's metadata, the way Stripe updates it: each
// key of update sets its value, a key set to "" removes it, and keys update
// does not name stay as they are (to clear every key, name each with "").
// update passes Check first (a value of "" is within its limits). The result
// is a new map, never nil; md is left as it is. Errors: Invalid naming
// metadata when the result would hold more than MaxKeys keys.
func Merge(md, update map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(md)+len(update))
	maps.Copy(out, md)
	for k, v := range update {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	if len(out) > MaxKeys {
		return nil, apierr.Invalidf(Param, "metadata takes at most %d keys; after this update it would hold %d (set a key to \"\" to remove it)", MaxKeys, len(out))
	}
	return out, nil
}
