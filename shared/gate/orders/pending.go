package orders

import (
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// pendingIndex lists every pending order of every account by its creation
// time, so the reconciler finds orders whose queue message was lost without
// a Scan ("older than a minute" is a key range). An entry is written with
// the order and deleted in the transaction that ends it.
var pendingIndex = dueindex.Index{Table: store.TableOrders, Prefix: "pending#"}

func pendingPut(r *record) store.Op    { return pendingIndex.Put(r.AccountID, r.ID, r.CreatedAt) }
func pendingDelete(r *record) store.Op { return pendingIndex.Delete(r.AccountID, r.ID, r.CreatedAt) }
