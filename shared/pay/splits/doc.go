// Package splits is the Pay API's split requests: a merchant divides a
// payment's captures between itself and its partners (a marketplace's
// sellers, a courier). Served by the SplitRequestsFunction: POST/GET
// /v1/split-requests, GET/POST/DELETE /v1/split-requests/{id}.
//
// # Decisions
//
//   - A split request names a payment by transaction_id, or by
//     order_reference (the one payment of the reference still awaiting
//     capture, found through the payref# index; several: 409
//     ambiguous_order_reference). It must exist before the payment's first
//     capture (409 payment_already_captured after it), one per payment (409
//     split_request_exists). A payment captured at authorisation (checkout's
//     automatic capture) therefore cannot be split afterwards.
//   - The split rides on the payment record (payments.Payment.Split): the
//     capture that applies it needs no extra read, and a split change and a
//     capture serialise on the payment's version. Creating, changing and
//     deleting write the payment, conditioned on the version read, with the
//     split's copy (payments.SplitKey), which the reads and the list use.
//   - Parts: a partner reference (ASCII, 1 to 64: it becomes a ledger account
//     partner:<reference> and part of a store key), an amount (minor units,
//     at most the payment) or a whole percentage 1 to 100 of the payment's
//     amount, and pays_fees. The parts' shares sum to the payment's amount
//     or less (400 split_exceeds_payment); the rest is the merchant's. Rules
//     that need no payment are checked first (a bad part is a 400 whatever
//     the payment); another account's payment is a 404.
//   - Applied at the payment's capture (payments.SaveOps, shared/domain/ledger): one
//     split entry per capture (pending -> each partner), with
//     split_request.applied at the first; reversed in proportion by each
//     refund (one split_reversal entry: each partner -> available). The
//     rounding rules are shared/domain/ledger's (doc.go). Once applied a split can
//     no longer change (409 split_request_applied).
//
// # Key layout (table payments)
//
//   - spl#<account> / <split id>: the split request's copy (its view and
//     its payment's id), written with the payment.
//
// # DynamoDB calls
//
// Create by transaction_id: GetItem (API key), GetItem (Idempotency-Key when
// sent), GetItem (payment), one TransactWriteItems (key's record, payment,
// copy). By order reference: one Query of the reference's index and a
// GetItem per transaction in it. Get: GetItem (API key) + GetItem (copy);
// list: one Query. Update and delete: the copy, the payment, one write. A
// capture of a split payment costs the same calls as one without.
package splits
