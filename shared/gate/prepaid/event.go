package prepaid

import (
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
)

// EventDepositPosted is the event type written with every posted deposit, in
// the deposit's own transaction, for the webhook pipeline.
const EventDepositPosted = "deposit.posted"

// postedEventOp is d's deposit.posted event (data: the deposit as the API
// shows it), for the deposit's transaction.
func postedEventOp(d *Deposit, now time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: EventDepositPosted, Account: d.AccountID, Livemode: d.Livemode, At: now, Data: d.View()})
}
