package orders

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"time"

	"github.com/paygate/paygate/shared/store"
)

// The pending index lists every pending order of every account, so the
// reconciler can find orders whose queue message was lost without a scan. It
// is sharded so that no single partition takes every order's write; the sort
// key starts with the creation time, so "older than a minute" is a range.
const pendingShards = 8

type pendingRef struct {
	AccountID string `json:"account_id"`
	OrderID   string `json:"order_id"`
}

func pendingShard(orderID string) int {
	h := fnv.New32a()
	h.Write([]byte(orderID))
	return int(h.Sum32() % pendingShards)
}

func pendingPK(shard int) string { return fmt.Sprintf("pending#%d", shard) }

// pendingSKTime is a fixed-width, sortable creation time.
const pendingSKTime = "20060102T150405.000000000Z"

func pendingKey(r *record) store.Key {
	return store.Key{Table: store.TableOrders, PK: pendingPK(pendingShard(r.ID)),
		SK: r.CreatedAt.UTC().Format(pendingSKTime) + "#" + r.ID}
}

func pendingItem(r *record) store.Item {
	data, _ := json.Marshal(pendingRef{AccountID: r.AccountID, OrderID: r.ID})
	return store.Item{Key: pendingKey(r), Data: data}
}

// pendingBefore is the inclusive upper bound of index keys created before t.
func pendingBefore(t time.Time) string { return t.UTC().Format(pendingSKTime) + "#" }
