package webhooks

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/console/webhooks/outbound"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// The delivery pipeline (DESIGN.md, webhooks):
//
//	events table stream -> Publisher: one message per (event, subscribed
//	endpoint) on the webhooks queue -> Sender: render for the endpoint's
//	version, sign, POST; record the attempt; on failure queue the next
//	attempt (Schedule), and after MaxAge give up: the delivery is failed and
//	its message goes to the DLQ.
//
// Key layout (accounts table, beside the endpoints; not streamed):
//
//	whdlv#<account>          / <delivery id>  a delivery's state: pending,
//	                                          succeeded or failed, attempts
//	whatt#<account>#<endpoint> / <attempt id> one attempt (ids time-ordered:
//	                                          a query lists newest first)
//
// Both expire after DeliveryRetention, as event records do. The delivery
// state is also the sender's record of each (event, endpoint) it delivered:
// a publisher message's delivery id is DeliveryID(event, endpoint), and the
// sender claims the state (a conditional put) before each POST, so a record
// the stream hands over again (a replay, a new event source mapping at
// TRIM_HORIZON, a republished batch) finds the delivery made, or being made,
// and sends nothing.

// DeliveryRetention is how long delivery states and attempts are kept.
const DeliveryRetention = 30 * 24 * time.Hour

func deliveryPK(accountID string) string { return "whdlv#" + accountID }

func attemptPK(accountID, endpointID string) string { return "whatt#" + accountID + "#" + endpointID }

func deliveryKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableAccounts, PK: deliveryPK(accountID), SK: id}
}

// Message is the webhooks queue's body: one attempt of one delivery.
type Message struct {
	Account  string `json:"account"`
	Event    string `json:"event"`
	Endpoint string `json:"endpoint"`
	Delivery string `json:"delivery"`
	Attempt  int    `json:"attempt"` // 1 for the first
	// NotBefore (unix ms) is when the attempt is due. SQS delays stop at 15
	// minutes: a message received earlier is sent again with the rest of the
	// wait (at most 15 minutes per hop) instead of being attempted.
	NotBefore int64 `json:"not_before,omitempty"`
	Resend    bool  `json:"resend,omitempty"`
}

func (m Message) valid() bool {
	return m.Account != "" && ids.ValidPrefixed("evt", m.Event) && ids.ValidPrefixed("we", m.Endpoint) &&
		ids.ValidPrefixed("whd", m.Delivery) && m.Attempt >= 1
}

// deliveryNS makes a delivery id from (event, endpoint): the publisher sends
// the same id however often the stream hands it the same record, so the
// sender's dedupe holds across publisher retries.
var deliveryNS = uuid.MustParse("5b0c1e9e-8a0e-4b55-9f3e-7d1b1d0f2a61")

// DeliveryID is the id of the first delivery of event to endpoint.
func DeliveryID(eventID, endpointID string) string {
	u := uuid.NewHash(sha1.New(), deliveryNS, []byte(eventID+"/"+endpointID), 5)
	return "whd_" + hex.EncodeToString(u[:])
}

// Delivery status values.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// deliveryState is what the sender knows of one delivery.
type deliveryState struct {
	ID             string     `json:"id"`
	EndpointID     string     `json:"endpoint_id"`
	EventID        string     `json:"event_id"`
	Status         string     `json:"status"`
	Attempts       int        `json:"attempts"`
	FirstAttemptAt time.Time  `json:"first_attempt_at"`
	NextAttemptAt  *time.Time `json:"next_attempt_at,omitempty"`
	// Sending is the attempt a sender claimed before its POST (0: none),
	// and SendingUntil when the claim lapses if that sender never records
	// the attempt (it crashed): see Sender.claim.
	Sending      int        `json:"sending,omitempty"`
	SendingUntil *time.Time `json:"sending_until,omitempty"`

	version int64
}

// sendingNow says whether a sender holds a live claim (on this attempt, or
// on the one before, whose record the next attempt waits for: attempts of a
// delivery never overlap).
func (d *deliveryState) sendingNow(now time.Time) bool {
	return d.Sending > 0 && d.SendingUntil != nil && now.Before(*d.SendingUntil)
}

// Attempt is one delivery attempt as the API shows it.
type Attempt struct {
	ID         string `json:"id"`
	Object     string `json:"object"`
	DeliveryID string `json:"delivery_id"`
	EndpointID string `json:"endpoint_id"`
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	Attempt    int    `json:"attempt"`
	// Status is succeeded (a 2xx within the timeout) or failed.
	Status     string `json:"status"`
	StatusCode *int   `json:"status_code"` // nil when no answer came
	// Error says why a failed attempt failed (timeout, outbound.CouldNotConnect,
	// status): never the dial error, an address or a port.
	Error     *string `json:"error"`
	LatencyMS int64   `json:"latency_ms"`
	// NextAttemptAt is when the delivery is tried again; nil once it
	// succeeded or was given up.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	Resend        bool       `json:"resend"`
	CreatedAt     time.Time  `json:"created_at"`
}

// KindAttempt is the resource kind of delivery attempts.
const KindAttempt = "webhook_delivery"

func decodeState(it store.Item) (*deliveryState, error) {
	var d deliveryState
	if err := json.Unmarshal(it.Data, &d); err != nil {
		return nil, apierr.Wrap("webhooks.decodeState", apierr.Internal, err)
	}
	d.version = it.Version
	return &d, nil
}

func (d *deliveryState) putOp(accountID string, now time.Time) (store.Op, error) {
	data, err := json.Marshal(d)
	if err != nil {
		return store.Op{}, apierr.Wrap("webhooks.deliveryState", apierr.Internal, err)
	}
	cond := store.IfAbsent
	if d.version > 0 {
		cond = store.IfVersion(d.version)
	}
	return store.Put(store.Item{Key: deliveryKey(accountID, d.ID), Data: data, ExpiresAt: now.Add(DeliveryRetention)}, cond), nil
}

func attemptOp(accountID string, a *Attempt) (store.Op, error) {
	data, err := json.Marshal(a)
	if err != nil {
		return store.Op{}, apierr.Wrap("webhooks.attempt", apierr.Internal, err)
	}
	return store.Put(store.Item{Key: store.Key{Table: store.TableAccounts, PK: attemptPK(accountID, a.EndpointID), SK: a.ID},
		Data: data, ExpiresAt: a.CreatedAt.Add(DeliveryRetention)}, store.IfAbsent), nil
}

// Schedule is when failed attempts are tried again: after Delays[i] for the
// (i+1)th failure, then every Every, until MaxAge after the first attempt;
// the last attempt falls at MaxAge. Each wait is spread by ±Jitter.
type Schedule struct {
	Delays []time.Duration
	Every  time.Duration
	MaxAge time.Duration
	Jitter float64
}

// DefaultSchedule: 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, then every 12 h
// for 3 days: twelve attempts.
var DefaultSchedule = Schedule{
	Delays: []time.Duration{time.Minute, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour},
	Every:  12 * time.Hour,
	MaxAge: 72 * time.Hour,
	Jitter: 0.1,
}

// Next is when to try again after the failed attempt number n (1-based),
// made at now, of a delivery first tried at first; false means give up.
func (s Schedule) Next(n int, first, now time.Time) (time.Time, bool) {
	deadline := first.Add(s.MaxAge)
	if !now.Before(deadline) {
		return time.Time{}, false
	}
	d := s.Every
	if n >= 1 && n <= len(s.Delays) {
		d = s.Delays[n-1]
	}
	if s.Jitter > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * s.Jitter * float64(d))
	}
	next := now.Add(d)
	if next.After(deadline) {
		next = deadline
	}
	return next, true
}

// failReason is an attempt's error text: never the response body, and for
// a POST that got no answer one of outbound.Reason's generic reasons, never
// the dial error (the sender's log keeps that).
func failReason(code int, err error) string {
	if errors.Is(err, errNotAccepted) {
		return err.Error()
	}
	if err != nil {
		return outbound.Reason(err)
	}
	return fmt.Sprintf("the endpoint answered %d", code)
}
