package boltqueue

import (
	"context"

	bolt "go.etcd.io/bbolt"
)

// ReleaseReceived makes every message of the queue that an earlier receive
// hid visible now, and returns how many. The embedded queue has one process
// as its only consumer: at its start, a message still hidden by a receive was
// held by a run that is gone (a crash, a kill -9), and would otherwise wait
// out its whole visibility timeout. The receive count is kept (the crashed
// receive counts toward the DLQ, as on SQS), and old receipts go stale.
// Messages that were sent with a delay and never received are left alone.
func (q *Queue) ReleaseReceived(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	now := q.clock()
	n := 0
	err := q.db.Update(func(tx *bolt.Tx) error {
		b, err := queueBucket(tx, name)
		if err != nil {
			return err
		}
		type held struct {
			id  string
			rec record
		}
		var hs []held
		err = b.Bucket(msgsBucket).ForEach(func(k, v []byte) error {
			rec, err := decode(v)
			if err != nil {
				return err
			}
			if rec.count > 0 && rec.visibleAt.After(now) {
				hs = append(hs, held{string(k), rec})
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, h := range hs {
			if err := del(b, h.id, h.rec); err != nil {
				return err
			}
			h.rec.visibleAt, h.rec.nonce = now, 0 // 0: no receipt is current
			if err := put(b, h.id, h.rec); err != nil {
				return err
			}
		}
		n = len(hs)
		return nil
	})
	if n > 0 {
		q.notify()
	}
	return n, err
}
