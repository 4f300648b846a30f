// Package beneficiaries is the Pay API's beneficiaries: the people and
// companies a merchant pays by bank transfer in Kazakhstan, the balance each
// holds (ledger accounts of its own), distributions of the merchant's
// available balance among them, transfers back to the merchant, and manual
// settlement by payment order to their bank accounts.
//
// # Functions
//
//   - BeneficiariesFunction (routes.go): /v1/merchants/beneficiaries
//     (create, list, get with balances, update, transfer),
//     /v1/merchants/settlement-payment-orders (create, list, get) and
//     /v1/distributions (create, list, get, balance). One function for the
//     spec's beneficiaries and distributions: the same records, the same
//     grants, and a distribution reads the beneficiaries it credits (one
//     function fewer on the stack: docs/architecture.md, Stack size).
//   - PaymentOrdersSenderFunction (Consume): the payment-orders queue's
//     consumer; it sends each created order to the bank and records the
//     answer.
//   - SettlementFunction (declared by shared/pay/balance, built here by
//     BuildSettlement) runs Sweep every minute: it re-queues orders still
//     created RequeueAge after they were made (a message lost after the
//     commit) and finishes distributions a dead process left between chunks
//     (ResumeAge).
//
// # Beneficiaries
//
// A person (an IIN) or a company (a BIN) with a Kazakh IBAN, its bank's BIC
// and a KBe code; each is checked by shared/domain/kzid (check digits, a real birth
// date, mod 97, KZ only, and a KBe consistent with the type: a person is a
// household, sector 9; a company any other sector). The type and the
// identifier never change; the rest can. A disabled beneficiary takes no
// distribution and no payment order; what it holds can still be moved back
// to the merchant. Beneficiaries are never deleted, so a beneficiary read
// once exists for good (a distribution relies on it between its check and
// its later chunks).
//
// Its balance is two accounts of the merchant's books per currency
// (shared/domain/ledger): beneficiary:<id> (what it holds) and
// beneficiary_reserved:<id> (what payment orders reserved), in a partition
// of their own; the books keep two aggregates beside the merchant's
// balances (what all beneficiaries hold and have reserved), so
// GET /v1/distributions/balance is one Query.
//
// # Money
//
// Every movement is one ledger entry, written in the transaction of the
// state change that causes it, with the Idempotency-Key's record:
//
//   - transfer: beneficiary:<id> -> available (beneficiary_transfer);
//   - payment order: beneficiary:<id> -> beneficiary_reserved:<id>
//     (payment_order), then -> bank when paid (payment_order_paid) or back
//     to beneficiary:<id> when failed (payment_order_failed);
//   - distribution: available -> each line's beneficiary:<id>
//     (distribution; distribution_credit for later chunks, from
//     distributing).
//
// The balance that would go below zero fails the store's condition, and the
// answer is 400 insufficient_balance with nothing written (30 concurrent
// orders over a beneficiary's balance: the ones that fit succeed, the ledger
// check agrees).
//
// # Payment orders: two keys and a crash-safe consumer
//
// A payment order is a remittance (shared/domain/remittance: the life it shares
// with shared/pay/balance's payouts, written once there: the open index, the
// queue and its consumer, the decision's optimistic write, the re-queue,
// the crash test); its record, statuses, events and ledger moves are this
// package's (paymentorder.go).
//
// An order is deduplicated by Idempotency-Key, as every money-moving POST,
// and by request_id in the body, as the provider does: the request_id's
// index entry (sporeq#) is a put-if-absent in the order's own transaction.
// The same request_id with a new key makes nothing: with the same
// beneficiary, amount, purpose code and description it answers 200 with the
// existing order as it is now (recorded under the new key, so that key
// replays it); otherwise 422 request_id_reused. Ten racing requests with
// one request_id make one order.
//
// The consumer asks the bank with the order's id as the bank's idempotency
// key, so a consumer that dies after the bank answered asks again on the
// message's redelivery, gets the same answer, and records it once: one
// outcome, one entry (TestConsumerCrashAfterTheBankAnswered). An unanswered
// call counts an attempt and is asked again (5 s times the attempts); after
// MaxBankAttempts the bank is asked what it did (Lookup): paid if it paid,
// else failed bank_timeout and the reserve released. "Accepted, still
// paying" (the slow sandbox IBAN) is asked again every 20 s without counting.
// The bank is a port (domain/banking); the sandbox bank (sandbox/bank, the
// wiring's choice for test keys) answers by IBAN (docs/beneficiaries.md's table) and
// keeps its own record per order (sbxbank#). Live keys cannot
// make orders (403 live_mode_unavailable): no live bank is wired.
//
// # Distributions: all lines or none, beyond one transaction
//
// A distribution has at most 500 lines; DynamoDB's transactions hold at most
// 100 items (store.MaxTransactOps), and each credited line is one balance
// add. So:
//
//  1. Every line's beneficiary is read before anything is written
//     (store.GetMany: a BatchGetItem per 100 keys); a missing one (another account's included: the key holds
//     the account) is a 404 naming its line, a disabled one a 409. Nothing
//     is written on either.
//  2. One transaction (the head) writes the distribution with its lines, the
//     key's record and the entry that takes the whole total from available:
//     the first ChunkLines (85) lines to their beneficiaries, the rest to
//     distributing. Available below the total fails here, with nothing
//     stored. With at most 85 lines that is all (completed, with
//     distribution.completed in the same write).
//  3. Otherwise the distribution is processing (the recorded answer) and
//     has an open-index entry; each later chunk of 85 is one transaction:
//     the distribution put at the version read with chunks_done + 1, the
//     chunk's entry (distributing -> its beneficiaries) and balances; the
//     last also removes the open entry, marks it completed and writes
//     distribution.completed. A chunk is written once whoever runs it (the
//     version condition), so the request and any number of sweeps may race.
//  4. If the process dies between chunks, the money is already out of
//     available and in distributing, every beneficiary is known to exist,
//     and the sweep finishes the chunks ResumeAge later
//     (TestDistributionCrashBetweenChunks).
//
// All or nothing therefore holds at the head: after it the credits are
// certain (nothing they need can fail: the beneficiaries exist and the
// money is held), and before it nothing was written. The alternative of
// checking the beneficiaries inside the chunk transactions would leave a
// failure after the first chunk needing a compensating entry.
//
// # Key layout (table ledger)
//
// See keys.go: ben#, spo#, sporeq#, spoopen#<shard>, sbxbank#, dist#,
// distopen#<shard> (the two open indexes are dueindex.Index, compact
// layout, keyed by creation time); the balances are shared/domain/ledger's
// (mbal#<account> and mbal#<account>#<beneficiary id>). Events go through
// the event log (shared/domain/eventlog: eventlog.Append, with its expiry).
//
// # DynamoDB calls (TestCallsPerDistributionAndPaymentOrder; make bench)
//
// Create a beneficiary: GetItem (API key), GetItem (Idempotency-Key when
// sent), one write (an UpdateItem alone, a TransactWriteItems with the
// key's record). Get: GetItem + one Query (its
// balances). A transfer: three GetItems (key, Idempotency-Key, beneficiary)
// and one TransactWriteItems. A payment order: three GetItems and one
// TransactWriteItems of 11 items, then one SendMessage; its consumer: the
// order's GetItem, the sandbox bank's GetItem and UpdateItem, one
// TransactWriteItems. A distribution of n lines: two key reads,
// ceil(n / 100) BatchGetItems (the beneficiaries), one Query (the
// currency's available and owed: nothing is distributed while the account
// owes from disputes, ledger.DebtFree, whose check rides in the first
// write), and ceil(n / 85) TransactWriteItems: 2 GetItems, 1 BatchGetItem,
// 1 Query and 2 writes for 100 lines; 2, 5, 1 and 6 for 500. GET /v1/distributions/balance: one Query. No Scan
// anywhere.
//
// # Codes (codes.go)
//
// beneficiary_state_conflict and beneficiary_disabled (409),
// duplicate_beneficiary (400 naming the line), live_mode_unavailable
// (403), request_id_reused (422 naming request_id), besides
// insufficient_balance, parameter_invalid and parameter_missing. A change
// (an update, a decision, a chunk) that keeps losing its race to
// concurrent writers answers resource_busy (store.CodeBusy, 409); the
// metadata rule is metadata.Check's.
package beneficiaries
