// Package consumer is the consumer of a queue whose every message names one record that a party
// outside the service moves on (Record): a payout the payout processor
// pays, a payment order the bank pays, a wallet transaction the shopper
// confirms. Each such message is stepped until its record is decided; a
// record not decided yet keeps its message, hidden until it is worth asking
// again, and a message that fails queue.MaxReceives times goes to the DLQ
// (each area's settlement or expiry task re-queues what is left open).
package consumer

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
)

// RetryAfterError is how long a message whose step failed stays hidden.
const RetryAfterError = 2 * time.Second

// Record consumes a queue whose message bodies are JSON objects naming one
// record: the account in "account_id" and the record's id in IDField.
type Record struct {
	Queue   string      // the logical queue (queue.Payouts, ...)
	Q       queue.Queue // for ChangeVisibility
	Log     *slog.Logger
	What    string // what a record is, for the logs: "payout"
	IDField string // the body's field holding the id, also the log attribute: "payout_id"
	// Step moves the record on. again > 0: it is not decided yet, ask again
	// after that long. NotFound: no such record (the message is dropped).
	Step func(ctx context.Context, accountID, id string) (again time.Duration, err error)
}

// Consume is the consumer (a queue.Handler): each message of the batch in
// turn.
func (r Record) Consume(ctx context.Context, batch []queue.Message) []string {
	return queue.Each(r.handle)(ctx, batch)
}

// handle steps one message's record; false keeps the message, hidden until
// it is worth looking again.
func (r Record) handle(ctx context.Context, m queue.Message) bool {
	var body map[string]any
	_ = json.Unmarshal(m.Body, &body)
	account, _ := body["account_id"].(string)
	id, _ := body[r.IDField].(string)
	if account == "" || !ids.Valid(id) {
		// A malformed message can never succeed: drop it, loudly.
		r.Log.Error(r.What+" message malformed; dropped", "message_id", m.ID)
		return true
	}
	again, err := r.Step(ctx, account, id)
	switch {
	case apierr.Is(err, apierr.NotFound):
		r.Log.Error(r.What+" message names no "+r.What+"; dropped", "message_id", m.ID, r.IDField, id)
		return true
	case err != nil:
		r.Log.Warn(r.What+" step failed; will retry", r.IDField, id, "error", err.Error())
		again = RetryAfterError
	case again == 0:
		return true
	}
	// The message's visibility, which the SQS event source (and the local
	// poller) honour, is when to look again; whole seconds, rounded up.
	if err := r.Q.ChangeVisibility(ctx, r.Queue, m.Receipt, again.Round(time.Second)+time.Second); err != nil {
		r.Log.Warn(r.What+" backoff not set", "message_id", m.ID, "error", err.Error())
	}
	return false
}
