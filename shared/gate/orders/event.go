package orders

import (
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/store"
)

// Event types written with order outcomes, for the webhook pipeline.
const (
	EventCompleted = "order.completed"
	EventFailed    = "order.failed"
)

// Event is an event record (the current webhook envelope plus the account):
// written in the same transaction as the change it reports, read by the
// events stream publisher. Data is the order as the API shows it.
type Event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Account  string `json:"account"`
	Created  int64  `json:"created"`
	Livemode bool   `json:"livemode"`
	Data     Order  `json:"data"`
}

// EventKey addresses an event record: one partition per account, event ids
// (time-ordered) as sort keys.
func EventKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: "evt#" + accountID, SK: id}
}

func eventOp(typ string, r *record, now time.Time) store.Op {
	ev := Event{ID: ids.Prefixed("evt"), Type: typ, Account: r.AccountID, Created: now.Unix(), Livemode: r.Live, Data: r.View()}
	data, _ := json.Marshal(ev)
	return store.Put(store.Item{Key: EventKey(r.AccountID, ev.ID), Data: data}, store.IfAbsent)
}
