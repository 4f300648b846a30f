package ledger

import (
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/apierr"
	"github.com/paygate/paygate/shared/ids"
	"github.com/paygate/paygate/shared/store"
)

// EventDepositPosted is the event type written with every posted deposit, in
// the deposit's own transaction, for the webhook pipeline.
const EventDepositPosted = "deposit.posted"

// EventRetention is how long event records stay in the events table, as for
// every other writer (payments.EventRetention).
const EventRetention = 30 * 24 * time.Hour

// Event is an event record (the current webhook envelope plus the account),
// in the shape every writer uses. Data is the deposit as the API shows it.
type Event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Created  int64  `json:"created"`
	Account  string `json:"account"`
	Livemode bool   `json:"livemode"`
	Data     View   `json:"data"`
}

// EventKey addresses an event record: one partition per account, event ids
// (time-ordered) as sort keys.
func EventKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: "evt#" + accountID, SK: id}
}

// postedEventOp writes d's deposit.posted event. Its id is new, so the put
// cannot fail on its own: the event commits exactly when the deposit does.
func postedEventOp(d *Deposit, now time.Time) (store.Op, error) {
	ev := Event{ID: ids.Prefixed("evt"), Type: EventDepositPosted, Created: now.Unix(), Account: d.AccountID,
		Livemode: d.Livemode, Data: d.View()}
	data, err := json.Marshal(ev)
	if err != nil {
		return store.Op{}, apierr.Wrap("ledger.postedEventOp", apierr.Internal, err)
	}
	return store.Put(store.Item{Key: EventKey(d.AccountID, ev.ID), Data: data,
		ExpiresAt: time.Unix(ev.Created, 0).Add(EventRetention)}, store.IfAbsent), nil
}
