// Package dueindex is the one due-time index: the records of every account
// that something must be done about at a time (expire a session, sweep a
// dispute, reconcile an order, settle pending funds), so that an expirer or a
// sweeper finds them with a Query per shard and never a Scan.
//
// Layout, for an index declared as Index{Table, Prefix}:
//
//	<Prefix><shard> / <due time>#<account>#<id>    no data
//
// The shard is a hash of the id over Shards partitions, so no partition takes
// every write of a busy area; the due time is fixed-width UTC
// (20060102T150405.000000000Z), so "due by t" is a key range. An entry is put
// in the transaction that makes its record due and deleted in the one that
// moves it on (Put, Delete, Move); a sweeper that finds an entry whose record
// has moved on deletes the entry it read (Entry.Key).
package dueindex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Shards is how many partitions every due-time index spreads over.
const Shards = 8

// TimeLayout is the entries' due time: fixed width, so keys sort in time
// order.
const TimeLayout = "20060102T150405.000000000Z"

// Index is one due-time index.
type Index struct {
	Table  string
	Prefix string // partition prefix: an entry's PK is Prefix + its shard
	// Legacy, when set, names the partitions and time layout an earlier
	// version of the index wrote: Visit reads them too (never writes them)
	// until none is left, so entries stored before the one layout are still
	// found when due.
	Legacy *Legacy
}

// Legacy is an earlier layout of an index.
type Legacy struct {
	Prefix     string // partition prefix, as Index.Prefix
	TimeLayout string // the due time's layout in the sort key
}

// Entry is one entry read.
type Entry struct {
	Key     store.Key // as stored: delete this key, never one rebuilt
	Due     time.Time
	Account string
	ID      string
}

// Shard is the shard of a record id.
func Shard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % Shards)
}

// PK is the partition of shard.
func (x Index) PK(shard int) string { return x.Prefix + strconv.Itoa(shard) }

// Key is the entry of the account's record id, due at due.
func (x Index) Key(accountID, id string, due time.Time) store.Key {
	return store.Key{Table: x.Table, PK: x.PK(Shard(id)), SK: due.UTC().Format(TimeLayout) + "#" + accountID + "#" + id}
}

// Put is the write of the entry (unconditional: the record's own write
// carries the condition).
func (x Index) Put(accountID, id string, due time.Time) store.Op {
	return store.Put(store.Item{Key: x.Key(accountID, id, due), Data: []byte("{}")}, store.Always)
}

// Delete is the removal of the entry.
func (x Index) Delete(accountID, id string, due time.Time) store.Op {
	return store.Delete(x.Key(accountID, id, due), store.Always)
}

// Move is what keeps the entry of a record in step when its due time goes
// from was to is (zero: not due): nothing, a put, a delete, or both.
func (x Index) Move(accountID, id string, was, is time.Time) []store.Op {
	if was.Equal(is) {
		return nil
	}
	var ops []store.Op
	if !was.IsZero() {
		ops = append(ops, x.Delete(accountID, id, was))
	}
	if !is.IsZero() {
		ops = append(ops, x.Put(accountID, id, is))
	}
	return ops
}

// page is the store page a visit reads.
const page = 100

// Visit calls f with the entries due in [from, to], oldest first shard by
// shard, reading at most budget entries in all (a zero from is the start of
// time); it returns how many it read. Entries too malformed to name a record
// are deleted as debris. f's error stops the visit and is returned. Errors:
// f's, Unavailable.
func (x Index) Visit(ctx context.Context, st store.Store, from, to time.Time, budget int, f func(Entry) error) (int, error) {
	read := 0
	for shard := 0; shard < Shards && read < budget; shard++ {
		n, err := x.VisitShard(ctx, st, shard, from, to, budget-read, f)
		read += n
		if err != nil {
			return read, err
		}
	}
	return read, nil
}

// VisitShard is Visit over one shard.
func (x Index) VisitShard(ctx context.Context, st store.Store, shard int, from, to time.Time, budget int, f func(Entry) error) (int, error) {
	read, err := visit(ctx, st, x.Table, x.PK(shard), TimeLayout, from, to, budget, f)
	if err != nil || x.Legacy == nil || read >= budget {
		return read, err
	}
	n, err := visit(ctx, st, x.Table, x.Legacy.Prefix+strconv.Itoa(shard), x.Legacy.TimeLayout, from, to, budget-read, f)
	return read + n, err
}

// Page reads one page of at most limit entries of shard due in [from, to]
// from cursor (the store's, "" at the start), for a sweeper that stores
// where it stopped and resumes there; next is "" at the shard's end. It
// reads the index's own partitions only, not Legacy ones. Malformed entries
// are deleted as debris (and not returned). Errors: Invalid (cursor),
// Unavailable.
func (x Index) Page(ctx context.Context, st store.Store, shard int, from, to time.Time, cursor string, limit int) (entries []Entry, next string, err error) {
	q := query(x.Table, x.PK(shard), TimeLayout, from, to)
	q.Cursor, q.Limit = cursor, min(max(limit, 1), store.MaxQueryLimit)
	res, err := st.Query(ctx, q)
	if errors.Is(err, store.ErrInvalid) && cursor != "" {
		return nil, "", apierr.Invalidf("cursor", "the index cursor is malformed")
	}
	if err != nil {
		return nil, "", apierr.Wrap("dueindex.Page "+q.PK, apierr.Unavailable, err)
	}
	for _, it := range res.Items {
		e, ok := parse(it, TimeLayout)
		if !ok {
			if err := st.Write(ctx, store.Delete(it.Key, store.Always)); err != nil {
				return nil, "", apierr.Wrap("dueindex.Page "+q.PK, apierr.Unavailable, err)
			}
			continue
		}
		entries = append(entries, e)
	}
	return entries, res.Next, nil
}

func query(table, pk, layout string, from, to time.Time) store.Query {
	q := store.Query{Table: table, PK: pk, To: to.UTC().Format(layout) + "#~"}
	if !from.IsZero() {
		q.From = from.UTC().Format(layout) + "#"
	}
	return q
}

func visit(ctx context.Context, st store.Store, table, pk, layout string, from, to time.Time, budget int, f func(Entry) error) (int, error) {
	q := query(table, pk, layout, from, to)
	read := 0
	for read < budget {
		q.Limit = min(page, budget-read)
		res, err := st.Query(ctx, q)
		if err != nil {
			return read, apierr.Wrap("dueindex.Visit "+pk, apierr.Unavailable, err)
		}
		for _, it := range res.Items {
			read++
			e, ok := parse(it, layout)
			if !ok {
				if err := st.Write(ctx, store.Delete(it.Key, store.Always)); err != nil {
					return read, apierr.Wrap("dueindex.Visit "+pk, apierr.Unavailable, err)
				}
				continue
			}
			if err := f(e); err != nil {
				return read, err
			}
		}
		if q.Cursor = res.Next; q.Cursor == "" {
			break
		}
	}
	return read, nil
}

// ref is the data of entries written before the one layout that kept the
// record's account and id in the item rather than the key.
type ref struct {
	AccountID string `json:"account_id"`
}

// parse reads an entry: <time>#<account>#<id>, or (written before the one
// layout) <time>#<id> with the account in its data, if any (a record keyed
// by its id alone, a checkout session's, had none: Account is then "").
func parse(it store.Item, layout string) (Entry, bool) {
	n := len(layout)
	if len(it.SK) < n+2 || it.SK[n] != '#' {
		return Entry{}, false
	}
	due, err := time.Parse(layout, it.SK[:n])
	if err != nil {
		return Entry{}, false
	}
	e := Entry{Key: it.Key, Due: due}
	rest := it.SK[n+1:]
	if acct, id, ok := strings.Cut(rest, "#"); ok {
		e.Account, e.ID = acct, id
	} else {
		var r ref
		if len(it.Data) > 0 && json.Unmarshal(it.Data, &r) != nil {
			return Entry{}, false
		}
		e.Account, e.ID = r.AccountID, rest
		return e, e.ID != ""
	}
	return e, e.Account != "" && e.ID != ""
}

// String is for logs.
func (e Entry) String() string {
	return fmt.Sprintf("%s/%s due %s", e.Account, e.ID, e.Due.Format(time.RFC3339))
}
