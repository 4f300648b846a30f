package boltstore

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// Keys are pk 0x00 sk, so one partition is one contiguous, SK-ordered range
// of the bucket. PKs therefore may not hold 0x00.
const sep = 0x00

func encodeKey(pk, sk string) ([]byte, error) {
	return appendKey(make([]byte, 0, len(pk)+1+len(sk)), pk, sk)
}

// appendKey is encodeKey into b (a buffer on the caller's stack, for a key
// only looked up: bbolt keeps a written key's bytes until the commit).
func appendKey(b []byte, pk, sk string) ([]byte, error) {
	if pk == "" || sk == "" {
		return nil, fmt.Errorf("%w: pk and sk are required", store.ErrInvalid)
	}
	if strings.IndexByte(pk, sep) >= 0 {
		return nil, fmt.Errorf("%w: pk holds a NUL byte", store.ErrInvalid)
	}
	b = append(b, pk...)
	b = append(b, sep)
	return append(b, sk...), nil
}

// partition returns the first key of pk's range and the first key past it.
func partition(pk string) (lo, hi []byte) {
	lo = append([]byte(pk), sep)
	hi = append([]byte(pk), sep+1)
	return lo, hi
}

// Values: a format byte, then Version, N and expiry (unix seconds, 0 = none)
// as big-endian int64, then Data.
const (
	formatV1   = 1
	headerSize = 1 + 3*8
)

func encodeValue(it store.Item) []byte {
	b := make([]byte, headerSize, headerSize+len(it.Data))
	b[0] = formatV1
	binary.BigEndian.PutUint64(b[1:], uint64(it.Version))
	binary.BigEndian.PutUint64(b[9:], uint64(it.N))
	binary.BigEndian.PutUint64(b[17:], uint64(expirySeconds(it.ExpiresAt)))
	return append(b, it.Data...)
}

func decodeValue(k store.Key, v []byte) (store.Item, error) {
	if len(v) < headerSize || v[0] != formatV1 {
		return store.Item{}, fmt.Errorf("%w at %s", errCorrupt, k)
	}
	it := store.Item{
		Key:     k,
		Version: int64(binary.BigEndian.Uint64(v[1:])),
		N:       int64(binary.BigEndian.Uint64(v[9:])),
	}
	if exp := int64(binary.BigEndian.Uint64(v[17:])); exp != 0 {
		it.ExpiresAt = time.Unix(exp, 0).UTC()
	}
	if len(v) > headerSize {
		// bbolt values live only as long as the transaction: copy.
		it.Data = bytes.Clone(v[headerSize:])
	}
	return it, nil
}

// expirySeconds is the stored form of an expiry, matching DynamoDB's TTL
// attribute: whole unix seconds, 0 for none. An expiry at or before the
// epoch is kept as 1 so it still reads as expired.
func expirySeconds(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return max(t.Unix(), 1)
}
