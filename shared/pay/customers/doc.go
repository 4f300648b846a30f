// Package customers is the Pay API's customers group: customers, their
// card tokens and transactions, and recurring (merchant-initiated or
// card-on-file) payments that charge a card token. The records and their
// writes are shared/domain/vault's; checkout saves the tokens (storePaymentMethod)
// and pays with them (storedPaymentMethodId): one record, one id.
//
// Decisions:
//
//   - Function: CustomersFunction serves /v1/customers..., POST
//     /v1/payments/recurring and Adyen's /v2/storedPaymentMethods. One function for both: they read the
//     same records (a recurring payment is a charge of a customer's token),
//     need the same tables, and a second function would cost six more stack
//     resources (function, version, alias, permission, two alarms) and a
//     second cold path for one more route. The price: the customer reads
//     share the recurring route's grants (the payments and events writes,
//     the session-signing key read).
//   - Adyen's stored payment methods (routes_adyen.go: GET and DELETE
//     /v2/storedPaymentMethods, served by the same function): the card
//     tokens' second face, for merchants who migrate with Adyen's
//     libraries; the shopper is the customer whose external_ref is
//     shopperReference (its legacy stored cards before it has one), and
//     merchantAccount must be the key's.
//   - Names are snake_case; a new resource's amount is {value, currency} in
//     minor units (DESIGN.md). A recurring payment answers 201 with a
//     transaction (shared/pay/transactions's representation, Kind
//     transactions.Kind: requires_action reads 3d before 2024-01-15),
//     whatever its outcome (a refused charge is a definitive answer,
//     replayed as such), plus next_action while it waits for the shopper.
//   - off_session exists from version 2023-09-01 (version.go: a
//     version.Field, which httpapi's decoder enforces; under 2023-06-01 it is
//     an unknown field, a 400). Its default is the recurring_type's:
//     subscription and unscheduled are merchant-initiated (off session);
//     card_on_file is the shopper paying with a saved card (on session; true
//     is a 400 off_session_not_allowed).
//   - Off session, the sandbox never waits for the shopper
//     (cards.Processor.AuthoriseStored): authorised or refused, never
//     requires_action. On session, a card enrolled in 3-D Secure (or
//     redirected) waits: the payment is moved by checkout's own code
//     (checkout.Service.ApplyOutcome), so its action's paymentData is
//     checkout's sealed token and POST /v2/payments/details (or the sandbox
//     challenge helper) completes it exactly like a checkout payment, with
//     the automatic capture in the authorisation's write. next_action is
//     that Adyen action in snake_case.
//   - The default card token of a customer_id charge is the customer's
//     default_card_token_id when the merchant chose one (POST
//     /v1/customers/{id}; Stripe's invoice_settings.default_payment_method,
//     kept to one of the customer's own tokens), charged even when its card
//     has expired since (400 expired_card naming customer_id: the merchant
//     chose that card, so no other is charged in its place); else computed
//     (vault.Default): the most recently saved token whose card has not
//     expired (vault.DefaultOf).
//   - Updates (POST /v1/customers/{id}, IdemInlineOptional as the other
//     updates): email, name, description ("" removes one), metadata
//     (metadata.Merge: a key set to "" is removed), default_card_token_id
//     ("" clears it); external_ref never changes (it is checkout's
//     shopperReference of the customer's cards), so it is an unknown field.
//     A store.Race: read the customer, apply the change, write it at the
//     version read with customer.updated (vault.UpdateOps) and the
//     Idempotency-Key's record; a lost race reads again and applies the
//     change to the winner's, so concurrent updates are never lost
//     (resource_busy after the race's attempts). A newly chosen default
//     token is read (it must be the customer's: else card_token_unknown, one
//     answer for another customer's or account's, deleted or unknown) and
//     checked again in the transaction (ConditionCheck: still there); a
//     token's delete conditions on the customer's version and clears the
//     default it named, so neither order of an update and a delete racing
//     leaves a default naming a deleted token. An update that changes
//     nothing writes nothing (no event).
//   - Events (shared/domain/vault's writes, in the change's transaction):
//     customer.created, customer.updated, card_token.created (checkout's
//     saves and legacy migrations), card_token.deleted (both delete
//     routes); data is Customer or CardToken, as GET shows them.
//   - Money: automatic capture (the default) goes through
//     payments.Payment.Authorise, so the capture is in the authorisation's
//     own write; manual holds the funds for the transactions group's
//     capture or cancel (or the 7-day expiry).
//   - Writes: a recurring payment is one TransactWriteItems: the
//     Idempotency-Key's record (idempotency.Commit; the route is IdemInline
//     and the key required), the payment, its history and events, its
//     order-reference and customer index entries. 20 concurrent copies with
//     one key make one payment. A customer's creation is one transaction
//     too (the external_ref's claim first: 409 external_ref_in_use when
//     another customer has it; customer.created); a token's delete is the
//     token, its customer's copy, any legacy record of its id and
//     card_token.deleted, conditioned on the token still being there and
//     on the customer's version (rewritten without its default when that
//     was the token, with customer.updated); an update is the customer at
//     the version read, its e-mail index entry moved, customer.updated and
//     the key's record.
//   - Lists: the customers list serves each filter from its own partition
//     (external_ref: the reference's claim; email: the e-mail index; else
//     the account's customers, the created range as a key range); a
//     customer's transactions come from the payments' customer index
//     (payments.CustomerPK), its card tokens from its token partition. No
//     Scan.
//   - Errors: another account's customer, token or transactions, and a
//     token of another customer than the one named: 404 on every route; an
//     expired card: 400 card_error expired_card naming card_token_id; a
//     customer whose every card expired: 400 no_card_token; live keys: 403
//     (no live processor is connected).
//   - DynamoDB calls (calls_test.go, DynamoDB Local; infra/bench reports
//     them): a recurring payment by card_token_id is GetItem (API key) +
//     GetItem (Idempotency-Key) + GetItem (token) + one TransactWriteItems;
//     by customer_id, GetItem (customer) + Query (its tokens) in place of
//     the token's read (GetItem of the chosen default instead of the Query
//     when there is one); a replay is the two key reads. An update: GetItem
//     (API key) + GetItem (Idempotency-Key) + GetItem (customer) + GetItem
//     (a newly chosen default) + one TransactWriteItems (an UpdateItem of
//     the key's record alone when nothing changes); a token's delete:
//     GetItem (API key) + GetItem (token) + GetItem (customer) + one
//     TransactWriteItems.
package customers
