// Package queue is the queue port: SQS semantics (at-least-once delivery,
// visibility timeout, delay, receive count, dead-letter after MaxReceives),
// offered by two adapters: SQS and an embedded durable queue.
package queue

import (
	"context"
	"errors"
	"time"
)

// Logical queue names. Adapters map them to physical names/URLs.
const (
	Fulfilment = "fulfilment" // gate orders waiting for a vendor
	Webhooks   = "webhooks"   // webhook deliveries
	// WalletConfirmations carries wallet transactions waiting for the
	// shopper's answer.
	WalletConfirmations = "wallet-confirmations"
	// Payouts carries payouts waiting for the payout processor.
	Payouts = "payouts"
	// PaymentOrders carries settlement payment orders waiting for the bank.
	PaymentOrders = "payment-orders"
)

// Names lists every logical queue (each has a DLQ, DLQName).
var Names = []string{Fulfilment, Webhooks, WalletConfirmations, Payouts, PaymentOrders}

// Message is one received message.
type Message struct {
	ID           string
	Body         []byte
	Receipt      string // handle for Delete/ChangeVisibility; valid for this receive only
	ReceiveCount int    // 1 on the first delivery
}

// Queue is the port.
type Queue interface {
	// Send enqueues body, invisible for delay (0..15 min).
	Send(ctx context.Context, queue string, body []byte, delay time.Duration) (id string, err error)
	// Receive returns up to max (1..10) visible messages and hides them for
	// visibility; it waits up to wait (0..20 s) for at least one.
	Receive(ctx context.Context, queue string, max int, visibility, wait time.Duration) ([]Message, error)
	// Delete acknowledges a message. A stale receipt is ErrStaleReceipt.
	Delete(ctx context.Context, queue, receipt string) error
	// ChangeVisibility re-hides (or with 0 releases) a received message; it is
	// how consumers back off.
	ChangeVisibility(ctx context.Context, queue, receipt string, visibility time.Duration) error
	Close() error
}

// ErrStaleReceipt: the receipt no longer names a hidden message (it became
// visible again and was received by someone else, or was deleted).
var ErrStaleReceipt = errors.New("queue: stale receipt")

// ErrInvalid marks a misuse of the port.
var ErrInvalid = errors.New("queue: invalid request")

// DLQName is the dead-letter queue of a logical queue.
func DLQName(queue string) string { return queue + "-dlq" }

// MaxReceives before a message moves to its DLQ (SQS redrive maxReceiveCount).
const MaxReceives = 5

// Handler consumes one batch of received messages, as the queue's event
// source hands it over (Lambda's SQS event source on AWS, the poller
// locally), and returns the ids of the messages to deliver again; the
// others are deleted. The app layer adapts it to the event source, so a
// consumer sees only Messages.
type Handler func(ctx context.Context, batch []Message) (again []string)

// Each is the Handler that handles a batch's messages one at a time, in
// order: handle answers true when a message is done, false to have it
// delivered again.
func Each(handle func(context.Context, Message) bool) Handler {
	return func(ctx context.Context, batch []Message) []string {
		var again []string
		for _, m := range batch {
			if !handle(ctx, m) {
				again = append(again, m.ID)
			}
		}
		return again
	}
}
