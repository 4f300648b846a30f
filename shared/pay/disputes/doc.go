// Package disputes is the Pay API's dispute management (spec §9: added in
// version 2023-09-01): a cardholder's bank disputes a captured payment
// through the card network; the merchant answers with evidence or accepts
// the loss. Models: Stripe's dispute statuses and evidence submission,
// Adyen's Disputes API (accept, defend with documents).
//
// Decisions:
//
//   - Functions: DisputesFunction (GET /v1/disputes, /v1/disputes/{id};
//     POST /v1/disputes/{id}/accept, /evidence, /submit; the sandbox's
//     POST /test-helpers/transactions/{id}/dispute) and
//     DisputeSweeperFunction (every minute; make run runs it as a periodic
//     task). The group is declared Since 2023-09-01 (registry.Group.Since):
//     a request at 2023-06-01, by its Service-Version or its account's
//     default, is a 400 version_unsupported naming the version it needs,
//     from the platform, before any handler runs.
//   - Statuses (dispute.go): needs_response -> under_review (submit) ->
//     won | lost; needs_response -> lost (accept, or due_by passed: the
//     sweeper, and any call on it after due_by, which closes it first and
//     answers 409 dispute_expired; if that closing loses a race to a
//     submit read before due_by, or to the sweeper, the call reads again
//     and is judged against the winner: TestSweeperRacesSubmit). Adding
//     evidence keeps needs_response.
//     An illegal change is a 409 naming the status (dispute_state_conflict;
//     dispute_closed once won or lost): submitting twice is a 409.
//   - Money (shared/domain/ledger dispute.go): opening holds the amount and the
//     fee (DISPUTE_FEE major units, 15 by default) from available into
//     disputed; winning releases both (repaying any debt first); losing
//     sends the amount to the processor (back to the cardholder) and the fee
//     to fees. A dispute is not the merchant's to refuse, so the hold never
//     fails for lack of funds: what available lacks is owed (a negative
//     balance), repaid from available first. Every move is one balanced
//     entry in the dispute's own transaction.
//   - The payment shows its dispute (payments.DisputeMark, written in the
//     same transactions; the transaction's disputed and dispute_id, from
//     2023-09-01) and cannot be refunded while the dispute is open or once
//     it is lost (409 payment_disputed): the cardholder is paid back through
//     the dispute.
//   - Evidence (evidence.go): a description (text, 20,000 characters) and
//     documents (PDF, JPEG, PNG, TIFF, plain text; each checked to be what
//     its content_type says) whose decoded bytes are stored outside the
//     dispute's item, chunked, at most 5 MiB per dispute; the evidence
//     route takes bodies up to 4 MiB (registry.Route.MaxBody), so a 5 MiB
//     set arrives in two calls or more, each adding documents; past 5 MiB
//     is a 413 evidence_too_large with nothing stored.
//   - Sandbox: the test helper opens a dispute on a captured payment (not
//     on a refunded one: 409 payment_refunded; one per payment). On submit
//     the sandbox issuer reads the evidence and decides at once (the
//     description or a document holding winning_evidence wins;
//     losing_evidence, or neither, loses); the decision is applied when its
//     review ends (the sandbox issuer's Review, 15 s) by the sweeper's next run.
//   - Writes: every change is one TransactWriteItems: the dispute
//     (conditioned on the version read), its due entry moved with its
//     status, its event (dispute.created, dispute.updated, dispute.closed),
//     the payment's mark when the status changes (conditioned on the
//     payment's version), the ledger's entries and balances, and the
//     Idempotency-Key's record (idempotency.Commit; the POSTs are
//     IdemInline). A lost race re-reads and decides again against the
//     winner's state, so an accept racing a submit ends one way, the other
//     a 409; a duplicate of a call that won replays its answer.
//
// # Key layout (table payments; record.go)
//
//   - dsp#<account> / <dispute id>: disputes (UUIDv7).
//   - dspdoc#<account>#<dispute id> / <document id>#<nnnn>: evidence chunks.
//   - dspdue2#<shard> / <time>#<account>#<dispute id>: the due index (a
//     dueindex): open disputes by due_by (needs_response) or by the end of
//     their review (under_review). The sweeper also reads dspdue#<shard>,
//     where entries were written before the one due-time layout.
//
// # DynamoDB calls
//
// GET /v1/disputes/{id}: GetItem (API key) + GetItem (dispute).
// GET /v1/disputes: GetItem + Query pages of the account's partition.
// Open: GetItem (key), GetItem (Idempotency-Key), GetItem (payment), Query
// (the currency's balances), one TransactWriteItems (key's record, dispute,
// due entry, event, payment, hold entry, 2 or 3 balances, the debtors
// entry when it owes: 8 to 10 items).
// Accept: GetItem x 3 (key, Idempotency-Key, dispute), GetItem (payment),
// one TransactWriteItems (key's record, dispute, due entry's removal,
// event, payment, loss entry, 2 balances or 1 without a fee (disputed,
// fees; the processor keeps no counter): 7 to 8 items). Submit: as accept, plus a GetItem per evidence chunk (the
// sandbox reads the evidence), with the due entry moved (removal and put)
// and no ledger items. Evidence: GetItem x 3, then one TransactWriteItems
// per ChunksPerWrite chunks (up to 10 items, 3.5 MB), then one for the
// dispute (key's record, dispute, event). The sweeper: a Query per due
// shard (and per shard of the index's earlier layout), then per due dispute GetItem (dispute), GetItem (payment), Query
// (balances, a win only), one TransactWriteItems; then a Query per debtors
// shard and per debtor a Query and one TransactWriteItems. No Scan.
package disputes
