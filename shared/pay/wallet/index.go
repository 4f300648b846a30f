package wallet

import (
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// openIndex lists every NEW or PROCESSING transaction of every account by
// its creation time, so the expirer finds the ones the shopper never
// confirmed without a Scan. An entry is written with the transaction and
// deleted in the transaction of the move that leaves NEW/PROCESSING.
var openIndex = dueindex.Index{Table: store.TablePayments, Prefix: "wopen#"}

func openPut(r *record) store.Op    { return openIndex.Put(r.AccountID, r.ID, r.CreatedAt) }
func openDelete(r *record) store.Op { return openIndex.Delete(r.AccountID, r.ID, r.CreatedAt) }

// eventOp is the event of r's change, in the change's transaction; its data
// is the transaction as the API shows it after the change.
func eventOp(typ string, r *record, at time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: typ, Account: r.AccountID, Livemode: r.Live, At: at, Data: r.View()})
}
