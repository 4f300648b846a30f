package boltstore

import (
	"context"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/paygate/paygate/shared/store"
)

// Write applies ops in one bbolt transaction: every condition is checked
// before anything is written, so a failure leaves all items untouched.
func (s *Store) Write(ctx context.Context, ops ...store.Op) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := store.ValidateOps(ops); err != nil {
		return err
	}
	now := s.clock()
	var fed []string // streamed tables this write appended to
	err := s.db.Update(func(tx *bolt.Tx) error {
		// raw holds each op's stored item, expired or not: versions continue
		// across expiry, as they do in DynamoDB.
		raw := make([]*store.Item, len(ops))
		for i, op := range ops {
			b, err := bucket(tx, op.Item.Table)
			if err != nil {
				return err
			}
			if raw[i], err = loadRaw(b, op.Item.Key); err != nil {
				return err
			}
			live := raw[i]
			if live != nil && live.Expired(now) {
				live = nil
			}
			switch store.Judge(op, live) {
			case store.CondFails:
				return &store.ConditionFailedError{Index: i, Current: live}
			case store.OutOfBound:
				return store.OutOfRange(i, op.Item.Key)
			}
		}
		for i, op := range ops {
			next, err := apply(tx, op, raw[i], now)
			if err != nil {
				return err
			}
			if kind, ok := change(op, raw[i]); ok {
				// In the same transaction: the feed holds exactly what was
				// committed (see feed.go).
				if err := appendChange(tx, kind, next, now); err != nil {
					return err
				}
				fed = append(fed, op.Item.Table)
			}
		}
		return nil
	})
	if err == nil {
		for _, t := range fed {
			s.notify[t].broadcast()
		}
	}
	return err
}

// change is the feed record op makes over raw (the item as stored before,
// expired or not, as DynamoDB Streams see it): none for a check, a delete of
// nothing, or a table that is not streamed.
func change(op store.Op, raw *store.Item) (store.ChangeKind, bool) {
	if !store.Streamed(op.Item.Table) {
		return "", false
	}
	switch {
	case op.Kind == store.OpCheck:
		return "", false
	case op.Kind == store.OpDelete && raw == nil:
		return "", false
	case op.Kind == store.OpDelete:
		return store.ChangeRemove, true
	case raw == nil:
		return store.ChangeInsert, true
	}
	return store.ChangeModify, true
}

// apply runs op and returns the item as written (only the key for a delete).
func apply(tx *bolt.Tx, op store.Op, raw *store.Item, now time.Time) (store.Item, error) {
	b, err := bucket(tx, op.Item.Table)
	if err != nil {
		return store.Item{}, err
	}
	key, err := encodeKey(op.Item.PK, op.Item.SK)
	if err != nil {
		return store.Item{}, err
	}
	var version int64
	if raw != nil {
		version = raw.Version
	}
	var next store.Item
	switch op.Kind {
	case store.OpCheck:
		return store.Item{Key: op.Item.Key}, nil
	case store.OpDelete:
		return store.Item{Key: op.Item.Key}, b.Delete(key)
	case store.OpPut:
		next = op.Item
	case store.OpAdd:
		// An expired item counts as absent: the counter starts again.
		if raw != nil && !raw.Expired(now) {
			next = *raw
		} else {
			next = store.Item{Key: op.Item.Key}
		}
		next.N += op.Delta // store.Judge ruled out overflow
		if op.Item.Data != nil {
			next.Data = op.Item.Data
			next.ExpiresAt = op.Item.ExpiresAt
		}
	}
	next.Version = version + 1
	return next, b.Put(key, encodeValue(next))
}
