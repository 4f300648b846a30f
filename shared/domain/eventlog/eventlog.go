// Package eventlog is the event log: the one record every area appends in
// the transaction of the change it reports, and the one place its key
// layout, record shape and retention are written. The webhook publisher,
// /v1/events, the dashboard's event log and the webhook sender read it
// through this package.
//
// Layout (events table, the table whose stream feeds the publisher):
//
//	evt#<account> / <event id>   one record per event; event ids are
//	                             time-ordered (evt_ + UUIDv7), so a partition
//	                             read newest first is the account's log
//
// Every record expires Retention after it was created: Append sets the
// expiry, and BackfillExpiry gives it to records written before Append did.
package eventlog

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Retention is how long a record stays: the stream reads it at once; the
// copy serves listing and re-sending.
const Retention = 30 * 24 * time.Hour

// idPrefix starts every event id.
const idPrefix = "evt"

const pkPrefix = "evt#"

// PK is the partition of an account's log.
func PK(accountID string) string { return pkPrefix + accountID }

// Key addresses one record.
func Key(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: PK(accountID), SK: id}
}

// IsRecord tells the log's records from anything else a stream of the
// events table carries.
func IsRecord(k store.Key) bool {
	return k.Table == store.TableEvents && strings.HasPrefix(k.PK, pkPrefix) && strings.HasPrefix(k.SK, idPrefix+"_")
}

// Event is a change to append: Data is the resource as the API shows it
// after the change, in the current representation.
type Event struct {
	Type     string
	Account  string
	Livemode bool
	At       time.Time
	Data     any
}

// Record is a stored event: the current webhook envelope plus the account
// and the mode of the key that made it.
type Record struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Account  string          `json:"account"`
	Created  int64           `json:"created"` // unix seconds, as in the envelope
	Livemode bool            `json:"livemode"`
	Data     json.RawMessage `json:"data"`
}

// Append is the put of ev as a new record, for the transaction of the change
// it reports: its id is new, so the put never fails on its own and the event
// commits exactly when the change does. The record expires Retention after
// ev.At. Errors: Internal (Data does not encode).
func Append(ev Event) (store.Op, error) {
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return store.Op{}, apierr.Wrap("eventlog.Append "+ev.Type, apierr.Internal, err)
	}
	r := Record{ID: ids.Prefixed(idPrefix), Type: ev.Type, Account: ev.Account, Created: ev.At.Unix(),
		Livemode: ev.Livemode, Data: data}
	raw, err := encodeRecord(r)
	if err != nil {
		return store.Op{}, apierr.Wrap("eventlog.Append "+ev.Type, apierr.Internal, err)
	}
	return store.Put(store.Item{Key: Key(r.Account, r.ID), Data: raw, ExpiresAt: expiry(r.Created)}, store.IfAbsent), nil
}

// recordHead is Record without its data, in the same order with the same
// names.
type recordHead struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Account  string `json:"account"`
	Created  int64  `json:"created"`
	Livemode bool   `json:"livemode"`
}

// encodeRecord is json.Marshal(r), byte for byte, for r.Data that is
// json.Marshal's own output (compact and escaped already): the data is
// appended as it is rather than scanned and compacted again, which was most
// of what encoding an event cost.
func encodeRecord(r Record) ([]byte, error) {
	head, err := json.Marshal(recordHead{ID: r.ID, Type: r.Type, Account: r.Account, Created: r.Created, Livemode: r.Livemode})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(head)+len(`,"data":`)+len(r.Data))
	out = append(out, head[:len(head)-1]...) // without its closing brace
	out = append(out, `,"data":`...)
	out = append(out, r.Data...)
	return append(out, '}'), nil
}

// fillFromKey gives a record written without its id or account the ones
// its key holds.
func (r *Record) fillFromKey(k store.Key) {
	if r.ID == "" {
		r.ID = k.SK
	}
	if r.Account == "" {
		r.Account = strings.TrimPrefix(k.PK, pkPrefix)
	}
}

func expiry(created int64) time.Time { return time.Unix(created, 0).Add(Retention) }

// legacy is what records written before Append kept in other places: the
// mode in data (payments) rather than beside it.
type legacy struct {
	Livemode *bool `json:"livemode"`
	Data     struct {
		Livemode bool `json:"livemode"`
	} `json:"data"`
}

// Decode reads a stored record. Records written before Append may lack
// their id (the sort key holds it), their data ({} then) or a top-level
// livemode (payments kept it in data): each is read where it is. Errors:
// Internal (not a record).
func Decode(it store.Item) (Record, error) {
	// One pass over the record: livemode is read as a pointer, so a record
	// without it (written before it moved to the top) is known without a
	// second parse of the whole record; then only its data is read again.
	var st struct {
		Record
		Livemode *bool `json:"livemode"`
	}
	if err := json.Unmarshal(it.Data, &st); err != nil {
		return Record{}, apierr.Wrap("eventlog.Decode", apierr.Internal, err)
	}
	r := st.Record
	r.fillFromKey(it.Key)
	if st.Livemode != nil {
		r.Livemode = *st.Livemode
	} else {
		var l legacy
		if json.Unmarshal(it.Data, &l) == nil && l.Livemode == nil {
			r.Livemode = l.Data.Livemode
		}
	}
	if len(r.Data) == 0 || string(r.Data) == "null" {
		r.Data = json.RawMessage("{}")
	}
	return r, nil
}

// Newest is the query of an account's log, newest first, from cursor, in
// pages of 100.
func Newest(accountID, cursor string) store.Query {
	return store.Query{Table: store.TableEvents, PK: PK(accountID), Desc: true, Cursor: cursor, Limit: 100}
}

// Get reads one of the account's events; another account's, or a malformed
// id, is NotFound. Errors: NotFound, Unavailable, Internal.
func Get(ctx context.Context, st store.Store, accountID, id string) (Record, error) {
	if !ids.ValidPrefixed(idPrefix, id) {
		return Record{}, notFound(id)
	}
	it, err := st.Get(ctx, Key(accountID, id))
	if errors.Is(err, store.ErrNotFound) {
		return Record{}, notFound(id)
	}
	if err != nil {
		return Record{}, apierr.Wrap("eventlog.Get", apierr.Unavailable, err)
	}
	return Decode(it)
}

func notFound(id string) error { return apierr.NotFoundf("no such event: %s", id) }

// Backfill is what one BackfillExpiry call did.
type Backfill struct {
	Read  int    // records read
	Fixed int    // records that had no expiry and now have one
	Next  string // the cursor to go on from ("" when the partition is done)
}

// BackfillExpiry gives the records of an account's log that were written
// without an expiry (before Append set it) the expiry Append would have set:
// Retention after they were created. It reads at most budget records from
// cursor, oldest first, and rewrites each unexpiring one at the version it
// was read (a record changed meanwhile is left for the next run), so it is
// idempotent and can be stopped and resumed at Next. A record older than
// Retention gets an expiry in the past: it is gone from every read at once
// and the table's TTL reaps it. The rewrite is a modification, which the
// publisher never sends again (it publishes insertions only). Errors:
// Invalid (cursor), Unavailable.
func BackfillExpiry(ctx context.Context, st store.Store, accountID, cursor string, budget int) (Backfill, error) {
	var b Backfill
	q := store.Query{Table: store.TableEvents, PK: PK(accountID), Cursor: cursor, Limit: min(max(budget, 1), store.MaxQueryLimit)}
	for {
		page, err := st.Query(ctx, q)
		if errors.Is(err, store.ErrInvalid) && q.Cursor != "" {
			return b, apierr.Invalidf("cursor", "cursor is malformed or belongs to another account")
		}
		if err != nil {
			return b, apierr.Wrap("eventlog.BackfillExpiry", apierr.Unavailable, err)
		}
		for _, it := range page.Items {
			b.Read++
			if !it.ExpiresAt.IsZero() || !IsRecord(it.Key) {
				continue
			}
			r, err := Decode(it)
			if err != nil {
				continue // not a record this package wrote; left as it is
			}
			it.ExpiresAt = expiry(r.Created)
			err = st.Write(ctx, store.Put(it, store.IfVersion(it.Version)))
			if _, raced := store.IsConditionFailed(err); raced {
				continue
			}
			if err != nil {
				return b, apierr.Wrap("eventlog.BackfillExpiry", apierr.Unavailable, err)
			}
			b.Fixed++
		}
		b.Next = page.Next
		if page.Next == "" || b.Read >= budget {
			return b, nil
		}
		q.Cursor = page.Next
	}
}
