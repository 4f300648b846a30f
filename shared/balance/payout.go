package balance

import (
	"encoding/json"
	"hash/fnv"
	"slices"
	"strconv"
	"time"

	"github.com/paygate/paygate/shared/store"
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
	PayoutPending PayoutStatus = "pending" // the amount is reserved; the processor has not answered yet
	PayoutPaid    PayoutStatus = "paid"    // the processor paid it to the card
	PayoutFailed  PayoutStatus = "failed"  // the processor refused it (failure_reason); the reservation went back to available
)

// PayoutStatuses lists every status.
var PayoutStatuses = []PayoutStatus{PayoutPending, PayoutPaid, PayoutFailed}

// payoutTransitions is the state machine: a payout is decided once.
var payoutTransitions = map[PayoutStatus][]PayoutStatus{
	PayoutPending: {PayoutPaid, PayoutFailed},
}

// CanTransition reports whether from -> to is allowed.
func (from PayoutStatus) CanTransition(to PayoutStatus) bool {
	return slices.Contains(payoutTransitions[from], to)
}

// Event types the payouts write (the webhooks catalogue lists them).
const (
	EventPayoutCreated = "payout.created"
	EventPayoutPaid    = "payout.paid"
	EventPayoutFailed  = "payout.failed"
)

// EventTypes are every type this package writes.
var EventTypes = []string{EventPayoutCreated, EventPayoutPaid, EventPayoutFailed}

// Failure reasons of a payout (failure_reason).
const (
	ReasonInsufficientFunds = "insufficient_funds" // the card's issuer refused the credit
	ReasonExpiredCard       = "expired_card"
	ReasonDeclined          = "card_declined"
	ReasonNotSandboxCard    = "not_a_sandbox_card" // a test key's card that is not a documented sandbox payout card
	ReasonProcessorTimeout  = "processor_timeout"  // no answer after MaxPayAttempts, and the processor has no record of it
	ReasonUnavailable       = "payouts_unavailable"
)

// Amount is an amount of a Pay API resource: minor units and a currency.
type Amount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency"`
}

// CardSummary is what a payout shows of its card.
type CardSummary struct {
	Brand string `json:"brand"`
	Last4 string `json:"last4"`
}

// Payout is a payout as the API shows it.
type Payout struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Amount        Amount            `json:"amount"`
	PayoutCardID  string            `json:"payout_card_id"`
	Card          CardSummary       `json:"card"`
	Reference     string            `json:"reference"`
	Status        PayoutStatus      `json:"status"`
	FailureReason string            `json:"failure_reason,omitempty"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	PaidAt        *time.Time        `json:"paid_at,omitempty"`
	FailedAt      *time.Time        `json:"failed_at,omitempty"`
}

// payout is the stored record: the view plus what the consumer needs.
type payout struct {
	Payout
	AccountID string `json:"account_id"`
	// Outcome is the sandbox outcome of the card, copied at creation so the
	// payout does not depend on the card afterwards (a deleted card's
	// payouts still complete).
	Outcome  string `json:"outcome"`
	Attempts int    `json:"attempts"` // processor calls that got no answer
	version  int64
}

// Key layout (table ledger, beside the books of shared/ledger):
//
//   - pout#<account> / <payout id>: a payout (UUIDv7: newest first by a
//     descending query).
//   - popen#<shard> / <created>#<account>#<payout id>: payouts not decided
//     yet, put with the payout and removed by the write that decides it; the
//     settlement task re-queues the old ones (a message lost after commit).
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

const openShards = 8

func openPK(shard int) string { return "popen#" + strconv.Itoa(shard) }

// openSKTime is a fixed-width, sortable creation time.
const openSKTime = "20060102T150405.000000000Z"

func openKey(p *payout) store.Key {
	h := fnv.New32a()
	h.Write([]byte(p.ID))
	return store.Key{Table: store.TableLedger, PK: openPK(int(h.Sum32() % openShards)),
		SK: p.CreatedAt.UTC().Format(openSKTime) + "#" + p.AccountID + "#" + p.ID}
}

// openRef is an open index entry's Data.
type openRef struct {
	AccountID string `json:"account_id"`
	ID        string `json:"payout_id"`
}

func openItem(p *payout) store.Item {
	data, _ := json.Marshal(openRef{AccountID: p.AccountID, ID: p.ID})
	return store.Item{Key: openKey(p), Data: data}
}

func (p *payout) item() (store.Item, error) {
	data, err := json.Marshal(p)
	return store.Item{Key: payoutKey(p.AccountID, p.ID), Data: data}, err
}

func decodePayout(it store.Item) (*payout, error) {
	var p payout
	if err := json.Unmarshal(it.Data, &p); err != nil {
		return nil, err
	}
	p.version = it.Version
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

// Event is an event record (the shape shared/webhooks reads), written in
// the transaction of the change it reports.
type Event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Created  int64  `json:"created"`
	Account  string `json:"account"`
	Livemode bool   `json:"livemode"`
	Data     any    `json:"data"`
}

// EventRetention is how long event records stay (as the other writers).
const EventRetention = 30 * 24 * time.Hour

func eventKey(accountID, id string) store.Key {
	return store.Key{Table: store.TableEvents, PK: "evt#" + accountID, SK: id}
}
