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
//   - The default card token of a customer_id charge is computed
//     (vault.Default): the most recently saved token whose card has not
//     expired. Nothing stores it, so nothing races on it.
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
//     another customer has it); a token's delete is the token, its
//     customer's copy and any legacy record of its id, conditioned on the
//     token still being there.
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
//     the token's read; a replay is the two key reads.
package customers
