package beneficiaries

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// Key layout (table ledger, beside the books of shared/ledger, whose
// beneficiary balances are mbal#<account>#<beneficiary id>):
//
//   - ben#<account> / <beneficiary id>: a beneficiary (UUIDv7: newest first
//     by a descending query).
//   - spo#<account> / <payment order id>: a settlement payment order.
//   - sporeq#<account> / <request_id>: the payment order a request_id made
//     (put-if-absent in the order's transaction: one order per request_id).
//   - spoopen#<shard> / <created>#<account>#<id>: payment orders not decided
//     yet, put with the order and removed by the write that decides it; the
//     settlement task re-queues the old ones (a message lost after commit).
//   - sbxbank#<payment order id> / result: the sandbox bank's own record of
//     an order it answered (a fake of a system outside the service).
//   - dist#<account> / <distribution id>: a distribution, its lines and how
//     many chunks of them are credited.
//   - distopen#<shard> / <created>#<account>#<id>: distributions whose later
//     chunks are not all credited; removed by the last chunk's write; the
//     settlement task resumes the old ones (a process that died between
//     chunks).
func beneficiaryPK(accountID string) string { return "ben#" + accountID }

func beneficiaryKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: beneficiaryPK(accountID), SK: id}
}

func orderPK(accountID string) string { return "spo#" + accountID }

func orderKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: orderPK(accountID), SK: id}
}

func requestPK(accountID string) string { return "sporeq#" + accountID }

func requestKey(accountID, requestID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: requestPK(accountID), SK: requestID}
}

func distributionPK(accountID string) string { return "dist#" + accountID }

func distributionKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: distributionPK(accountID), SK: id}
}

func bankKey(orderID string) store.Key {
	return store.Key{Table: store.TableLedger, PK: "sbxbank#" + orderID, SK: "result"}
}

// openShards spreads the two open indexes.
const openShards = 8

func orderOpenPK(shard int) string { return "spoopen#" + strconv.Itoa(shard) }
func distOpenPK(shard int) string  { return "distopen#" + strconv.Itoa(shard) }

// openSKTime is a fixed-width, sortable creation time.
const openSKTime = "20060102T150405.000000000Z"

func shardOf(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % openShards)
}

// openRef is an open index entry's Data.
type openRef struct {
	AccountID string `json:"account_id"`
	ID        string `json:"id"`
}

func openKey(pk func(int) string, accountID, id string, created time.Time) store.Key {
	return store.Key{Table: store.TableLedger, PK: pk(shardOf(id)), SK: created.UTC().Format(openSKTime) + "#" + accountID + "#" + id}
}

func openItem(k store.Key, accountID, id string) store.Item {
	data, _ := json.Marshal(openRef{AccountID: accountID, ID: id})
	return store.Item{Key: k, Data: data}
}

// Event is an event record (the shape shared/webhooks reads), written in
// the transaction of the change it reports.
type Event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Created  int64  `json:"created"`
	Account  string `json:"account"`
	Livemode bool   `json:"livemode"`
	Data     any    `json:"data"`
}

// EventRetention is how long event records stay (as the other writers).
const EventRetention = 30 * 24 * time.Hour

func eventKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: "evt#" + accountID, SK: id}
}
