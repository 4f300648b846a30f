package orders

import (
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
)

// Event types written with order outcomes, for the webhook pipeline.
const (
	EventCompleted = "order.completed"
	EventFailed    = "order.failed"
)

// eventOp is the event of r's outcome, in the outcome's transaction; data is
// the order as the API shows it.
func eventOp(typ string, r *record, at time.Time) (store.Op, error) {
	return eventlog.Append(eventlog.Event{Type: typ, Account: r.AccountID, Livemode: r.Live, At: at, Data: r.View()})
}
