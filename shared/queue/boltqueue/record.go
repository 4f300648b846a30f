package boltqueue

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"
	"time"
)

// record is one stored message. Layout: visibleAt (unix ns) | receive count |
// nonce | body. The nonce changes on every receive, which is what makes a
// receipt from an earlier receive stale.
type record struct {
	visibleAt time.Time
	count     uint32
	nonce     uint64
	body      []byte
}

const headerLen = 8 + 4 + 8

func (r record) encode() []byte {
	b := make([]byte, headerLen+len(r.body))
	binary.BigEndian.PutUint64(b[0:], uint64(r.visibleAt.UnixNano()))
	binary.BigEndian.PutUint32(b[8:], r.count)
	binary.BigEndian.PutUint64(b[12:], r.nonce)
	copy(b[headerLen:], r.body)
	return b
}

var errCorrupt = errors.New("boltqueue: corrupt record")

func decode(b []byte) (record, error) {
	if len(b) < headerLen {
		return record{}, errCorrupt
	}
	return record{
		visibleAt: time.Unix(0, int64(binary.BigEndian.Uint64(b[0:]))),
		count:     binary.BigEndian.Uint32(b[8:]),
		nonce:     binary.BigEndian.Uint64(b[12:]),
		// Copy: bolt's memory is only valid inside the transaction.
		body: append([]byte(nil), b[headerLen:]...),
	}, nil
}

// indexKey orders the visibility index by time, then id (ids are UUIDv7, so
// ties keep send order).
func indexKey(visibleAt time.Time, id string) []byte {
	k := make([]byte, 8+len(id))
	binary.BigEndian.PutUint64(k, uint64(visibleAt.UnixNano()))
	copy(k[8:], id)
	return k
}

func splitIndexKey(k []byte) (time.Time, string) {
	return time.Unix(0, int64(binary.BigEndian.Uint64(k))), string(k[8:])
}

func receipt(id string, nonce uint64) string {
	return id + ":" + strconv.FormatUint(nonce, 16)
}

func parseReceipt(s string) (id string, nonce uint64, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(s[i+1:], 16, 64)
	if err != nil || n == 0 {
		return "", 0, false
	}
	return s[:i], n, true
}
