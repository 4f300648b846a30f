package wallet

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/store"
)

// The open index lists every NEW or PROCESSING transaction of every account,
// so the expirer finds the ones the shopper never confirmed without a Scan.
// An entry is written with the transaction and deleted in the transaction
// of the move that leaves NEW/PROCESSING. It is sharded so no partition
// takes every authorisation's write; the sort key starts with the creation
// time, so "older than" is a key range.
const openShards = 8

type openRef struct {
	AccountID string `json:"account_id"`
	ID        string `json:"id"`
}

func openShard(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % openShards)
}

func openPK(shard int) string { return fmt.Sprintf("wopen#%d", shard) }

// openSKTime is a fixed-width, sortable creation time.
const openSKTime = "20060102T150405.000000000Z"

func openKey(r *record) store.Key {
	return store.Key{Table: store.TablePayments, PK: openPK(openShard(r.ID)), SK: r.CreatedAt.UTC().Format(openSKTime) + "#" + r.ID}
}

func openItem(r *record) store.Item {
	data, _ := json.Marshal(openRef{AccountID: r.AccountID, ID: r.ID})
	return store.Item{Key: openKey(r), Data: data}
}

// openBefore is the inclusive upper bound of index keys created before t.
func openBefore(t time.Time) string { return t.UTC().Format(openSKTime) + "#" }

// Event is an event record (the shape shared/webhooks reads): written in the
// same transaction as the change it reports. Data is the transaction as the
// API shows it after the change.
type Event struct {
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Account  string      `json:"account"`
	Created  int64       `json:"created"`
	Livemode bool        `json:"livemode"`
	Data     Transaction `json:"data"`
}

// EventKey addresses an event record: the platform's event log, one
// partition per account, time-ordered ids as sort keys.
func EventKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: "evt#" + accountID, SK: id}
}

func eventOp(typ string, r *record, now time.Time) store.Op {
	ev := Event{ID: ids.Prefixed("evt"), Type: typ, Account: r.AccountID, Created: now.Unix(), Livemode: r.Live, Data: r.View()}
	data, _ := json.Marshal(ev)
	return store.Put(store.Item{Key: EventKey(r.AccountID, ev.ID), Data: data}, store.IfAbsent)
}
