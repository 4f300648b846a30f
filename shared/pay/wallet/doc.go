// Package wallet is the Pay API's wallet: a merchant asks the shopper's
// wallet (phone number + IIN) to authorise an amount, the shopper confirms in
// the wallet app asynchronously, and the merchant polls (or hears by webhook)
// until the transaction is SUCCESS or FAILED, then captures, cancels or
// refunds it. Paths, fields and statuses are the provider's (spec §2.2, §2.3,
// §4.1; provider notes): camelCase, amounts as integers in minor units.
//
// # Functions
//
//   - WalletFunction (routes.go): authorize, get, list, capture, cancel,
//     refund, and the sandbox test helpers confirm and decline.
//   - WalletConfirmationsFunction (HandleSQS): the wallet-confirmations
//     queue's consumer; it moves a transaction NEW -> PROCESSING -> the
//     shopper's answer. An answer not due yet (the "confirms after a few
//     seconds" sandbox phone) hides the message until it is.
//   - WalletExpirerFunction (Expire), every minute: FAILED,
//     confirmation_timeout, for what the shopper has not confirmed within
//     ConfirmTimeout (5 minutes); re-sends the message of open transactions
//     older than RequeueAge, so a message lost between the commit and the
//     send (or in a crash) delays a transaction, never strands it.
//
// # One place for every change
//
// Every status change goes through move: the allowed moves are one table
// (transitions); the new record is written conditioned on the version read,
// with its event record (the platform's event log, read by shared/console/webhooks)
// and, when it leaves NEW/PROCESSING, the delete of its open-index entry, in
// one store transaction; a keyed call's idempotency record joins that
// transaction (idempotency.Commit). A lost race reads again and decides anew:
// of a capture and a cancel racing, one wins and the other finds a status it
// cannot move from (409); a confirmation delivered twice finds the
// transaction already moved and writes nothing.
//
// # Key layout (payments table)
//
//   - wtx#<account> / <UUIDv7 id>: the transaction (newest first by a
//     descending query; the created range is a key range).
//   - wopen#<shard> / <created>#<account>#<id>: the open index (NEW and
//     PROCESSING), a dueindex keyed by the creation time, so the expirer
//     reads it oldest first, never a Scan. Entries written before the one
//     due-time index (<created>#<id>, the account in their data) are still
//     read; the expirer drops those whose transaction has moved on.
//
// Every change writes its event (wallet.*) through the event log
// (shared/domain/eventlog), with the event log's expiry, in its own transaction.
//
// # DynamoDB calls (TestCallsPerAuthorizeAndConfirmation)
//
// Authorize: GetItem (API key), GetItem (idempotency key), one
// TransactWriteItems (idempotency record, transaction, open-index entry,
// event), then one SQS SendMessage. A replay: the two reads. A confirmation:
// GetItem, then one TransactWriteItems per move (two for NEW -> PROCESSING ->
// SUCCESS). Capture, cancel, refund: the two reads, GetItem, one
// TransactWriteItems (a capture or refund adds its ledger entries and
// balances to it).
//
// # What is not here
//
// No live wallet provider is wired: a live key's authorisation is refused
// with the one live_mode_unavailable (403, domain/connectors); test keys get
// the sandbox wallet. A live transaction recorded before that fails with
// wallet_unavailable when the consumer takes it.
//
// # The merchant's books
//
// A capture and a refund post their entries to the merchant's ledger
// (shared/domain/ledger) in the move's own transaction (Service.ledgerOps): a
// capture to pending, settled to available at once in the sandbox (else by
// the settlement task after SETTLEMENT_DELAY); a refund from available,
// refused with 400 insufficient_balance when available cannot cover it.
package wallet
