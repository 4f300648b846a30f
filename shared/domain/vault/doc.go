// Package vault keeps customers and their card tokens: the records, their
// key layout and the writes that create them, for the Pay API's customers
// group (shared/pay/customers) and for checkout, which saves a card token with
// the payment that stores it (storePaymentMethod) and pays with one
// (storedPaymentMethodId). One record, one id serves both: a card token is
// checkout's stored payment method.
//
// Decisions:
//
//   - A customer's external_ref is the shopper reference of checkout (Adyen's
//     shopperReference): unique per account. Its claim (put-if-absent) is the
//     first op of every write that creates a customer, so of two requests
//     creating the customer of one reference (two first payments of a new
//     shopper, or a payment and POST /v1/customers) exactly one commits; the
//     other's transaction fails on the claim and it reads the winner's
//     customer (checkout retries; the API answers 409 external_ref_in_use).
//   - A card token's id is checkout's keyed fingerprint of the account,
//     shopper, number and expiry ("spm_..."; the number never appears), so
//     one card saved twice, even by concurrent payments, writes one token.
//     Its record's put is conditioned on what the write read: put-if-absent
//     for a new token (so of concurrent first saves exactly one creates it,
//     and writes its card_token.created), put-if-exists for a card saved
//     again (concurrent re-saves all commit; a delete in between fails it).
//     A payment whose write failed there reads again and retries
//     (Writes.Lost), as one that lost the reference's claim does.
//   - No card number or CVC is kept. A token holds brand, last four digits,
//     expiry, holder name and, for the sandbox, the test card's outcome
//     profile (processor.Profile): all the sandbox processor needs to replay
//     the card. A live processor would keep its network token reference here
//     instead (docs/payments.md, "Stored cards and what a live processor would keep").
//   - The default card token of a customer is the one the merchant chose
//     (default_card_token_id, set by POST /v1/customers/{id}: UpdateOps),
//     else computed (Default): the token saved most recently (UpdatedAt; a
//     payment that saves the card again makes it the default again), among
//     those whose card has not expired, ties broken by id. A chosen default
//     always names a token of the customer: the update's transaction checks
//     the token is still there, and a token's delete conditions on the
//     customer's version, clearing default_card_token_id in the same
//     transaction when it named the token (DeleteOps). So an update and a
//     delete racing on one token never leave a default naming a deleted
//     token: whichever commits second reads again. Saving a token never
//     rewrites the customer.
//   - Events (shared/domain/eventlog, in the transaction of the change; data
//     the resource as the API shows it, CustomerView and TokenView, never a
//     card number or CVC): customer.created with every write creating a
//     customer (POST /v1/customers, a checkout payment saving a card for a
//     new shopper or paying with a legacy card); card_token.created with
//     every write creating a token (a new card saved, a legacy card
//     migrated), once per token; customer.updated with UpdateOps, and with a
//     delete that clears the default; card_token.deleted with DeleteOps. A
//     legacy stored card deleted before it migrated (DeleteLegacyOps) was
//     never a card token (it has no customer), so it writes none.
//   - Legacy stored cards (checkout's records before card tokens, which kept
//     the test card number: "spm#<account>#<shopperReference>") are migrated
//     on first use, in the transaction of the write that touches them: the
//     write that creates the shopper's customer converts up to
//     MaxLegacyMigrated of them into tokens with the same ids (profile from
//     the number, number dropped) and deletes them; a payment with a legacy
//     id converts that card. Until then checkout lists a shopper without a
//     customer from them, and they pay as before. Nothing else ever reads
//     them, and no code writes them any more.
//
// Key layout (payments table, beside the payment records):
//
//   - cus#<account> / <customer id, UUIDv7>: the customer; one partition
//     lists an account's customers newest first.
//   - cusref#<account>#<external_ref> / "customer": the reference's claim,
//     holding its customer's id.
//   - cusemail#<account>#<e-mail, lower case> / <customer id>: customers by
//     e-mail (several may share one).
//   - ctok#<account> / <token id>: the card token.
//   - cusctok#<account>#<customer id> / <token id>: a customer's tokens, each
//     a copy of its token record, written and deleted with it.
//   - spm#<account>#<shopperReference> / <id>: legacy stored cards (read and
//     deleted only).
package vault
