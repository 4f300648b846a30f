package webhooks

import (
	"context"
	"encoding/json"

	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// WithQueue gives the service the webhooks queue, which resend sends to.
func (s *Service) WithQueue(q queue.Queue) *Service {
	c := *s
	c.q = q
	return &c
}

// Resent is the answer of a resend: the deliveries queued, one per endpoint.
type Resent struct {
	Object     string          `json:"object"`
	EventID    string          `json:"event_id"`
	Deliveries []ResentToEntry `json:"deliveries"`
}

// ResentToEntry is one queued delivery of a resend.
type ResentToEntry struct {
	ID         string `json:"id"`
	EndpointID string `json:"endpoint_id"`
}

// Resend queues a new delivery of the event: to endpointID if given (any of
// the account's enabled endpoints of the event's mode, subscribed or not: the
// merchant asks for it by name), else to every endpoint subscribed to its
// type now (an endpoint created after the event included). Each delivery has
// its own id and retry schedule. Errors: NotFound (event or endpoint, also
// another account's), Invalid (a disabled endpoint, or one of the other
// mode), Unavailable.
func (s *Service) Resend(ctx context.Context, accountID, eventID, endpointID string) (*Resent, error) {
	ev, live, err := s.eventWithMode(ctx, accountID, eventID)
	if err != nil {
		return nil, err
	}
	var targets []Endpoint
	if endpointID != "" {
		e, err := s.Get(ctx, accountID, endpointID)
		if err != nil {
			return nil, err
		}
		if e.Disabled {
			return nil, apierr.New(CodeEndpointDisabled, "webhook endpoint %s is disabled; enable it first", e.ID)
		}
		if e.Livemode != live {
			return nil, apierr.New(CodeEndpointMode, "webhook endpoint %s is in the other mode (live or test) than the event", e.ID)
		}
		if e.Format == FormatAdyen && !adyennotify.Delivers(ev.Type) {
			return nil, apierr.New(CodeEventTypeNotInFormat, "event type %s has no Adyen notification, and webhook endpoint %s is adyen-format", ev.Type, e.ID).WithParam("endpoint_id")
		}
		targets = []Endpoint{*e}
	} else {
		subs, err := s.Subscribers(ctx, accountID, ev.Type)
		if err != nil {
			return nil, err
		}
		for _, e := range subs {
			if e.Livemode == live {
				targets = append(targets, e)
			}
		}
	}
	out := &Resent{Object: "event_resend", EventID: ev.ID, Deliveries: []ResentToEntry{}}
	for _, e := range targets {
		m := Message{Account: accountID, Event: ev.ID, Endpoint: e.ID, Delivery: ids.Prefixed("whd"), Attempt: 1, Resend: true}
		if err := sendMessage(ctx, s.q, m, 0); err != nil {
			return nil, err
		}
		out.Deliveries = append(out.Deliveries, ResentToEntry{ID: m.Delivery, EndpointID: e.ID})
	}
	return out, nil
}

// eventWithMode reads one of the account's events and its mode (live or
// test) in one read. Errors: as Event's.
func (s *Service) eventWithMode(ctx context.Context, accountID, eventID string) (*Event, bool, error) {
	r, err := eventlog.Get(ctx, s.st, accountID, eventID)
	if err != nil {
		return nil, false, err
	}
	ev := eventOf(r)
	return &ev, r.Livemode, nil
}

// Attempts pages the delivery attempts of one of the account's endpoints,
// newest first. Errors: NotFound, Invalid (cursor), Unavailable, Internal.
func (s *Service) Attempts(ctx context.Context, accountID, endpointID string, limit int, cursor string) ([]Attempt, string, error) {
	if _, err := s.Get(ctx, accountID, endpointID); err != nil {
		return nil, "", err
	}
	q := store.Query{Table: store.TableAccounts, PK: attemptPK(accountID, endpointID), Desc: true, Cursor: cursor}
	return listing.Collect(ctx, s.st, q, limit, listing.DefaultBudget, func(it store.Item) (Attempt, bool, error) {
		var a Attempt
		if err := json.Unmarshal(it.Data, &a); err != nil {
			return a, false, apierr.Wrap("webhooks.Attempts", apierr.Internal, err)
		}
		return a, true, nil
	})
}
