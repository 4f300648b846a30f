package balance

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/domain/remittance"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// Resource kinds, for version changes (metadata before 2024-01-15).
const (
	KindBalance = "balance"
	KindEntry   = "balance_entry"
	KindPayout  = "payout"
	KindCard    = "payout_card"
)

// PayoutStatus is a payout's state.
type PayoutStatus string

const (
	PayoutPending   PayoutStatus = "pending"    // the amount is reserved; not sent to the processor yet: it may be cancelled
	PayoutInTransit PayoutStatus = "in_transit" // sent to the processor, which has not answered yet
	PayoutPaid      PayoutStatus = "paid"       // the processor paid it to the card
	PayoutFailed    PayoutStatus = "failed"     // the processor refused it (failure_reason); the reservation went back to available
	PayoutCancelled PayoutStatus = "cancelled"  // the merchant cancelled it while pending; the reservation went back to available
)

// PayoutStatuses lists every status.
var PayoutStatuses = []PayoutStatus{PayoutPending, PayoutInTransit, PayoutPaid, PayoutFailed, PayoutCancelled}

// payoutTransitions is the state machine: a pending payout is sent to the
// processor (the consumer, before it asks: remittance.Flow.Sending) or
// cancelled (CancelPayout), both conditioned on the version read, so one of
// the two wins; a payout in transit is decided once.
var payoutTransitions = map[PayoutStatus][]PayoutStatus{
	PayoutPending:   {PayoutInTransit, PayoutCancelled},
	PayoutInTransit: {PayoutPaid, PayoutFailed},
}

// CanTransition reports whether from -> to is allowed.
func (from PayoutStatus) CanTransition(to PayoutStatus) bool {
	return slices.Contains(payoutTransitions[from], to)
}

// Event types the payouts write (eventlog.Catalogue lists them).
const (
	EventPayoutCreated   = "payout.created"
	EventPayoutPaid      = "payout.paid"
	EventPayoutFailed    = "payout.failed"
	EventPayoutCancelled = "payout.cancelled"
)

// EventTypes are every type this package writes.
var EventTypes = []string{EventPayoutCreated, EventPayoutPaid, EventPayoutFailed, EventPayoutCancelled}

// Failure reasons of a payout (failure_reason).
const (
	ReasonInsufficientFunds = cardpayouts.ReasonInsufficientFunds // the card's issuer refused the credit
	ReasonExpiredCard       = cardpayouts.ReasonExpiredCard
	ReasonDeclined          = cardpayouts.ReasonDeclined
	ReasonProcessorTimeout  = "processor_timeout" // no answer after MaxPayAttempts, and the processor has no record of it
	ReasonUnavailable       = cardpayouts.ReasonUnavailable
)

// CardSummary is what a payout shows of its card.
type CardSummary struct {
	Brand string `json:"brand"`
	Last4 string `json:"last4"`
}

// Payout is a payout as the API shows it.
type Payout struct {
	ID           string       `json:"id"`
	Object       string       `json:"object"`
	Amount       money.Amount `json:"amount"`
	PayoutCardID string       `json:"payout_card_id"`
	Card         CardSummary  `json:"card"`
	Reference    string       `json:"reference"`
	// status, failure_reason, livemode, metadata and the times.
	remittance.State[PayoutStatus]
	// CancelledAt is when the merchant cancelled it (status cancelled).
	CancelledAt *time.Time `json:"cancelled_at,omitempty"`
}

// payout is the stored record: the view plus what the consumer needs.
type payout struct {
	Payout
	remittance.Kept // account_id, attempts: processor calls that got no answer
	// Outcome is the processor's reference of the card, copied at creation so the
	// payout does not depend on the card afterwards (a deleted card's
	// payouts still complete).
	Outcome string `json:"outcome"`
}

// Key layout (table ledger, beside the books of shared/domain/ledger):
//
//   - pout#<account> / <payout id>: a payout (UUIDv7: newest first by a
//     descending query).
//   - popen#<shard> / <created>#<account>#<payout id>: payouts not decided
//     yet (openIndex, a dueindex.Index keyed by when each was made), put
//     with the payout and removed by the write that decides it; the
//     settlement task re-queues the old ones (a message lost after commit).
//     Entries written before the one due-time index have the same key and
//     the account and id in their data; the index reads both.
//   - pcard#<account> / <card id>: payout cards.
//   - sbxpo#<payout id> / result: the sandbox payout processor's own record
//     of a payout it answered (a fake of a system outside the service).
func payoutPK(accountID string) string { return "pout#" + accountID }

func payoutKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: payoutPK(accountID), SK: id}
}

func cardPK(accountID string) string { return "pcard#" + accountID }

func cardKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableLedger, PK: cardPK(accountID), SK: id}
}

// openIndex is the open payouts' index.
var openIndex = dueindex.Index{Table: store.TableLedger, Prefix: "popen#"}

func decodePayout(it store.Item) (*payout, error) {
	var p payout
	if err := json.Unmarshal(it.Data, &p); err != nil {
		return nil, err
	}
	p.Read(it.Version)
	return &p, nil
}

// View is the payout as the API shows it.
func (p *payout) View() Payout {
	v := p.Payout
	v.Object = KindPayout
	if v.Metadata == nil {
		v.Metadata = map[string]string{}
	}
	return v
}

func (p *payout) move() ledger.PayoutMove {
	return ledger.PayoutMove{AccountID: p.AccountID, Currency: p.Amount.Currency, Livemode: p.Livemode, PayoutID: p.ID, Amount: p.Amount.Value}
}

// event is the event of the payout as it is now.
func (p *payout) event(typ string, now time.Time) eventlog.Event {
	return eventlog.Event{Type: typ, Account: p.AccountID, Livemode: p.Livemode, At: now, Data: p.View()}
}

// A payout is a remittance (shared/domain/remittance): the payout processor pays
// it. State and Kept give it Made, Unanswered and Version.

// Ref names the payout.
func (p *payout) Ref() (accountID, id string) { return p.AccountID, p.ID }

// Open reports whether it waits for the processor's final answer.
func (p *payout) Open() bool { return p.Status == PayoutPending || p.Status == PayoutInTransit }

// Cancellable reports whether the merchant may still cancel it: pending,
// and never handed to the processor (a payout written before in_transit
// existed counted its unanswered calls while pending).
func (p *payout) Cancellable() bool { return p.Status == PayoutPending && p.Attempts == 0 }

// sending is the payout as the consumer hands it to the processor: a
// pending one becomes in_transit (remittance.Flow.Sending).
func sending(p *payout, now time.Time) (*payout, bool) {
	if p.Status != PayoutPending {
		return p, false
	}
	next := *p
	next.Status, next.UpdatedAt = PayoutInTransit, now
	return &next, true
}

// cancellation is the merchant's cancel of a pending payout: cancelled, its
// open entry removed, reserved -> available (payout_cancelled), with
// payout.cancelled.
func (p *payout) cancellation(now time.Time) (remittance.Change, error) {
	if !p.Status.CanTransition(PayoutCancelled) {
		return remittance.Change{}, fmt.Errorf("%s -> %s is no transition", p.Status, PayoutCancelled)
	}
	next := *p
	next.Status, next.UpdatedAt, next.CancelledAt = PayoutCancelled, now, &now
	c := remittance.Change{Record: &next, Decided: true, Event: next.event(EventPayoutCancelled, now), Batch: &ledger.Batch{}}
	c.Batch.CancelPayout(p.move(), now)
	return c, nil
}

// Item is the payout's item.
func (p *payout) Item() (store.Item, error) {
	data, err := json.Marshal(p)
	return store.Item{Key: payoutKey(p.AccountID, p.ID), Data: data}, err
}

// Decision is the processor's final answer's change: paid (reserved ->
// paid_out, payout.paid) or failed (reserved -> available, payout.failed).
func (p *payout) Decision(res remittance.Result, now time.Time) (remittance.Change, error) {
	next := *p
	if err := next.Decide(res, PayoutPaid, PayoutFailed, now); err != nil {
		return remittance.Change{}, err
	}
	c := remittance.Change{Record: &next, Decided: true, Event: next.event(EventPayoutPaid, now), Batch: &ledger.Batch{}}
	if res.Paid {
		c.Batch.PaidOut(p.move(), now)
		return c, nil
	}
	c.Event.Type = EventPayoutFailed
	c.Batch.Release(p.move(), now)
	return c, nil
}
