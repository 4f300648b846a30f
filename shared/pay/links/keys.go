package links

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Key layout, all in the payments table beside the payments a link takes
// (so the payment, the link's change and their indexes commit in one
// transaction). Index entries are written in the transaction of the change
// that makes them true, so they never name a link that was not stored, nor
// miss one that was.
//
//   - plink#<link id> / link: the link, read by id alone (its page knows
//     nothing else); written conditioned on its version.
//   - plinkacct#<account> / <link id, UUIDv7>: a copy of it, written in every
//     transaction that writes the link, so one partition lists an account's
//     links newest first (a created range is a key range) without a read
//     per link.
//   - plinkref#<account>#<order_reference> / <link id>: the links of an
//     order reference.
//   - plinkexp#<shard> / <expires_at>#<account>#<link id>: every active link
//     by expiry (a dueindex); put when the link is created, moved when its
//     expiry changes, removed when it leaves active. The expirer reads the
//     due entries of each shard, never a Scan.
//   - plinkstat#<account> / <created day>#<status>#<currency>#<shard>#n|a:
//     counters (OpAdd) of the links created that UTC day, per status and
//     currency: n counts them, a sums their amounts. A change moves the link
//     from its old status's pair to the new one's in its own transaction, so
//     statistics are exact. Four shards per bucket keep concurrent writers
//     of one busy account from contending for one item.

func recordKey(id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: "plink#" + id, SK: "link"}
}

func accountPK(accountID string) string { return "plinkacct#" + accountID }

func copyKey(accountID, id string) store.Key {
	return store.Key{Table: store.TablePayments, PK: accountPK(accountID), SK: id}
}

func refPK(accountID, ref string) string { return "plinkref#" + accountID + "#" + ref }

// expiryIndex holds every active link by its expiry.
var expiryIndex = dueindex.Index{Table: store.TablePayments, Prefix: "plinkexp#"}

func expiryKey(r *record, at time.Time) store.Key { return expiryIndex.Key(r.AccountID, r.ID, at) }

func statPK(accountID string) string { return "plinkstat#" + accountID }

// statShards spreads a bucket's counters (a sharded counter, not a due-time
// index: four are enough for one account's burst, and a bucket is read
// whole by the statistics).
const statShards = 4

// statDay is the day bucket of a created time.
const statDay = "2006-01-02"

// statKeys are the count and amount counters of r's bucket for status s.
func statKeys(r *record, s Status) (count, amount store.Key) {
	sk := r.CreatedAt.UTC().Format(statDay) + "#" + string(s) + "#" + r.Amount.Currency + "#" + fmt.Sprint(dueindex.Shard(r.ID)%statShards) + "#"
	pk := statPK(r.AccountID)
	return store.Key{Table: store.TablePayments, PK: pk, SK: sk + "n"}, store.Key{Table: store.TablePayments, PK: pk, SK: sk + "a"}
}

func statOps(r *record, s Status, sign int64) []store.Op {
	n, a := statKeys(r, s)
	return []store.Op{store.Add(n, sign, false, store.Always), store.Add(a, sign*r.Amount.Value, false, store.Always)}
}

// writeOps are the writes that store r as changed at now: the record
// (put-if-absent when new, else conditioned on the version read; always
// the first op, so callers can tell its condition by index 0) and its
// account's copy, its index entries and counters, and its queued events.
func (r *record) writeOps(now time.Time) ([]store.Op, error) {
	data, err := json.Marshal(r)
	if err != nil {
		return nil, apierr.Wrap("links.writeOps", apierr.Internal, err)
	}
	cond := store.IfAbsent
	if r.version > 0 {
		cond = store.IfVersion(r.version)
	}
	ops := []store.Op{
		store.Put(store.Item{Key: recordKey(r.ID), Data: data}, cond),
		store.Put(store.Item{Key: copyKey(r.AccountID, r.ID), Data: data}, store.Always),
	}
	switch {
	case r.version == 0:
		if r.OrderReference != "" {
			ops = append(ops, store.Put(store.Item{Key: store.Key{Table: store.TablePayments, PK: refPK(r.AccountID, r.OrderReference), SK: r.ID}, Data: []byte("{}")}, store.Always))
		}
		ops = append(ops, expiryIndex.Put(r.AccountID, r.ID, r.ExpiresAt))
		ops = append(ops, statOps(r, r.Status, 1)...)
	case r.Status != r.readStatus:
		ops = append(ops, expiryIndex.Delete(r.AccountID, r.ID, r.readExpiry))
		ops = append(ops, statOps(r, r.readStatus, -1)...)
		ops = append(ops, statOps(r, r.Status, 1)...)
	case !r.ExpiresAt.Equal(r.readExpiry):
		ops = append(ops, expiryIndex.Move(r.AccountID, r.ID, r.readExpiry, r.ExpiresAt)...)
	}
	view := r.View(now)
	for _, typ := range r.events {
		op, err := eventlog.Append(eventlog.Event{Type: typ, Account: r.AccountID, Livemode: r.Livemode, At: now, Data: view})
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	return ops, nil
}
