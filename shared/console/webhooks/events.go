package webhooks

import (
	"context"
	"encoding/json"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/listing"
	"github.com/paygate/paygate/shared/store"
)

// KindEvent is the resource kind the events API renders with: none. The API
// shows every event in the current envelope and representation at every
// Service-Version; dated changes of the envelope and of data (version
// KindEvent: the legacy {name, merchantId, data} envelope, "payment.3d")
// are the delivery's, rendered at each endpoint's version.
const KindEvent = ""

// Event is an event as the API shows it: the current webhook envelope plus
// the account. Data is the resource as it was at the change, in the current
// representation (the record stores it so).
type Event struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Type    string          `json:"type"`
	Created int64           `json:"created"` // unix seconds, as in the envelope
	Account string          `json:"account"`
	Data    json.RawMessage `json:"data"`
}

// eventOf is the API's view of a stored record.
func eventOf(r eventlog.Record) Event {
	return Event{ID: r.ID, Object: "event", Type: r.Type, Created: r.Created, Account: r.Account, Data: r.Data}
}

// EventFilter narrows an event list; zero fields match everything.
type EventFilter struct {
	Type     string
	From, To time.Time // created range, inclusive, at second precision (created is unix seconds)
	// ObjectID is the id of the resource the event carries (its data's
	// "id": a payment's, an order's): that resource's events only.
	ObjectID string
}

// objectID is the id of the resource an event's data carries ("" when none).
func objectID(data json.RawMessage) string {
	var o struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &o) != nil {
		return ""
	}
	return o.ID
}

// ValidateEventType is the check of a type filter: a catalogue type.
func ValidateEventType(t string) error {
	if !eventlog.Known(t) {
		return apierr.New(CodeEventTypeUnknown, "unknown event type %q; known types: %v", t, eventlog.Types()).WithParam("type")
	}
	return nil
}

// Events pages the account's events, newest first (ids are UUIDv7: the sort
// key is the creation order). Filters apply while paging, within
// listing.DefaultBudget records per request. Errors: Invalid (type, cursor),
// Unavailable, Internal.
func (s *Service) Events(ctx context.Context, accountID string, f EventFilter, limit int, cursor string) ([]Event, string, error) {
	if f.Type != "" {
		if err := ValidateEventType(f.Type); err != nil {
			return nil, "", err
		}
	}
	from, to := int64(0), int64(0)
	if !f.From.IsZero() {
		from = f.From.Unix()
		if f.From.Nanosecond() > 0 {
			from++ // created is whole seconds: the first at or after From
		}
	}
	if !f.To.IsZero() {
		to = f.To.Unix()
	}
	return listing.Collect(ctx, s.st, eventlog.Newest(accountID, cursor), limit, listing.DefaultBudget, func(it store.Item) (Event, bool, error) {
		r, err := eventlog.Decode(it)
		if err != nil {
			return Event{}, false, err
		}
		ev := eventOf(r)
		ok := (f.Type == "" || ev.Type == f.Type) && (f.From.IsZero() || ev.Created >= from) && (f.To.IsZero() || ev.Created <= to) &&
			(f.ObjectID == "" || objectID(ev.Data) == f.ObjectID)
		return ev, ok, nil
	})
}

// Event reads one of the account's events; another account's, or a malformed
// id, is NotFound. Errors: NotFound, Unavailable, Internal.
func (s *Service) Event(ctx context.Context, accountID, id string) (*Event, error) {
	r, err := eventlog.Get(ctx, s.st, accountID, id)
	if err != nil {
		return nil, err
	}
	ev := eventOf(r)
	return &ev, nil
}
