package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/console/webhooks/adyennotify"
	"github.com/paygate/paygate/shared/console/webhooks/outbound"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/pay/adyen"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/metrics"
	"github.com/paygate/paygate/shared/platform/retry"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// Sender makes delivery attempts: it renders the event for the endpoint's
// version, signs it, POSTs it, records the attempt, and queues the next one
// or gives up. Each attempt is claimed in the delivery state before its POST
// (claim), so copies of a message handled at once by several senders (SQS
// redelivery, a stream record published twice, a replayed stream) POST once,
// and a delivery made is not sent again. Delivery stays at least once across
// crashes: a sender that POSTed and died before recording the attempt leaves
// a claim that lapses (SendLease), and the attempt is made again; receivers
// still dedupe by event id.
type Sender struct {
	svc      *Service
	accounts *accounts.Repo
	q        queue.Queue
	log      *slog.Logger
	schedule Schedule
	clients  Clients
}

// SenderConfig configures a Sender. Zero values take the defaults.
type SenderConfig struct {
	Schedule Schedule // DefaultSchedule
	Log      *slog.Logger
	// Clients by policy; outbound.Client(p) for each (tests may point the
	// test policy's at a transport of their own).
	Clients Clients
}

// NewSender builds a sender over the service's store and clock and q.
func NewSender(svc *Service, q queue.Queue, cfg SenderConfig) *Sender {
	s := &Sender{svc: svc, accounts: accounts.NewRepo(svc.st, svc.clock), q: q, log: cfg.Log, schedule: cfg.Schedule, clients: cfg.Clients}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.schedule.MaxAge == 0 {
		s.schedule = DefaultSchedule
	}
	s.clients = s.clients.withDefaults()
	return s
}

// hopSlack: a message up to this early is attempted now rather than hopped.
const hopSlack = time.Second

// Consume is the WebhookSenderFunction's handler (partial batch
// responses): the batch's messages are attempted concurrently, since each
// may wait up to the delivery timeout; a message whose work could not be
// finished (store or queue unavailable) is reported failed and comes back.
func (s *Sender) Consume(ctx context.Context, batch []queue.Message) []string {
	var (
		mu    sync.Mutex
		again []string
		wg    sync.WaitGroup
	)
	// One batch may hold one attempt twice (a record published twice):
	// it is made once, the copies acknowledged.
	seen := make(map[string]bool, len(batch))
	for _, m := range batch {
		if seen[string(m.Body)] {
			continue
		}
		seen[string(m.Body)] = true
		wg.Go(func() {
			if err := s.handle(ctx, m.Body); err != nil {
				switch {
				case errors.Is(err, errNoTime):
					if verr := s.q.ChangeVisibility(ctx, queue.Webhooks, m.Receipt, time.Second); verr != nil {
						s.log.Warn("webhook message's visibility not shortened", "message_id", m.ID, "error", verr.Error())
					}
					s.log.Info("webhook attempt left for the message's next receive", "message_id", m.ID, "reason", err.Error())
				case errors.Is(err, errInFlight):
					// Back once the other sender's claim has lapsed, not
					// after the queue's whole visibility timeout.
					if verr := s.q.ChangeVisibility(ctx, queue.Webhooks, m.Receipt, SendLease); verr != nil {
						s.log.Warn("webhook message's visibility not shortened", "message_id", m.ID, "error", verr.Error())
					}
					s.log.Info("webhook attempt in flight in another sender; message retried", "message_id", m.ID)
				default:
					// A store or queue failure: back in seconds, growing with
					// the receives, not after the queue's visibility timeout
					// (make chaos: deliveries waited minutes after a blip).
					if verr := s.q.ChangeVisibility(ctx, queue.Webhooks, m.Receipt, errorBackoff.Delay(m.ReceiveCount-1).Round(time.Second)+time.Second); verr != nil {
						s.log.Warn("webhook message's visibility not shortened", "message_id", m.ID, "error", verr.Error())
					}
					s.log.Error("webhook delivery failed; message retried", "message_id", m.ID, "error", err.Error())
				}
				mu.Lock()
				again = append(again, m.ID)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return again
}

func (s *Sender) handle(ctx context.Context, body []byte) error {
	var m Message
	if err := json.Unmarshal(body, &m); err != nil || !m.valid() {
		// Nothing would make it readable later: straight to the DLQ, for a
		// person to look at.
		s.log.Error("webhooks: unreadable delivery message sent to the DLQ")
		_, err := s.q.Send(ctx, queue.DLQName(queue.Webhooks), body, 0)
		return err
	}
	return s.Deliver(ctx, m)
}

// Deliver makes the attempt m names (or hops it on if it is early).
func (s *Sender) Deliver(ctx context.Context, m Message) error {
	now := s.svc.now()
	if m.NotBefore > 0 {
		if wait := time.UnixMilli(m.NotBefore).Sub(now); wait > hopSlack {
			return sendMessage(ctx, s.q, m, wait)
		}
	}
	e, err := s.svc.Get(ctx, m.Account, m.Endpoint)
	if apierr.KindOf(err) == apierr.NotFound {
		return nil // the endpoint was deleted: nobody to deliver to
	}
	if err != nil {
		return err
	}
	if e.Disabled {
		return nil
	}
	st, err := s.state(ctx, m)
	if err != nil {
		return err
	}
	if st.done(m.Attempt) {
		return nil // delivered, given up, or this attempt already made
	}
	ev, err := s.svc.Event(ctx, m.Account, m.Event)
	if apierr.KindOf(err) == apierr.NotFound {
		s.log.Warn("webhooks: event gone before its delivery", "event_id", m.Event)
		return nil
	}
	if err != nil {
		return err
	}
	signer, err := s.svc.Opened(ctx, e)
	if err != nil {
		return err
	}
	body, err := s.render(ctx, signer, ev)
	if err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < attemptReserve {
		return errNoTime
	}
	if st, err = s.claim(ctx, m, st); err != nil || st == nil {
		return err
	}
	leaseEnd := *st.SendingUntil

	code, answer, latency, perr := s.post(ctx, signer, ev, body)
	done := s.svc.now()
	ok := perr == nil && code >= 200 && code < 300
	if ok && e.Format == FormatAdyen && !adyen.IsAccepted(answer) {
		// Adyen's rule: a notification is taken only when answered
		// "[accepted]"; any other 2xx is retried like a failure.
		ok, perr = false, errNotAccepted
	}
	a := &Attempt{
		ID: ids.Prefixed("wha"), Object: KindAttempt, DeliveryID: m.Delivery, EndpointID: e.ID, EventID: ev.ID,
		EventType: ev.Type, Attempt: m.Attempt, Status: DeliverySucceeded, LatencyMS: latency.Milliseconds(),
		Resend: m.Resend, CreatedAt: done,
	}
	if code > 0 { // an answer came (an Adyen-format one may still have failed)
		a.StatusCode = &code
	}
	if st.Attempts == 0 {
		st.FirstAttemptAt = now
	}
	st.Attempts = m.Attempt
	st.NextAttemptAt = nil
	st.Sending, st.SendingUntil = 0, nil
	if ok {
		st.Status = DeliverySucceeded
	} else {
		a.Status = DeliveryFailed
		reason := failReason(code, perr)
		a.Error = &reason
		// The next attempt is queued (or the message dead-lettered) before
		// this one is recorded: a crash in between repeats this attempt,
		// never loses the next.
		if at, more := s.schedule.Next(m.Attempt, st.FirstAttemptAt, done); more {
			st.NextAttemptAt, a.NextAttemptAt = &at, &at
			next := m
			next.Attempt++
			next.NotBefore = at.UnixMilli()
			if err := sendMessage(ctx, s.q, next, at.Sub(done)); err != nil {
				return err
			}
		} else {
			st.Status = DeliveryFailed
			b, err := json.Marshal(m)
			if err != nil {
				return apierr.Wrap("webhooks.Deliver", apierr.Internal, err)
			}
			if _, err := s.q.Send(ctx, queue.DLQName(queue.Webhooks), b, 0); err != nil {
				return apierr.Wrap("webhooks.Deliver", apierr.Unavailable, err)
			}
		}
	}
	put, err := st.putOp(m.Account, done)
	if err != nil {
		return err
	}
	rec, err := attemptOp(m.Account, a)
	if err != nil {
		return err
	}
	err = s.record(ctx, leaseEnd, put, rec)
	if _, dup := store.IsConditionFailed(err); dup {
		// The claim lapsed and another sender took the attempt over: it
		// records it.
		return nil
	}
	if err != nil {
		return apierr.Wrap("webhooks.Deliver", apierr.Unavailable, err)
	}
	args := []any{"event_id", ev.ID, "endpoint_id", e.ID, "attempt", m.Attempt,
		"status", a.Status, "status_code", code, "latency_ms", a.LatencyMS}
	if perr != nil {
		// The detail (dial error, address, port) is for the log only: the
		// attempt record says outbound.Reason's generic words.
		args = append(args, "error", perr.Error())
	}
	s.log.Info("webhook attempt", args...)
	metrics.WebhookAttempt(!ok, st.Status == DeliveryFailed)
	s.noteHealth(ctx, e, ok, done)
	return nil
}

// recordBackoff paces the tries of an attempt's record.
var recordBackoff = retry.Backoff{Base: 200 * time.Millisecond, Max: 2 * time.Second, Jitter: retry.Equal}

// recordMargin: the last try of an attempt's record starts this long before
// the claim lapses, so no other sender takes the attempt over meanwhile.
const recordMargin = 5 * time.Second

// record writes an attempt's outcome, trying again through store failures
// while the claim holds: the POST is made, and an attempt left unrecorded is
// made again once the claim lapses, so a receiver that acknowledged it would
// see the event twice (make chaos: one write lost in a throttling storm did
// that). A condition failure is final (another sender took over).
func (s *Sender) record(ctx context.Context, leaseEnd time.Time, ops ...store.Op) error {
	for n := 0; ; n++ {
		err := s.svc.st.Write(ctx, ops...)
		if _, lost := store.IsConditionFailed(err); err == nil || lost {
			return err
		}
		wait := recordBackoff.Delay(n)
		if s.svc.now().Add(wait).After(leaseEnd.Add(-recordMargin)) || retry.SleepCtx(ctx, wait) != nil {
			return err
		}
	}
}

func (s *Sender) state(ctx context.Context, m Message) (*deliveryState, error) {
	it, err := s.svc.st.Get(ctx, deliveryKey(m.Account, m.Delivery))
	if errors.Is(err, store.ErrNotFound) {
		return &deliveryState{ID: m.Delivery, EndpointID: m.Endpoint, EventID: m.Event, Status: DeliveryPending}, nil
	}
	if err != nil {
		return nil, apierr.Wrap("webhooks.state", apierr.Unavailable, err)
	}
	return decodeState(it)
}

// done says whether attempt n of the delivery needs no POST: the delivery
// succeeded or was given up, attempt n (or a later one) was made, or a later
// one was claimed (its own message carries the delivery on).
func (d *deliveryState) done(n int) bool {
	return d.Status != DeliveryPending || d.Attempts >= n || d.Sending > n
}

// errorBackoff is when a message whose delivery met a store or queue
// failure comes back: 2 s after the first receive, doubling to a minute.
var errorBackoff = retry.Backoff{Base: 2 * time.Second, Max: time.Minute, Jitter: retry.Equal}

// SendLease is how long a sender's claim on an attempt holds: from the
// claim to the attempt's record a sender makes one POST (at most
// outbound.DeliveryTimeout) and a few store calls (each bounded at 5 s), so
// a sender still at work keeps its claim; shorter than the webhooks queue's
// visibility timeout (180 s), so the message of a sender that crashed
// holding a claim comes back after the claim lapsed and makes the attempt.
// (It was 2 minutes, the function's timeout twice; a delivery cut by kill -9
// then waited that long.)
const SendLease = 30 * time.Second

// claimWait bounds how long a sender waits for another one's claimed
// attempt to be recorded (one POST's timeout and some) before leaving its
// copy of the message to come back later.
const claimWait = outbound.DeliveryTimeout + 5*time.Second

// attemptReserve is the time an attempt needs before its invocation's
// deadline: its POST and its record. Lambda ends an invocation at its
// deadline, and an attempt POSTed there and never recorded is made again
// once its claim lapses, so its receiver sees the event twice (make chaos's
// handler deadlines).
const attemptReserve = outbound.DeliveryTimeout + recordMargin

// errNoTime: the invocation's deadline is too close for an attempt; its
// message comes back in a second.
var errNoTime = errors.New("webhooks: too close to the invocation's deadline to make an attempt")

// errInFlight: another sender holds the claim on this attempt and has not
// recorded it yet; the message comes back after its visibility timeout.
var errInFlight = errors.New("webhooks: this attempt is being made by another sender")

// claim takes attempt m.Attempt of m's delivery for this sender before its
// POST: a conditional put of the delivery state (absent, or at the version
// read) marking the attempt as being sent until SendLease from now. Exactly
// one of the senders holding copies of a message wins; the others wait for
// its record (and then have nothing to do: nil state) or, past claimWait,
// return errInFlight. A claim that lapsed unrecorded is taken over. The
// state returned is at the claimed version, for the attempt's record; st is
// the state as last read.
func (s *Sender) claim(ctx context.Context, m Message, st *deliveryState) (*deliveryState, error) {
	deadline := time.Now().Add(claimWait)
	for reread := false; ; reread = true {
		if reread {
			var err error
			if st, err = s.state(ctx, m); err != nil {
				return nil, err
			}
		}
		if st.done(m.Attempt) {
			return nil, nil
		}
		now := s.svc.now()
		if st.sendingNow(now) {
			if time.Now().After(deadline) {
				return nil, errInFlight
			}
			select {
			case <-ctx.Done():
				return nil, apierr.Wrap("webhooks.claim", apierr.Unavailable, ctx.Err())
			case <-time.After(claimPoll):
			}
			continue
		}
		until := now.Add(SendLease)
		st.Sending, st.SendingUntil = m.Attempt, &until
		put, err := st.putOp(m.Account, now)
		if err != nil {
			return nil, err
		}
		err = s.svc.st.Write(ctx, put)
		if _, lost := store.IsConditionFailed(err); lost {
			continue // another sender wrote first: read what it did
		}
		if err != nil {
			return nil, apierr.Wrap("webhooks.claim", apierr.Unavailable, err)
		}
		st.version++ // the store's version: 1 on create, +1 on every write
		return st, nil
	}
}

// claimPoll is how often a waiting sender reads the delivery state.
const claimPoll = 100 * time.Millisecond

// render is the payload for e: in its api_version, else the account's
// default; or Adyen's notification, signed with e's HMAC key, for an
// Adyen-format endpoint.
func (s *Sender) render(ctx context.Context, e *Endpoint, ev *Event) ([]byte, error) {
	v := e.APIVersion
	var merchantAccount string
	if v == "" || e.Format == FormatAdyen {
		a, err := s.accounts.Get(ctx, ev.Account)
		if err != nil && apierr.KindOf(err) != apierr.NotFound {
			return nil, err
		}
		if a != nil {
			v, merchantAccount = a.DefaultVersion, a.MerchantAccount
		}
	}
	if e.Format == FormatAdyen {
		b, err := adyennotify.Render(adyennotify.Event{Type: ev.Type, Created: time.Unix(ev.Created, 0).UTC(), Live: e.Livemode, Data: ev.Data},
			merchantAccount, e.Secret)
		if err != nil {
			return nil, apierr.Wrap("webhooks.render", apierr.Internal, err)
		}
		return b, nil
	}
	if !version.Known(v) {
		v = version.Current
	}
	return Render(ev, v)
}

// Render is the webhook body of ev at version v: the {id, type, created,
// data} envelope from 2023-09-01, {name, merchantId, data} before, and data
// through the same dated changes as API responses of its kind.
func Render(ev *Event, v string) ([]byte, error) {
	var data any = ev.Data
	if version.NeedsTransform(v) {
		var obj map[string]any
		if err := json.Unmarshal(ev.Data, &obj); err != nil {
			return nil, apierr.Wrap("webhooks.Render", apierr.Internal, err)
		}
		kind, _ := obj["object"].(string)
		data = version.Apply(v, version.Ctx{Kind: kind}, obj)
	}
	env := map[string]any{"id": ev.ID, "type": ev.Type, "created": ev.Created, "data": data, "account": ev.Account}
	env = version.Apply(v, version.Ctx{Kind: version.KindEvent}, env)
	delete(env, "account") // only the legacy envelope names it (merchantId)
	b, err := json.Marshal(env)
	if err != nil {
		return nil, apierr.Wrap("webhooks.Render", apierr.Internal, err)
	}
	return b, nil
}

// noteHealth keeps the endpoint's failing_since: set at the first failure
// after a success, cleared by a success. An endpoint failing for the
// schedule's whole MaxAge is disabled with a reason. Best effort: a lost race
// with a merchant's update leaves it to the next attempt.
func (s *Sender) noteHealth(ctx context.Context, e *Endpoint, ok bool, now time.Time) {
	accountID, id := e.AccountID, e.ID
	for attempt := range updateAttempts {
		if attempt > 0 { // lost a race: read the endpoint as it is now
			var err error
			if e, err = s.svc.Get(ctx, accountID, id); err != nil {
				return
			}
		}
		switch {
		case ok && e.FailingSince == nil:
			return
		case ok:
			e.FailingSince = nil
		case e.FailingSince == nil:
			t := now
			e.FailingSince = &t
		case !e.Disabled && now.Sub(*e.FailingSince) >= s.schedule.MaxAge:
			e.Disabled = true
			e.DisabledReason = fmt.Sprintf("every delivery attempt failed since %s (%s); fix the receiver and re-enable the endpoint",
				e.FailingSince.Format(time.RFC3339), s.schedule.MaxAge)
		default:
			return
		}
		e.UpdatedAt = now
		op, err := s.svc.putOp(ctx, e)
		if err != nil {
			return
		}
		err = s.svc.st.Write(ctx, op)
		if _, ok := store.IsConditionFailed(err); ok {
			continue
		}
		if err != nil {
			s.log.Warn("webhooks: endpoint health not saved", "endpoint_id", id, "error", err.Error())
		}
		return
	}
}
