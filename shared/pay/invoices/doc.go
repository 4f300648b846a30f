// Package invoices is the Pay API's bank invoices: a merchant asks a payer
// in Kazakhstan to pay an amount, by the payer's phone (E.164) or IIN/BIN,
// and the payer pays it in the banking app (a "remote invoice"); the paid
// amount becomes the merchant's as a capture's does.
//
// # Functions
//
//   - InvoicesFunction (routes.go): POST/GET /v1/invoices,
//     GET /v1/invoices/{id}, POST /v1/invoices/{id}/cancel, and the test
//     helper POST /test-helpers/invoices/{id}/pay (test keys only: the
//     sandbox payer's bank).
//   - InvoiceExpiryFunction (Expire), every minute.
//
// # Decisions
//
//   - Statuses created -> paid | expired | cancelled, each an end (the
//     transitions sit with Status). An invoice is written with an entry in a
//     sharded expiry index (invexp#<shard>, sorted by expires_at), and every
//     ending is one transaction conditioned on the version read: the
//     invoice, the index entry's removal, its event and, for a payment, the
//     ledger's entries. A payment, a cancel and the expirer racing each
//     other therefore end an invoice exactly once; the loser re-reads and
//     answers 409 (invoice_already_paid, invoice_expired, invoice_cancelled).
//   - Expiry is checked in code: a created invoice whose expires_at passed
//     reads as expired (and cannot be paid or cancelled) before the expirer
//     writes it; the expirer then stores the status and sends
//     invoice.expired, within about a minute. It reads the due index
//     entries shard by shard (a Query each; never a Scan).
//   - A paid invoice posts as a capture (ledger.InvoicePayment): bank ->
//     pending, less the processing fee, then available at once in the
//     sandbox (SETTLEMENT_DELAY 0) or when the settlement task runs after
//     the delay. The same policy variables as every capture path.
//   - expires_at defaults to 24 hours after creation, and is at least a
//     minute and at most 30 days ahead. Line items are optional; when given
//     they must add up to the amount exactly. Idempotency-Key is required on
//     create (a duplicate would reach the payer twice) and honoured on
//     cancel and pay.
//   - Invoices live in the ledger table, beside the books a payment posts
//     to: no table of their own (docs/architecture.md, Stack size).
//
// # Key layout (table ledger)
//
//   - inv#<account> / <invoice id>: an invoice (UUIDv7).
//   - invexp#<shard> / <expires_at>#<account>#<invoice id>: created
//     invoices by expiry.
//
// # DynamoDB calls (TestCallsPerInvoice; make bench)
//
// Create: GetItem (API key), GetItem (Idempotency-Key), one
// TransactWriteItems (the key's record, the invoice, its index entry). Pay:
// three GetItems (key, Idempotency-Key, invoice) and one TransactWriteItems
// (the key's record, the invoice, the index entry's removal, invoice.paid,
// the payment's entry and the balance it credits: available when it settles
// at once, else pending and the settlement due; bank keeps no counter).
// Get: the key and the invoice; list: one Query per page. The expirer: a
// Query per shard, then per due invoice a GetItem and a TransactWriteItems.
package invoices
