package dynamostore

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"sync"
)

// Packed bodies. DynamoDB bills a write by the item's size in started KB
// (two units per KB inside a transaction), and the bodies that cross a KB
// boundary are JSON documents that deflate to about half: an event record
// is 1.0-1.1 KB, so each one in a card payment's transaction cost 4 units
// instead of 2. A body of packThreshold bytes or more is therefore stored
// deflated in the attribute dz instead of data, when that is smaller; the
// store port never sees it (Data is always the plain body). Small bodies
// stay plain: below the threshold an item fits its KB either way and
// deflate would only cost CPU.
//
// Deflate runs at BestSpeed: on a 1 KB event record it takes about two
// thirds of the default level's CPU (whose Reset alone clears some 600 KB of
// match tables per body) for a body about 3% larger (583 bytes against 564),
// and the capacity units of make bench's cost operations are unchanged. The
// format is the same raw DEFLATE, so bodies packed at either level read
// alike.
//
// dz's first byte is the format, so a later format (a preset dictionary,
// zstd) can be read beside this one: 1 = raw DEFLATE (RFC 1951), no
// dictionary.

const (
	attrPacked    = "dz"
	packThreshold = 640
	packFormat    = 1
	// unpackLimit bounds what a packed body may inflate to: an item is at
	// most 400 KB, so a body that inflates past this is not ours.
	unpackLimit = 16 << 20
)

var (
	deflaters = sync.Pool{New: func() any {
		w, err := flate.NewWriter(nil, flate.BestSpeed)
		if err != nil {
			panic(err) // only for an invalid level
		}
		return w
	}}
	inflaters = sync.Pool{New: func() any { return flate.NewReader(nil) }}
)

// pack is data deflated with its format byte, and whether storing it packed
// is worth it (data is at least packThreshold bytes and the packed form is
// smaller).
func pack(data []byte) ([]byte, bool) {
	if len(data) < packThreshold {
		return nil, false
	}
	var buf bytes.Buffer
	buf.Grow(len(data) / 2)
	buf.WriteByte(packFormat)
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(data); err != nil {
		return nil, false
	}
	if err := w.Close(); err != nil {
		return nil, false
	}
	if buf.Len() >= len(data) {
		return nil, false
	}
	return buf.Bytes(), true
}

// unpack is the body a dz attribute holds.
func unpack(packed []byte) ([]byte, error) {
	if len(packed) == 0 || packed[0] != packFormat {
		return nil, fmt.Errorf("%w: packed body of an unknown format", errBadItem)
	}
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(packed[1:]), nil); err != nil {
		return nil, fmt.Errorf("%w: packed body: %v", errBadItem, err)
	}
	out, err := io.ReadAll(io.LimitReader(r, unpackLimit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: packed body: %v", errBadItem, err)
	}
	if len(out) > unpackLimit {
		return nil, fmt.Errorf("%w: packed body inflates past %d bytes", errBadItem, unpackLimit)
	}
	return out, nil
}
