// Package remittance is money the service sends out of the merchant's books
// through a party outside it that pays it and answers idempotently by the
// remittance's id: a payout to a card through the payout processor
// (shared/pay/balance), a settlement payment order to a bank account through
// the bank (shared/pay/beneficiaries). Both live one life, written here once
// (Flow):
//
//  1. Made: the record (open), its entry in the open index (a dueindex,
//     keyed by when it was made), its event, the ledger entry that reserves
//     its amount and the Idempotency-Key's record, in one transaction
//     (Flow.Ops); then its id on the queue (Flow.Enqueue).
//  2. Stepped by the queue's consumer (Flow.Consume, Flow.Step): the payer
//     is asked with the remittance's id as its idempotency key, so a
//     consumer that died after the answer asks again and gets the same one.
//     A flow whose remittances may be cancelled until they are sent
//     (Flow.Sending: a payout) first writes the record as sent, conditioned
//     on the version read, and asks the payer only once that committed.
//     A final answer is recorded (Flow.Decide): the record decided, its open
//     entry removed, its event and the ledger entry that pays out or
//     releases the reservation, in one transaction conditioned on the
//     version read (a store.Race: a second delivery that decided it first
//     leaves it as it is). A call without an answer is counted on the
//     record and asked again later; after MaxAttempts the payer is asked
//     what it did (Lookup): paid if it paid, else failed with the flow's
//     timeout reason. "Accepted, still paying" is asked again later
//     without counting.
//  3. Re-queued by the settlement task while still open a while after it was
//     made (Flow.Requeue): a message lost between the commit and the send.
//
// A remittance's view ends with State (status, failure reason, mode,
// metadata, times: the same JSON both kinds always showed) and its stored
// record embeds Kept (account, unanswered calls, version read); its own
// fields, typed statuses, events and ledger moves stay its package's
// (Record).
package remittance

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/remittance/payanswer"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/consumer"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Result is the payer's final answer (payanswer's, which the payers' ports
// share without the flow).
type Result = payanswer.Result

// ErrNoAnswer is a payer's call whose outcome is unknown (a timeout): the
// remittance may or may not have been paid, so it stays open until the
// payer answers or, asked for it (Lookup), says what became of it.
var ErrNoAnswer = payanswer.ErrNoAnswer

// ErrInProcess is a payer's "accepted, still paying": ask again later.
var ErrInProcess = payanswer.ErrInProcess

// MaxAttempts is how many payer calls may go unanswered before the
// consumer asks the payer what became of the remittance (Lookup) and
// decides it.
const MaxAttempts = 3

// Retry delays of the consumer.
const (
	RetryAfterNoAnswer  = 5 * time.Second  // times the unanswered calls so far
	RetryWhileInProcess = 20 * time.Second // the payer accepted it and is still paying
)

// Record is a remittance's stored record, as read at a version: its view
// ends with State, and it embeds Kept.
type Record interface {
	// Ref names the record: its account and id.
	Ref() (accountID, id string)
	// Made is when it was made: the time of its open index entry (State).
	Made() time.Time
	// Open reports whether it waits for the payer's final answer.
	Open() bool
	// Unanswered counts one more payer call without an answer on the
	// record (in memory) and returns the count (Kept).
	Unanswered() int
	// Version is the version it was read at; 0: new (Kept).
	Version() int64
	// Read notes the version it is stored at now (Kept).
	Read(version int64)
	// Item is the record's item as it is now.
	Item() (store.Item, error)
	// Decision is the change the payer's final answer makes: the record
	// decided (State.Decide), its event and the ledger's move.
	Decision(res Result, now time.Time) (Change, error)
}

// Change is one change of a remittance's record and what goes with it.
type Change struct {
	Record  Record         // the record as changed, at the version it was read
	Decided bool           // the change decides it: its open index entry goes
	Event   eventlog.Event // the event it writes
	Batch   *ledger.Batch  // its ledger entries
}

// Flow is one kind of remittance: where its records and messages are, and
// how to read a record and ask the payer.
type Flow[R Record] struct {
	Op        string // names the flow in errors ("balance")
	What      string // what a remittance is, for errors and logs ("payout")
	Store     store.Store
	Queue     queue.Queue
	QueueName string // the logical queue (queue.Payouts)
	IDField   string // the message's field holding the id, and the log attribute ("payout_id")
	Log       *slog.Logger
	Clock     func() time.Time
	OpenIndex dueindex.Index // open remittances, by when they were made
	// Load reads a record; NotFound when there is none.
	Load func(ctx context.Context, accountID, id string) (R, error)
	// Ask asks the payer to pay r: its final answer, ErrNoAnswer, or
	// ErrInProcess.
	Ask func(ctx context.Context, r R) (Result, error)
	// Lookup is the payer's record of the remittance id: found is false
	// when it never decided it.
	Lookup func(ctx context.Context, id string) (res Result, found bool, err error)
	// TimeoutReason is the failure reason of a remittance the payer never
	// answered and has no record of.
	TimeoutReason string
	// Sending, when set, is r as it is once handed to the payer (a pending
	// payout becomes in_transit), and whether that changes it. Step writes
	// the change, conditioned on the version read, before it asks the
	// payer: a change the merchant may make only while the payer has not
	// been asked (a payout's cancel) is conditioned on the same version, so
	// exactly one of the two commits, and the payer is never asked about a
	// remittance cancelled first. Nil: the payer is asked at once.
	Sending func(r R, now time.Time) (R, bool)
}

// Ops are the writes of a change: the record (a new one put-if-absent with
// its open index entry; a read one conditioned on the version read, op 0,
// with its open entry's removal when the change decides it), its event
// and its ledger entries. Errors: Internal.
func (f *Flow[R]) Ops(c Change, now time.Time) ([]store.Op, error) {
	it, err := c.Record.Item()
	if err != nil {
		return nil, apierr.Wrap(f.Op+".Ops", apierr.Internal, err)
	}
	version := c.Record.Version()
	account, id := c.Record.Ref()
	var ops []store.Op
	if version == 0 {
		ops = append(ops, store.Put(it, store.IfAbsent), f.OpenIndex.Put(account, id, c.Record.Made()))
	} else {
		ops = append(ops, store.Put(it, store.IfVersion(version)))
		if c.Decided {
			ops = append(ops, f.OpenIndex.Delete(account, id, c.Record.Made()))
		}
	}
	ev, err := eventlog.Append(c.Event)
	if err != nil {
		return nil, err
	}
	ops = append(ops, ev)
	lops, err := c.Batch.Ops(now)
	if err != nil {
		return nil, err
	}
	return append(ops, lops...), nil
}

// Decide records the payer's final answer: the record's Decision, written
// by Ops in one transaction conditioned on the version read; a write that
// lost the race reads the record again (a store.Race). A record already
// decided (a second delivery of its message) is left as it is: one
// remittance, one outcome. Errors: Load's, Internal, Unavailable,
// store.CodeBusy.
func (f *Flow[R]) Decide(ctx context.Context, r R, res Result) error {
	account, id := r.Ref()
	race := store.Race{Op: f.Op + ".decide", What: f.What + " " + id}
	return race.Run(ctx, func(n int) error {
		if n > 0 {
			var err error
			if r, err = f.Load(ctx, account, id); err != nil {
				return err
			}
		}
		if !r.Open() {
			return nil
		}
		now := f.Clock().UTC()
		c, err := r.Decision(res, now)
		if err != nil {
			return err
		}
		ops, err := f.Ops(c, now)
		if err != nil {
			return err
		}
		return race.Settle(f.Store.Write(ctx, ops...))
	})
}

// Step asks the payer to pay one open remittance and records its answer
// (the consumer's step). A remittance already decided is left as it is. It
// returns again > 0 when the payer has not decided yet and the remittance
// should be asked about again after that long. Errors: NotFound (no such
// remittance), Unavailable, Decide's.
func (f *Flow[R]) Step(ctx context.Context, accountID, id string) (again time.Duration, err error) {
	r, err := f.Load(ctx, accountID, id)
	if err != nil || !r.Open() {
		return 0, err
	}
	if f.Sending != nil {
		next, changed := f.Sending(r, f.Clock().UTC())
		if changed {
			if sent, err := f.send(ctx, r, next); err != nil || !sent {
				return 0, err
			}
			r = next
		}
	}
	res, err := f.Ask(ctx, r)
	switch {
	case err == nil:
		return 0, f.Decide(ctx, r, res)
	case errors.Is(err, ErrInProcess):
		return RetryWhileInProcess, nil
	case !errors.Is(err, ErrNoAnswer):
		return 0, err
	}
	n := r.Unanswered()
	if n >= MaxAttempts {
		res, found, err := f.Lookup(ctx, id)
		if err != nil {
			return RetryAfterNoAnswer, nil
		}
		if !found {
			res = Result{Reason: f.TimeoutReason}
		}
		return 0, f.Decide(ctx, r, res)
	}
	// Count the unanswered call, so a crash cannot reset the count.
	it, err := r.Item()
	if err != nil {
		return 0, apierr.Wrap(f.Op+".Step", apierr.Internal, err)
	}
	if err := f.Store.Write(ctx, store.Put(it, store.IfVersion(r.Version()))); err != nil {
		if _, ok := store.IsConditionFailed(err); ok {
			return 0, nil // decided or counted by another delivery meanwhile
		}
		return 0, apierr.Wrap(f.Op+".Step", apierr.Unavailable, err)
	}
	return RetryAfterNoAnswer * time.Duration(n), nil
}

// send writes next, r as handed to the payer, conditioned on the version r
// was read at. sent is false when r changed meanwhile (cancelled, or sent
// by another delivery of its message, which asks the payer itself): the
// payer is not asked.
func (f *Flow[R]) send(ctx context.Context, r, next R) (sent bool, err error) {
	it, err := next.Item()
	if err != nil {
		return false, apierr.Wrap(f.Op+".send", apierr.Internal, err)
	}
	if err := f.Store.Write(ctx, store.Put(it, store.IfVersion(r.Version()))); err != nil {
		if _, ok := store.IsConditionFailed(err); ok {
			return false, nil
		}
		return false, apierr.Wrap(f.Op+".send", apierr.Unavailable, err)
	}
	next.Read(r.Version() + 1)
	return true, nil
}

// Consume is the queue's consumer (a queue.Handler): each message names one
// remittance, stepped until the payer decides it (consumer.Record).
func (f *Flow[R]) Consume(ctx context.Context, batch []queue.Message) []string {
	return consumer.Record{Queue: f.QueueName, Q: f.Queue, Log: f.Log, What: f.What, IDField: f.IDField, Step: f.Step}.Consume(ctx, batch)
}

// Enqueue hands a remittance to the consumer: {"account_id": ...,
// IDField: id}. A failure is logged: the remittance is committed, and
// Requeue sends it again.
func (f *Flow[R]) Enqueue(ctx context.Context, accountID, id string) {
	// A map of strings always encodes; checked all the same.
	body, err := json.Marshal(map[string]string{"account_id": accountID, f.IDField: id})
	if err == nil {
		err = queue.SendAfterCommit(ctx, f.Queue, f.QueueName, body, 0)
	}
	if err != nil {
		f.Log.Warn(f.What+" enqueue failed; the settlement task will re-queue it", f.IDField, id, "error", err.Error())
	}
}

// Requeue sends again the message of each remittance still open age after
// it was made (its message lost between the commit and the send), at most
// budget per shard of the open index. It returns how many it sent; the
// shards it could not read are left to the next run, and the first such
// error returned.
func (f *Flow[R]) Requeue(ctx context.Context, now time.Time, age time.Duration, budget int) (int, error) {
	n := 0
	var firstErr error
	for shard := 0; shard < dueindex.Shards; shard++ {
		_, err := f.OpenIndex.VisitShard(ctx, f.Store, shard, time.Time{}, now.Add(-age), budget, func(e dueindex.Entry) error {
			f.Enqueue(ctx, e.Account, e.ID)
			n++
			return nil
		})
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return n, firstErr
}
