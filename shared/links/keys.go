package links

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/payments"
	"github.com/paygate/paygate/shared/store"
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
//   - plinkexp#<0..7> / <expires_at, fixed width>#<account>#<link id>: every
//     active link by expiry, sharded; put when the link is created, moved
//     when its expiry changes, removed when it leaves active. The expirer
//     reads the due entries of each shard, never a Scan.
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

const expiryShards = 8

func expiryPK(shard int) string { return fmt.Sprintf("plinkexp#%d", shard) }

func shardOf(id string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % uint32(n))
}

// expirySKTime is a fixed-width, sortable time.
const expirySKTime = "20060102T150405.000000000Z"

func expiryKey(r *record, at time.Time) store.Key {
	return store.Key{Table: store.TablePayments, PK: expiryPK(shardOf(r.ID, expiryShards)),
		SK: at.UTC().Format(expirySKTime) + "#" + r.AccountID + "#" + r.ID}
}

// dueBy is the inclusive upper bound of expiry entries due at now.
func dueBy(now time.Time) string { return now.Add(time.Nanosecond).UTC().Format(expirySKTime) + "#" }

// parseExpirySK splits an expiry entry's sort key.
func parseExpirySK(sk string) (accountID, id string, ok bool) {
	n := len(expirySKTime)
	if len(sk) < n+3 || sk[n] != '#' {
		return "", "", false
	}
	accountID, id, ok = strings.Cut(sk[n+1:], "#")
	return accountID, id, ok && accountID != "" && id != ""
}

func statPK(accountID string) string { return "plinkstat#" + accountID }

const statShards = 4

// statDay is the day bucket of a created time.
const statDay = "2006-01-02"

// statKeys are the count and amount counters of r's bucket for status s.
func statKeys(r *record, s Status) (count, amount store.Key) {
	sk := r.CreatedAt.UTC().Format(statDay) + "#" + string(s) + "#" + r.Amount.Currency + "#" + fmt.Sprint(shardOf(r.ID, statShards)) + "#"
	pk := statPK(r.AccountID)
	return store.Key{Table: store.TablePayments, PK: pk, SK: sk + "n"}, store.Key{Table: store.TablePayments, PK: pk, SK: sk + "a"}
}

func statOps(r *record, s Status, sign int64) []store.Op {
	n, a := statKeys(r, s)
	return []store.Op{store.Add(n, sign, false, store.Always), store.Add(a, sign*r.Amount.Value, false, store.Always)}
}

// Event is an event record (the shape shared/webhooks reads), written in the
// transaction of the change it reports; data is the link after it.
type Event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Created  int64  `json:"created"`
	Account  string `json:"account"`
	Livemode bool   `json:"livemode"`
	Data     Link   `json:"data"`
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
		ops = append(ops, store.Put(store.Item{Key: expiryKey(r, r.ExpiresAt), Data: []byte("{}")}, store.Always))
		ops = append(ops, statOps(r, r.Status, 1)...)
	case r.Status != r.readStatus:
		ops = append(ops, store.Delete(expiryKey(r, r.readExpiry), store.Always))
		ops = append(ops, statOps(r, r.readStatus, -1)...)
		ops = append(ops, statOps(r, r.Status, 1)...)
	case !r.ExpiresAt.Equal(r.readExpiry):
		ops = append(ops, store.Delete(expiryKey(r, r.readExpiry), store.Always),
			store.Put(store.Item{Key: expiryKey(r, r.ExpiresAt), Data: []byte("{}")}, store.Always))
	}
	view := r.View(now)
	for _, typ := range r.events {
		ev := Event{ID: ids.Prefixed("evt"), Type: typ, Created: now.Unix(), Account: r.AccountID, Livemode: r.Livemode, Data: view}
		b, err := json.Marshal(ev)
		if err != nil {
			return nil, apierr.Wrap("links.writeOps", apierr.Internal, err)
		}
		ops = append(ops, store.Put(store.Item{Key: payments.EventKey(r.AccountID, ev.ID), Data: b,
			ExpiresAt: time.Unix(ev.Created, 0).Add(payments.EventRetention)}, store.IfAbsent))
	}
	return ops, nil
}
