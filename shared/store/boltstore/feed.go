package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/store"
)

// The change feed (store.ChangeFeed) is the local stand-in for a DynamoDB
// stream. Each streamed table has a bucket of records keyed by an 8-byte
// big-endian sequence from the bucket's own NextSequence: a write appends its
// records in its own transaction, so a failed transaction appends nothing, a
// committed one is as durable as its items (bbolt syncs every commit), and
// since bbolt runs one write transaction at a time the sequence is the commit
// order. Checkpoints live in one bucket, keyed table NUL consumer.
//
// Trimming: when a consumer's checkpoint moves, the records every consumer of
// the table has passed are deleted in the same transaction. Records older than
// FeedRetention go whether read or not (DynamoDB Streams keep 24 hours too),
// a few at each append, so a feed nobody reads stays bounded.

// FeedRetention is how long an unread record is kept, as in DynamoDB Streams.
const FeedRetention = 24 * time.Hour

// trimPerAppend bounds the records past retention that one write deletes, so
// a write never pays for a long backlog at once: a few per append outpace the
// appends themselves.
const trimPerAppend = 8

// Bucket names start with NUL, which no logical table name holds.
var checkpointsBucket = []byte("\x00checkpoints")

func feedBucket(table string) []byte { return []byte("\x00feed\x00" + table) }

// internalBuckets are the buckets beside the tables.
func internalBuckets() [][]byte {
	out := [][]byte{checkpointsBucket}
	for _, t := range store.StreamedTables {
		out = append(out, feedBucket(t))
	}
	return out
}

var _ store.ChangeFeed = (*Store)(nil)

// notifier wakes the feed's readers on commit: a channel closed and replaced
// at each broadcast.
type notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *notifier) wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

func (n *notifier) broadcast() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}

func newNotifiers() map[string]*notifier {
	m := make(map[string]*notifier, len(store.StreamedTables))
	for _, t := range store.StreamedTables {
		m[t] = &notifier{}
	}
	return m
}

// Records: kind (1 byte: I, M, R), commit time (unix nanoseconds, 8 bytes),
// PK length (uvarint), PK, SK length (uvarint), SK, then for INSERT and MODIFY
// the item's stored value (encodeValue).
func encodeRecord(kind store.ChangeKind, at time.Time, it store.Item) []byte {
	b := make([]byte, 0, 1+8+2*binary.MaxVarintLen64+len(it.PK)+len(it.SK)+headerSize+len(it.Data))
	b = append(b, kind[0])
	b = binary.BigEndian.AppendUint64(b, uint64(at.UnixNano()))
	b = binary.AppendUvarint(b, uint64(len(it.PK)))
	b = append(b, it.PK...)
	b = binary.AppendUvarint(b, uint64(len(it.SK)))
	b = append(b, it.SK...)
	if kind != store.ChangeRemove {
		b = append(b, encodeValue(it)...)
	}
	return b
}

func decodeRecord(table string, seq uint64, v []byte) (store.Change, error) {
	bad := fmt.Errorf("%w: feed record %d of %s", errCorrupt, seq, table)
	if len(v) < 9 {
		return store.Change{}, bad
	}
	c := store.Change{Seq: seq, At: time.Unix(0, int64(binary.BigEndian.Uint64(v[1:9]))).UTC()}
	switch v[0] {
	case 'I':
		c.Kind = store.ChangeInsert
	case 'M':
		c.Kind = store.ChangeModify
	case 'R':
		c.Kind = store.ChangeRemove
	default:
		return store.Change{}, bad
	}
	rest := v[9:]
	field := func() (string, bool) {
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return "", false
		}
		s := string(rest[w : w+int(n)])
		rest = rest[w+int(n):]
		return s, true
	}
	pk, ok1 := field()
	sk, ok2 := field()
	if !ok1 || !ok2 {
		return store.Change{}, bad
	}
	k := store.Key{Table: table, PK: pk, SK: sk}
	if c.Kind == store.ChangeRemove {
		c.Item = store.Item{Key: k}
		return c, nil
	}
	it, err := decodeValue(k, rest)
	if err != nil {
		return store.Change{}, bad
	}
	c.Item = it
	return c, nil
}

func seqKey(seq uint64) []byte { return binary.BigEndian.AppendUint64(nil, seq) }

// appendChange adds one record to table's feed inside tx, and lets go of a
// few records past retention.
func appendChange(tx *bolt.Tx, kind store.ChangeKind, it store.Item, now time.Time) error {
	b := tx.Bucket(feedBucket(it.Table))
	if b == nil {
		return fmt.Errorf("%w: no feed for %s", errCorrupt, it.Table)
	}
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	if err := b.Put(seqKey(seq), encodeRecord(kind, now, it)); err != nil {
		return err
	}
	return trimOld(b, now, trimPerAppend)
}

// trimOld deletes up to n records committed more than FeedRetention before
// now, oldest first.
func trimOld(b *bolt.Bucket, now time.Time, n int) error {
	c := b.Cursor()
	cutoff := now.Add(-FeedRetention).UnixNano()
	// Re-seeking the first key after each delete: a bbolt cursor may skip a
	// key when Next follows a Delete.
	for k, v := c.First(); k != nil && n > 0; k, v = c.First() {
		if len(v) < 9 || int64(binary.BigEndian.Uint64(v[1:9])) >= cutoff {
			return nil
		}
		if err := c.Delete(); err != nil {
			return err
		}
		n--
	}
	return nil
}

// Changes implements store.ChangeFeed.
func (s *Store) Changes(ctx context.Context, table string, after uint64, limit int) ([]store.Change, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !store.Streamed(table) || limit < 1 {
		return nil, fmt.Errorf("%w: changes of %q, limit %d: not a streamed table or no limit", store.ErrInvalid, table, limit)
	}
	var out []store.Change
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(feedBucket(table)).Cursor()
		for k, v := c.Seek(seqKey(after + 1)); k != nil && len(out) < limit; k, v = c.Next() {
			ch, err := decodeRecord(table, binary.BigEndian.Uint64(k), v)
			if err != nil {
				return err
			}
			out = append(out, ch)
		}
		return nil
	})
	return out, err
}

func checkpointKey(table, consumer string) []byte {
	return []byte(table + "\x00" + consumer)
}

// Checkpoint implements store.ChangeFeed.
func (s *Store) Checkpoint(ctx context.Context, table, consumer string) (uint64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := checkConsumer(table, consumer); err != nil {
		return 0, err
	}
	var seq uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(checkpointsBucket).Get(checkpointKey(table, consumer)); len(v) == 8 {
			seq = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	return seq, err
}

func checkConsumer(table, consumer string) error {
	if !store.Streamed(table) || consumer == "" || bytes.IndexByte([]byte(consumer), 0) >= 0 {
		return fmt.Errorf("%w: checkpoint of %q on %q: not a streamed table, or an empty consumer name", store.ErrInvalid, consumer, table)
	}
	return nil
}

// SetCheckpoint implements store.ChangeFeed. A checkpoint only moves forward,
// and never past the last record appended. It rides the group commit (a
// write of its own would cost a commit and its two fsyncs per batch each
// consumer handles): it answers once the transaction holding it is durable.
func (s *Store) SetCheckpoint(ctx context.Context, table, consumer string, seq uint64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := checkConsumer(table, consumer); err != nil {
		return err
	}
	req := &writeReq{now: s.clock(), done: make(chan error, 1), fn: func(tx *bolt.Tx) (error, error) {
		return s.setCheckpoint(tx, table, consumer, seq)
	}}
	if err := s.group.submit(req); err != nil {
		return err
	}
	return <-req.done
}

// setCheckpoint is SetCheckpoint's change inside tx: a refusal (verdict)
// changes nothing; err aborts the transaction.
func (s *Store) setCheckpoint(tx *bolt.Tx, table, consumer string, seq uint64) (verdict, err error) {
	cps := tx.Bucket(checkpointsBucket)
	feed := tx.Bucket(feedBucket(table))
	key := checkpointKey(table, consumer)
	var cur uint64
	if v := cps.Get(key); len(v) == 8 {
		cur = binary.BigEndian.Uint64(v)
	}
	if seq < cur || seq > feed.Sequence() {
		return fmt.Errorf("%w: checkpoint of %s on %s from %d to %d (last record %d)",
			store.ErrInvalid, consumer, table, cur, seq, feed.Sequence()), nil
	}
	if seq == cur {
		return nil, nil
	}
	if err := cps.Put(key, seqKey(seq)); err != nil {
		return nil, err
	}
	// Trim what every consumer of the table has passed.
	low := seq
	prefix := []byte(table + "\x00")
	c := cps.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) == 8 {
			low = min(low, binary.BigEndian.Uint64(v))
		}
	}
	fc := feed.Cursor()
	for k, _ := fc.First(); k != nil && binary.BigEndian.Uint64(k) <= low; k, _ = fc.First() {
		if err := fc.Delete(); err != nil {
			return nil, err
		}
	}
	return nil, trimOld(feed, s.clock(), trimPerAppend)
}

// Changed implements store.ChangeFeed.
func (s *Store) Changed(table string) <-chan struct{} {
	n, ok := s.notify[table]
	if !ok {
		return nil // not streamed: never changes (Changes refuses it too)
	}
	return n.wait()
}
