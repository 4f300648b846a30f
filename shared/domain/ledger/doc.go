// Package ledger is the merchant's books: a double-entry ledger in which
// every movement of a merchant's money (capture, settlement, refund, split,
// payout) is one balanced entry, written in the same store transaction as
// the change that caused it, and every balance is a counter kept beside the
// entries that can always be re-derived from them (Check).
//
// It is not the Gate API's prepaid balance (shared/gate/prepaid: a
// reseller's deposits and order debits, single-entry). That one could move
// onto these books later (a deposit: external -> available; an order:
// available -> reserved, then reserved -> external or back): its routes,
// semantics and key layout would stay, its counters becoming this package's
// balances. Not done here; it works and has its own tests.
//
// # Model
//
//   - Accounts per merchant and currency: pending, available, reserved (the
//     merchant's balance: GET /v1/balance), fees (processing fees charged),
//     partner:<reference> (what is held for a split partner), distributing
//     (what a distribution took from available and has not credited yet),
//     beneficiary:<id> and beneficiary_reserved:<id> (what a beneficiary of
//     shared/pay/beneficiaries holds, and what its payment orders reserved), and
//     the external processor (captures in, refunds out), paid_out (payouts
//     out) and bank (bank invoices in, payment orders out), which are posted
//     to but keep no counter (Account.External: nothing decides on their
//     all-time totals, and the counter was a second balance item in every
//     money transaction; the check derives them: Report.External). Two
//     aggregates, beneficiaries and beneficiaries_reserved, are counters kept
//     with every beneficiary posting (never posted themselves) so what all
//     beneficiaries hold is one read; the check derives them too. The
//     merchant-side accounts never go below zero: their counters are changed
//     by store.Add with the store's non-negative condition, so a refund or
//     payout that would overdraw available fails the whole write
//     (Insufficient words it as 400 insufficient_balance).
//   - An entry (Entry) has a type, a currency, postings that sum to zero, the
//     record that caused it (Source: transaction, refund, wallet
//     transaction, payout, split request) and, for a capture, when its funds
//     settle. It is put-if-absent and never changed: a mistake is corrected
//     by another entry (TigerBeetle's and Stripe's balance transactions'
//     rule).
//   - A Batch gathers one change's entries; Ops turns them into the entries'
//     puts, one store.Add per balance touched (netted within the batch, so a
//     split capture settled at once writes no pending add) and the settlement
//     due, for the caller to write with
//     its own ops (the payment, its event, the Idempotency-Key's record).
//
// # Settlement
//
// Policy.SettlementDelay (SETTLEMENT_DELAY, 0 in the sandbox) is how long
// captured funds stay pending. With 0 a capture goes straight to available
// in its own entry (processor -> available; a split payment's capture still
// passes through pending, which its split entry takes the partners' shares
// from, and its settlement entry is written with it), so a refund may
// follow at once.
// With a delay, an entry of the settlement due-time index (a
// dueindex.Index, mdue2#<shard>) is written instead, holding the
// settlement's data, and Settle, run every minute by the SettlementFunction
// (shared/pay/balance), visits the due ones, reads each (one GetItem) and
// writes the settlement with the due entry's removal (conditioned on its
// existence: two runs settle a capture once). Entries written before the
// one due-time index (mdue#<shard>, another time layout) are read and
// settled alike until none is left. Policy.FeeBps (PROCESSING_FEE_BPS, 0 in
// the sandbox) is the fee of each capture, rounded down, posted to fees.
// Fees are not returned by refunds (as at Stripe): the merchant's available
// balance bears them.
//
// # Splits
//
// A split request (Split) rides on the payment it divides (payments.Payment
// carries it), so a capture applies it with no extra read. Each part's share
// of the authorised amount is its amount, or its percentage rounded down.
// A capture divides what has been captured so far among the parts and the
// merchant by Jefferson's divisor method: house-monotone, so every partial
// capture gives each party zero or more and the shares sum to the capture
// exactly, and the whole amount captured gives each part exactly its share.
// The fee goes first to the parts that pay fees, then to the merchant's
// share, then to the others, never more than a share. A refund takes back
// from each part its credited amount times the refunded fraction, rounded
// down per part on the cumulative totals (floor is monotone, so no refund
// takes more than a part received, and the full refund takes back exactly
// all of it); the merchant's available balance bears the rest, so the parts
// and the merchant's share sum to the refund to the minor unit. Shares and
// reversals are computed on 128-bit products (MulDiv), exact for any amount.
//
// # Beneficiaries, distributions and bank invoices
//
// A distribution (Distribute, DistributeChunk) leaves available in its first
// entry whole: its first chunk's lines to their beneficiaries, the rest to
// distributing, from which each later chunk credits its lines (the chunks and
// why are shared/pay/beneficiaries'). A transfer moves beneficiary:<id> ->
// available; a payment order reserves beneficiary:<id> ->
// beneficiary_reserved:<id>, then pays it out to bank or releases it. A paid
// bank invoice (InvoicePayment) posts as a capture does, from bank instead
// of processor: pending (less the fee), then settled.
//
// # Key layout (table ledger)
//
//   - mbal#<account> / <currency>#<ledger account>: a balance (counter N).
//   - mbal#<account>#<beneficiary id> / <currency>#<ledger account>: a
//     beneficiary's balances, a partition per beneficiary (the merchant's
//     own partition, read whole by GET /v1/balance, stays small).
//   - ment#<account> / <entry id, UUIDv7>: an entry; the created range is a
//     key range.
//   - mdue2#<shard> / <available_on, 20060102T150405.000000000Z>#<account>#<capture entry id>:
//     funds due (dueindex); the item holds the settlement's data.
//   - mdue#<shard> / <available_on, 2006-01-02T15:04:05.000000000Z>#<account>#<capture entry id>:
//     funds due, as written before the one due-time index: read by Settle
//     (the index's Legacy), no longer written.
//   - mowed#<shard> / <account>#<currency>: the debtors index (an account
//     that owes in a currency, for Recover).
//   - mlacct#<shard> / <account>: the accounts that had books before the
//     accounts index (shared/platform/accounts EachID) existed. CheckAll reads that
//     index and these (no Scan); they are no longer written: a mark put with
//     every posting cost two write units of every money transaction.
//
// Every sharded partition spreads over dueindex.Shards by dueindex.Shard.
//
// # Items and calls
//
// A card capture of a payment split in k parts writes, in its one
// TransactWriteItems: the Idempotency-Key's record, the payment, its expiry
// entry's removal (the first capture), its payment.charged event, three
// entries (capture, split, settlement), k + 1 balances (available, each
// partner; pending nets to zero; fees too when a fee is charged; the
// processor keeps no counter), the split request's copy and its
// split_request.applied event: 10 + k items (12 for two parts, 30 for the
// most, 20; 31 with a fee), far inside DynamoDB's 100 items and 4 MB. A
// capture without a split settled at once: 6 items (one entry, one
// balance). A refund of a split payment: 9 + k.
// The calls are the same with or without a split: GetItem of the API key,
// of the Idempotency-Key and of the payment, then one TransactWriteItems
// (shared/pay/splits TestCallsPerCaptureWithAndWithoutSplit; make bench).
//
// # Codes
//
// CodeSplitExceedsPayment (split_exceeds_payment, codes.go: a split whose
// parts take more than the payment). Insufficient words a refused write
// as insufficient_balance (the kind's code), as does DebtFree for an open
// debt; WhileDebtFree answers store.CodeBusy (resource_busy) when owed kept
// changing through every attempt.
//
// # The check
//
// Check re-derives every balance of an account from its entries (one
// partition read, paged) and reports each counter that differs, each entry
// that breaks the rules and each merchant-side balance below zero, with the
// external accounts' totals (Report.External);
// CheckAll does it for every account of the account index. The admin CLI
// runs it (admin ledger check, exit 1 on a difference); tests plant
// differences to prove it fails. Over 100 000 entries of one account on the
// embedded store it takes about 1.1 s (make bench).
package ledger
