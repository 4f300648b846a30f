// Package transactions is the Pay API's transactions group: reading,
// listing, capturing, voiding and refunding the payment records checkout
// writes (shared/domain/payments), and the scheduled expiry of authorisations.
//
// Decisions:
//
//   - Functions: TransactionsFunction (GET /v1/transactions, /{id},
//     /{id}/history, /by-order-reference/{order_reference},
//     /by-payment-link/{payment_link_id}; POST /{id}/capture, /cancel,
//     /refund) and AuthorizationExpirerFunction (every 5 minutes; make run
//     runs it as a periodic task): the authorisations' expiry, and the
//     modifications the processor has not received (Resend).
//   - CheckoutModificationsFunction (routes_adyen.go): Adyen Checkout v71's
//     captures, refunds, cancels, reversals, amount updates and cancel by
//     reference under /v2, over the same service methods (Reverse,
//     UpdateAmount and CancelByReference exist for it): a second face with
//     no logic of its own. The change is made before the 201 "received";
//     OpInput.Answer records Adyen's answer for the key, and the key is
//     optional there (OpInput.KeyOptional), as at Adyen.
//   - Representation: Transaction, the provider's transaction fields in
//     snake_case, built from payments.Payment (View); the stored record
//     keeps its own field names. The version changes are the payment's
//     (Kind = payments.Kind): requires_action reads 3d, in the history too
//     (payments.KindHistory), and metadata is absent before 2024-01-15.
//   - Capture mode: a payment created in automatic mode (checkout's
//     default) is captured in the authorisation's write
//     (payments.Payment.Authorise), so it reaches this group charged;
//     manual mode leaves it authorised for the routes here.
//   - Money: a capture adds to processed_amount (partial captures repeat
//     while capture is open; final or the whole amount closes it, releasing
//     the rest of the hold); a refund is a new payments.Payment of type
//     refund with parent_transaction_id, and the parent becomes
//     partially_refunded / refunded; a refund closes capture. The rules live
//     on the record (payments/money.go); this package only reads, retries
//     and commits.
//   - Writes: Service.change reads the payment, applies the move and writes
//     the payment (conditioned on the version read), its history entry and
//     event, a refund's record and index entry, the expiry entry's removal
//     and the Idempotency-Key's record in one TransactWriteItems
//     (idempotency.Commit; the routes are IdemInline). The same
//     transaction posts the money to the merchant's books: SaveOps derives
//     the ledger entries from the payment's money moves (payments/ledger.go;
//     a capture to pending, settled at once in the sandbox; a refund from
//     available; a split request applied or reversed), so a refund the
//     available balance cannot cover is a 400 insufficient_balance naming
//     amount, with nothing changed. A lost race re-reads
//     and decides again against the winner's state (up to 40 attempts with
//     jittered backoff), so concurrent refunds each get a success or a 400
//     naming amount, never a double refund. A change refused against the
//     state it read first asks the key (idempotency.Call.Settled): a copy
//     of a call that just won replays the winner's answer.
//   - The card processor (cards.Processor, Config.Processor) hears of every
//     capture, cancel and refund after the change is committed, never
//     before: the commit carries a due entry per modification
//     (payments.ModificationIndex, its id the change's history entry:
//     payments.ModificationID), the request then calls the processor and
//     deletes the entry once it received the modification. A change that
//     lost a race is never sent; a call that failed, or a process that died
//     after the commit, leaves the entry, and the expirer's run sends it
//     again (Resend, due ResendAfter later) with the same id, which the
//     processor answers as a repeat. The merchant's answer is the committed
//     change either way; a processor that refuses a committed change is
//     logged as an error for an operator (the sandbox takes every one).
//     An expiry and an amount update are no modification.
//   - Errors: an illegal move is a 409 payment_state_conflict whose message
//     names the current status; an amount out of range is a 400 naming
//     amount (amount_exceeds_capturable, refund_exceeds_balance); another
//     currency is a 400 naming currency; another account's transaction is a
//     404 on every route.
//   - Indexes (payments/index.go), written with the record in SaveOps:
//     payref#<account>#<reference>, paylink#<account>#<link> and
//     paycust#<account>#<customer> list a reference's, a link's or a
//     customer's transactions (one Query, then a GetItem per transaction;
//     the list's customer_id filter reads the customer's); payexp#<shard>
//     holds authorised payments by expiry,
//     read by the expirer (a Query per shard, then per due payment a GetItem
//     and one TransactWriteItems).
//   - Routing: Go's mux refuses /v1/transactions/{id}/history beside
//     /v1/transactions/by-order-reference/{order_reference}; the history
//     route is served as /{id}/{sub} (httpapi.Route.MuxPath), which the
//     server narrows back to /{id}/history. API Gateway needs nothing: the group has
//     /v1/transactions and /v1/transactions/{proxy+}.
//   - DynamoDB calls (calls_test.go, DynamoDB Local): capture, cancel and
//     refund are GetItem (API key) + GetItem (idempotency key) + GetItem
//     (payment) + one TransactWriteItems; a replay is the two key reads; a
//     read is the API key and the payment. No Scan anywhere.
package transactions
