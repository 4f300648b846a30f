// Package boltstore is the embedded store adapter: one durable bbolt file, one
// bucket per logical table. It backs `make run` and fast unit tests with the
// same semantics as the DynamoDB adapter. Writes go through one writer
// goroutine that commits concurrent writes in one bbolt transaction (group
// commit, write.go), since a commit's two fsyncs bound the write rate.
package boltstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/store"
)

// openTimeout bounds the wait for the file lock, so a second process fails
// instead of hanging.
const openTimeout = 3 * time.Second

// Store is the bbolt adapter of store.Store.
type Store struct {
	db     *bolt.DB
	clock  store.Clock
	notify map[string]*notifier // per streamed table: wakes feed readers on commit
	group  *committer           // the one writer: group commit (write.go)
}

var _ store.Store = (*Store)(nil)

// Open opens (creating if needed) the store file at path. A nil clock means
// time.Now.
func Open(path string, clock store.Clock) (*Store, error) {
	if clock == nil {
		clock = time.Now
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: openTimeout})
	if err != nil {
		return nil, fmt.Errorf("boltstore: open %s: %w", path, err)
	}
	// Only a new file needs its buckets: skipping the write transaction (and
	// its fsync) otherwise keeps a function's cold start short.
	missing := false
	_ = db.View(func(tx *bolt.Tx) error {
		for _, t := range store.AllTables {
			missing = missing || tx.Bucket([]byte(t)) == nil
		}
		for _, b := range internalBuckets() {
			missing = missing || tx.Bucket(b) == nil
		}
		return nil
	})
	if !missing {
		return start(db, clock), nil
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, t := range store.AllTables {
			if _, err := tx.CreateBucketIfNotExists([]byte(t)); err != nil {
				return err
			}
		}
		for _, b := range internalBuckets() {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltstore: create tables: %w", err)
	}
	return start(db, clock), nil
}

// start builds the store over an open db and starts its writer.
func start(db *bolt.DB, clock store.Clock) *Store {
	s := &Store{db: db, clock: clock, notify: newNotifiers(), group: newCommitter()}
	go s.group.run(s)
	return s
}

// Close stops the writer (writes already submitted still commit; later
// ones fail) and releases the file.
func (s *Store) Close() error {
	s.group.stop()
	return s.db.Close()
}

// Get reads one item; missing or expired is store.ErrNotFound.
func (s *Store) Get(ctx context.Context, k store.Key) (store.Item, error) {
	if err := ctx.Err(); err != nil {
		return store.Item{}, err
	}
	if k.PK == "" || k.SK == "" {
		return store.Item{}, fmt.Errorf("%w: get needs pk and sk", store.ErrInvalid)
	}
	if !store.KeyFits(k) {
		return store.Item{}, store.ErrNotFound // no write accepts such a key
	}
	var it *store.Item
	err := s.db.View(func(tx *bolt.Tx) error {
		b, err := bucket(tx, k.Table)
		if err != nil {
			return err
		}
		it, err = load(b, k, s.clock())
		return err
	})
	if err != nil {
		return store.Item{}, err
	}
	if it == nil {
		return store.Item{}, store.ErrNotFound
	}
	return *it, nil
}

func bucket(tx *bolt.Tx, table string) (*bolt.Bucket, error) {
	b := tx.Bucket([]byte(table))
	if b == nil {
		return nil, fmt.Errorf("%w: unknown table %q", store.ErrInvalid, table)
	}
	return b, nil
}

// load returns the live item at k, nil when absent or expired.
func load(b *bolt.Bucket, k store.Key, now time.Time) (*store.Item, error) {
	it, err := loadRaw(b, k)
	if err != nil || it == nil || it.Expired(now) {
		return nil, err
	}
	return it, nil
}

// loadRaw returns the stored item at k even when expired (its version still
// counts), nil when absent.
func loadRaw(b *bolt.Bucket, k store.Key) (*store.Item, error) {
	var buf [128]byte // most keys fit: no allocation for the lookup
	key, err := appendKey(buf[:0], k.PK, k.SK)
	if err != nil {
		return nil, err
	}
	v := b.Get(key)
	if v == nil {
		return nil, nil
	}
	it, err := decodeValue(k, v)
	if err != nil {
		return nil, err
	}
	return &it, nil
}

var errCorrupt = errors.New("boltstore: corrupt value")
