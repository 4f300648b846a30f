package store

import (
	"bytes"
	"encoding/json"
	"sync"
)

// Decoded remembers the last JSON decoding of records, by key and bytes.
// Every read still goes to the store, so a change is seen at once (a key
// revoked a moment ago authenticates nothing on the next request); only
// when the bytes read are the bytes decoded last time is that decoding
// reused. On a warm function that is most reads of the key and the account
// every request makes, and the decoding was a third of such a request's
// CPU (issue 33's profiles).
//
// Decode hands out a copy of the remembered value: a T whose fields hold
// slices, maps or pointers shares what they point to, so the caller clones
// those before handing the value to code that may change them. The zero
// Decoded is ready to use and safe for concurrent use.
type Decoded[T any] struct {
	mu sync.RWMutex
	m  map[Key]decoded[T]
}

type decoded[T any] struct {
	data []byte
	v    T
}

// decodedMax bounds what a Decoded holds: a function instance serves the
// keys and accounts of its recent callers, and one past the bound costs
// only a decoding.
const decodedMax = 1024

// Decode returns data, the bytes just read at k, decoded into a T.
func (d *Decoded[T]) Decode(k Key, data []byte) (T, error) {
	d.mu.RLock()
	e, ok := d.m[k]
	d.mu.RUnlock()
	if ok && bytes.Equal(e.data, data) {
		return e.v, nil
	}
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return v, err
	}
	d.mu.Lock()
	if d.m == nil {
		d.m = make(map[Key]decoded[T])
	}
	if _, had := d.m[k]; !had && len(d.m) >= decodedMax {
		for old := range d.m { // any one: a miss later costs one decoding
			delete(d.m, old)
			break
		}
	}
	// A copy of the bytes: the caller's slice is the caller's.
	d.m[k] = decoded[T]{data: bytes.Clone(data), v: v}
	d.mu.Unlock()
	return v, nil
}
