package boltqueue

import (
	"time"

	bolt "go.etcd.io/bbolt"
)

// queueBucket returns the bucket of a logical queue, created on first use:
// queues need no set-up step, unlike SQS.
func queueBucket(tx *bolt.Tx, name string) (*bolt.Bucket, error) {
	b, err := tx.CreateBucketIfNotExists([]byte(name))
	if err != nil {
		return nil, err
	}
	if _, err := b.CreateBucketIfNotExists(msgsBucket); err != nil {
		return nil, err
	}
	if _, err := b.CreateBucketIfNotExists(indexBucket); err != nil {
		return nil, err
	}
	return b, nil
}

func get(b *bolt.Bucket, id string) (record, error) {
	v := b.Bucket(msgsBucket).Get([]byte(id))
	if v == nil {
		return record{}, errCorrupt // the index named a message that is gone
	}
	return decode(v)
}

func put(b *bolt.Bucket, id string, rec record) error {
	if err := b.Bucket(msgsBucket).Put([]byte(id), rec.encode()); err != nil {
		return err
	}
	return b.Bucket(indexBucket).Put(indexKey(rec.visibleAt, id), nil)
}

func del(b *bolt.Bucket, id string, rec record) error {
	if err := b.Bucket(msgsBucket).Delete([]byte(id)); err != nil {
		return err
	}
	return b.Bucket(indexBucket).Delete(indexKey(rec.visibleAt, id))
}

// dueIDs lists up to n message ids visible at now, earliest first. Ids are
// collected before any change because bolt cursors do not survive writes.
func dueIDs(b *bolt.Bucket, now time.Time, n int) []string {
	var ids []string
	c := b.Bucket(indexBucket).Cursor()
	for k, _ := c.First(); k != nil && len(ids) < n; k, _ = c.Next() {
		at, id := splitIndexKey(k)
		if at.After(now) {
			break
		}
		ids = append(ids, id)
	}
	return ids
}
