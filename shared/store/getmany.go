package store

import (
	"context"
	"errors"
	"sync"
)

// MaxBatchGet is how many keys one batch read takes (DynamoDB's
// BatchGetItem limit); GetMany splits longer lists.
const MaxBatchGet = 100

// BatchGetter is a store that reads many items in one round trip, with the
// semantics of Get for each (strongly consistent; a missing or expired item
// is absent): the DynamoDB adapter's BatchGetItem. It is optional, as
// Pipeliner is: GetMany falls back to Get on any other store (the embedded
// one, whose reads are local, and the wrappers tests put around a store).
type BatchGetter interface {
	// GetMany reads keys (at most MaxBatchGet, distinct) and returns the
	// live items found, by key.
	GetMany(ctx context.Context, keys []Key) (map[Key]Item, error)
}

// getManyReaders bounds the Gets in flight of the fallback.
const getManyReaders = 16

// GetMany reads keys and returns the live items found, by key; a missing
// or expired one is absent from the map. A store that batches reads
// (BatchGetter) gets them MaxBatchGet at a time, one call each; any other is
// read with Get, getManyReaders at once. Duplicate keys are read once.
func GetMany(ctx context.Context, st Store, keys []Key) (map[Key]Item, error) {
	seen := make(map[Key]bool, len(keys))
	uniq := make([]Key, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	out := make(map[Key]Item, len(uniq))
	if bg, ok := st.(BatchGetter); ok {
		for len(uniq) > 0 {
			n := min(len(uniq), MaxBatchGet)
			got, err := bg.GetMany(ctx, uniq[:n])
			if err != nil {
				return nil, err
			}
			for k, it := range got {
				out[k] = it
			}
			uniq = uniq[n:]
		}
		return out, nil
	}
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		firstErr error
	)
	sem := make(chan struct{}, getManyReaders)
	for _, k := range uniq {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			it, err := st.Get(ctx, k)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				out[k] = it
			case !errors.Is(err, ErrNotFound) && firstErr == nil:
				firstErr = err
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}
