package webhooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Publisher fans new event records out to the endpoints subscribed to them:
// one webhooks-queue message per (event, endpoint), each with the delivery id
// DeliveryID gives, so a record handed over twice (the stream's at-least-once
// delivery, a retried batch) yields messages the sender recognises as one
// delivery.
type Publisher struct {
	svc *Service
	q   queue.Queue
	log *slog.Logger
}

// NewPublisher builds the publisher over the service's store and q.
func NewPublisher(svc *Service, q queue.Queue, log *slog.Logger) *Publisher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Publisher{svc: svc, q: q, log: log}
}

// Publish queues the deliveries of one new event record. A record that is not
// an event, or cannot be read, is logged and skipped: retrying it would not
// change it, and holding the stream behind it would hold every later event.
// Errors (store or queue unavailable) mean: hand the record over again.
func (p *Publisher) Publish(ctx context.Context, it store.Item) (int, error) {
	if !eventlog.IsRecord(it.Key) {
		return 0, nil
	}
	ev, err := eventlog.DecodeHead(it)
	if err != nil || ev.Type == "" || ev.Account == "" {
		p.log.Error("webhooks: unreadable event record skipped", "pk", it.PK, "sk", it.SK)
		return 0, nil
	}
	subs, err := p.svc.Subscribers(ctx, ev.Account, ev.Type)
	if err != nil {
		return 0, err
	}
	sent := 0
	for _, e := range subs {
		if e.Livemode != ev.Livemode {
			continue // test endpoints hear test events, live ones live events
		}
		m := Message{Account: ev.Account, Event: ev.ID, Endpoint: e.ID, Delivery: DeliveryID(ev.ID, e.ID), Attempt: 1}
		if err := sendMessage(ctx, p.q, m, 0); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

// Consume is the WebhookPublisherFunction's consumer of the events table's
// changes (store.ChangeHandler). Only inserts are published: event records
// are written once and never changed (a rewrite, such as the expiry
// backfill's, is not a new event), and a removal is the TTL reaping an old
// one. Changes go in order; the first that could not be published stops
// the batch, and the source hands it over again with what follows.
func (p *Publisher) Consume(ctx context.Context, changes []store.Change) int {
	for i, c := range changes {
		if c.Kind != store.ChangeInsert {
			continue
		}
		if _, err := p.Publish(ctx, c.Item); err != nil {
			p.log.Error("webhooks: publish failed; the batch resumes here", "pk", c.Item.PK, "sk", c.Item.SK, "error", err.Error())
			return i
		}
	}
	return len(changes)
}

func sendMessage(ctx context.Context, q queue.Queue, m Message, delay time.Duration) error {
	body, err := json.Marshal(m)
	if err != nil {
		return apierr.Wrap("webhooks.sendMessage", apierr.Internal, err)
	}
	if delay > MaxQueueDelay {
		delay = MaxQueueDelay
	}
	if _, err := q.Send(ctx, queue.Webhooks, body, delay); err != nil {
		return apierr.Wrap("webhooks.sendMessage", apierr.Unavailable, err)
	}
	return nil
}

// MaxQueueDelay is SQS's longest message delay.
const MaxQueueDelay = 15 * time.Minute
