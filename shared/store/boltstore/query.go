package boltstore

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/store"
)

// Query reads one partition in SK order. Like the DynamoDB adapter, it looks
// at no more than Limit stored items (expired ones are dropped from the page)
// and peeks at one more to learn whether a next page exists.
func (s *Store) Query(ctx context.Context, q store.Query) (store.Page, error) {
	if err := ctx.Err(); err != nil {
		return store.Page{}, err
	}
	if err := q.Validate(); err != nil {
		return store.Page{}, err
	}
	if !store.KeyFits(store.Key{PK: q.PK}) {
		return store.Page{}, nil // no write accepts such a key: the partition is empty
	}
	after := ""
	if q.Cursor != "" {
		var err error
		if after, err = store.DecodeCursor(q.Cursor); err != nil {
			return store.Page{}, err
		}
		if !store.KeyFits(store.Key{PK: q.PK, SK: after}) {
			return store.Page{}, fmt.Errorf("%w: malformed cursor", store.ErrInvalid) // no key could have produced it
		}
		if position(q, after) != 0 {
			return store.Page{}, fmt.Errorf("%w: cursor outside the query range", store.ErrInvalid)
		}
	}
	now := s.clock()
	var page store.Page
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, q.Table)
		if err != nil {
			return err
		}
		w := walker{c: b.Cursor(), q: q}
		w.lo, w.hi = partition(q.PK)
		seen, last := 0, ""
		for k, v := w.start(after); k != nil; k, v = w.next() {
			sk := string(k[len(w.lo):])
			if p := position(q, sk); p != 0 {
				if (p > 0) == q.Desc {
					continue // not yet inside the range
				}
				break // past its far end
			}
			if seen == q.Limit {
				page.Next = store.EncodeCursor(last)
				break
			}
			seen, last = seen+1, sk
			item, err := decodeValue(store.Key{Table: q.Table, PK: q.PK, SK: sk}, v)
			if err != nil {
				return err
			}
			if !item.Expired(now) {
				page.Items = append(page.Items, item)
			}
		}
		return nil
	})
	if err != nil {
		return store.Page{}, err
	}
	return page, nil
}

// position places sk against the query's SK condition: -1 below it, 0 inside,
// +1 above.
func position(q store.Query, sk string) int {
	switch {
	case q.Prefix != "" && strings.HasPrefix(sk, q.Prefix):
		return 0
	case q.Prefix != "" && sk < q.Prefix:
		return -1
	case q.Prefix != "":
		return 1
	case q.From != "" && sk < q.From:
		return -1
	case q.To != "" && sk > q.To:
		return 1
	}
	return 0
}

// walker moves through one partition ([lo, hi) in key space) in the query's
// direction.
type walker struct {
	c      *bolt.Cursor
	q      store.Query
	lo, hi []byte
}

func (w *walker) key(sk string) []byte { return append(bytes.Clone(w.lo), sk...) }

// start positions on the first candidate: just after the cursor when there is
// one, else at the near end of the range.
func (w *walker) start(after string) ([]byte, []byte) {
	if !w.q.Desc {
		from := w.q.From + w.q.Prefix // at most one is set
		if after != "" {
			from = after
		}
		k, v := w.c.Seek(w.key(from))
		if after != "" && k != nil && bytes.Equal(k, w.key(after)) {
			k, v = w.c.Next()
		}
		return w.inside(k, v)
	}
	// Descending: the last key below an exclusive upper bound, or at an
	// inclusive one.
	upper, inclusive := w.hi, false
	switch {
	case after != "":
		upper = w.key(after)
	case w.q.To != "":
		upper, inclusive = w.key(w.q.To), true
	case w.q.Prefix != "":
		if end, ok := prefixEnd(w.q.Prefix); ok {
			upper = w.key(end)
		}
	}
	k, v := w.c.Seek(upper)
	switch {
	case k == nil:
		k, v = w.c.Last()
	case inclusive && bytes.Equal(k, upper):
	default:
		k, v = w.c.Prev()
	}
	return w.inside(k, v)
}

func (w *walker) next() ([]byte, []byte) {
	if w.q.Desc {
		return w.inside(w.c.Prev())
	}
	return w.inside(w.c.Next())
}

// inside ends the walk at the partition's edges.
func (w *walker) inside(k, v []byte) ([]byte, []byte) {
	if k == nil || bytes.Compare(k, w.lo) < 0 || bytes.Compare(k, w.hi) >= 0 {
		return nil, nil
	}
	return k, v
}

// prefixEnd is the smallest string above every string starting with p; false
// when there is none (p is all 0xFF).
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}
