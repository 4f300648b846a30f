// Package balance is the Pay API's merchant balance: the balance and ledger
// entries of the merchant's books (shared/domain/ledger), payout cards, and payouts
// that draw on the available balance.
//
// # Functions
//
//   - MerchantBalanceFunction (routes.go): GET /v1/balance,
//     GET /v1/balance/entries, POST/GET /v1/payouts/cards,
//     GET/DELETE /v1/payouts/cards/{id}, POST/GET /v1/payouts,
//     GET /v1/payouts/{id}, POST /v1/payouts/{id}/cancel.
//   - PayoutsSenderFunction (Consume): the payouts queue's consumer. It
//     marks a pending payout in_transit (conditioned on the version read),
//     pays it through the payout processor and records the answer: paid
//     (reserved -> paid_out) or failed (reserved -> available), with the
//     payout's event, in one transaction conditioned on the payout's
//     version.
//   - SettlementFunction (Settle), every minute: ledger.Settle (captured
//     funds whose settlement delay passed become available), then re-queues
//     payouts still pending a minute after they were made (a message lost
//     between the commit and the send).
//
// # Payouts
//
// A payout is a remittance (shared/domain/remittance: the life it shares with
// shared/pay/beneficiaries' settlement payment orders, written once there: the
// open index, the queue and its consumer, the decision's optimistic write,
// the re-queue, the crash test); its record, statuses, events and ledger
// moves are this package's (payout.go). Events go through the event log
// (shared/domain/eventlog: eventlog.Append, with its expiry).
//
// POST /v1/payouts writes the payout (pending), its open-index entry, the
// reservation entry (available -> reserved) with its balances, its
// payout.created event and the Idempotency-Key's record in one
// TransactWriteItems; available below the amount fails the non-negative
// condition and the answer is 400 insufficient_balance with nothing stored
// (not recorded under the key: a retry runs again). While the account owes
// from disputes in the currency (owed below zero: a chargeback larger than
// available), no payout is made: the debt is repaid from available first
// (the disputes sweeper), so the answer is the same 400 naming the debt; the
// write carries a check that owed is still as read, so a hold committed in
// between sends the request back to read again (ledger.DebtFree,
// TestNoPayoutWhileOwed in shared/pay/disputes). Then the payout's id goes on
// the payouts queue.
//
// # Cancelling a payout
//
// A payout may be cancelled while pending, before the consumer hands it to
// the processor (Stripe's payout cancel: pending only). The consumer first
// writes the payout in_transit, conditioned on the version it read
// (remittance.Flow.Sending), and asks the processor only once that
// committed; POST /v1/payouts/{id}/cancel writes it cancelled, its open
// entry's removal, the reservation's release (reserved -> available,
// payout_cancelled), its payout.cancelled event and the key's record in one
// transaction conditioned on the same version. So of a cancel and a send at
// the same moment exactly one commits: a cancelled payout is never asked of
// the processor, and a sent one answers 409 payout_not_pending naming its
// status, as any status but pending does (TestCancelRacesTheConsumer: the
// consumer and six cancels read the same version before any writes). A
// payout left pending with unanswered calls by the consumer before
// in_transit existed counts as in transit. The dashboard's cancel button
// calls CancelPayout. (A consumer of the version before in_transit, still
// running during a deploy, asks the processor without marking the payout;
// the window is the deploy's.)
//
// The processor is asked with the payout id as its idempotency key, so a
// consumer that dies after the processor answered (and before its own
// write) asks again on the message's redelivery, gets the same answer, and
// records it once: one payout, one entry (TestPayoutConsumerCrashAfterThe
// ProcessorAnswered). A call without an answer (a timeout) leaves the
// payout pending, counts the attempt on the payout, and hides the message
// 5 s times the attempts; after MaxPayAttempts the consumer asks the
// processor what became of the payout (Lookup): paid if it paid it, else
// failed with processor_timeout and the reservation released. A message
// that fails five times goes to the DLQ (alarmed); the payout stays
// pending and reserved, and the settlement task re-queues it. A decision
// that keeps losing its race to other deliveries answers resource_busy
// (store.CodeBusy), and the message is tried again.
//
// # Sandbox payout processor and payout cards
//
// Sandbox is the payout processor of test keys (no live processor is
// wired: a live key cannot save a payout card, 403 live_mode_unavailable).
// Its cards are listed in card.go (paid, insufficient_funds, expired_card,
// card_declined, no answer; any other valid card: not_a_sandbox_card). It
// keeps its own record of each payout it answered (sbxpo#<payout id>), as a
// real processor keeps its own database.
//
// A payout card's number is never returned, logged or stored. The card
// keeps its brand, last four digits, expiry and holder name, and, for the
// sandbox, only the outcome its number stands for (decided when it is
// saved): that is all the sandbox needs to replay a test card's outcome. A
// live payout processor would take the number into its own vault (a card
// network's push-to-card token service), and the card would keep only the
// processor's token reference beside the same display fields; the number
// would still never reach our store or logs. The test run's log scan fails
// on any Luhn-valid number that reaches a log.
//
// # Key layout (table ledger; the books' own keys are shared/domain/ledger's)
//
//   - pout#<account> / <payout id>: payouts (UUIDv7: newest first).
//   - popen#<shard> / <created>#<account>#<payout id>: pending payouts (a
//     dueindex.Index by creation time, compact layout).
//   - pcard#<account> / <card id>: payout cards.
//   - sbxpo#<payout id> / result: the sandbox processor's record.
//
// # DynamoDB calls
//
// GET /v1/balance: GetItem (API key) + one Query (the balances partition).
// GET /v1/balance/entries: GetItem + Query pages (at most 2,000 entries read
// per request when filtered). POST /v1/payouts: GetItem (API key), GetItem
// (Idempotency-Key), GetItem (card), one Query (the currency's available
// and owed: no payout while the account owes from disputes,
// ledger.DebtFree), one TransactWriteItems (key's record, payout, open
// entry, event, entry, two balances, the check that owed is as read: 8
// items), then one SQS SendMessage. POST /v1/payouts/{id}/cancel: GetItem
// (API key), GetItem (Idempotency-Key), GetItem (payout), one
// TransactWriteItems (key's record, payout, open entry's removal, event,
// entry, two balances: 7 items). The consumer: GetItem (payout), UpdateItem
// (in_transit, once), the processor's
// GetItem and UpdateItem (sandbox), one TransactWriteItems (payout, open
// entry's removal, event, entry, its balances: reserved, and available when
// it failed; paid_out keeps no counter: 5 or 6 items). The settlement
// task: a Query per shard of the settlement due index (and of its earlier
// layout while entries remain), then per capture due a GetItem (the due
// entry's data) and one TransactWriteItems; a Query per shard of the open
// payout index, and a SendMessage per payout re-queued. No Scan anywhere.
//
// # Codes (codes.go)
//
// payout_not_pending (409: a cancel of a payout not pending, naming its
// status), live_mode_unavailable (403: a live key saves a payout card),
// invalid_number, card_not_supported and expired_card (400 card_error naming
// number or expiry_year: the card checks' codes, domain/cards'),
// besides insufficient_balance, parameter_invalid and
// parameter_missing; the metadata rule is metadata.Check's.
package balance
