// Package direct is the Pay API's direct (host-to-host) payments: the
// public keys merchants encrypt card fields with (GET
// /v1/payments/direct/keys) and the payment of an encrypted card, or of a
// wallet token decoded by shared/pay/walletpay (POST /v1/payments/direct).
//
// Decisions:
//
//   - Function: DirectPaymentsFunction, one of the card-taking functions
//     whose roles may use the card keys (kms:Decrypt, granted in the key's
//     own policy in template.yaml, with checkout's payments, client and hosted
//     page functions, which open the Drop-in's encrypted fields with the same
//     keyring, checkout.CardKeyring; infra/samtemplate's
//     TestOnlyCardFunctionsMayDecryptCards holds it to that).
//   - Format: Adyen's client-side encryption (package cse): a compact JWE,
//     RSA-OAEP-256 + A256CBC-HS512, header version "1" and kid, over the
//     card JSON with its generationtime; go-jose parses and decrypts it.
//     Adyen's own libraries (its Android and iOS CSE modules) write no kid:
//     such a JWE is tried with the active keys, newest first (one KMS call
//     for a card encrypted with the current key).
//     Every reason a JWE cannot be opened (malformed, unknown or expired
//     kid, a tampered part, another key, a generationtime over 24 hours old
//     or in the future) is the one 400 encrypted_card_invalid whose message
//     says what to do and nothing of why. A card that opens but fails its
//     checks is the processor's card_error naming encrypted_card.<field>.
//   - Keys: one item (accounts table, cse.RingKey) lists them, newest first:
//     kid (a hash of the public key), where the private half is (a KMS key
//     ARN; locally a PEM file under the data directory), created and expiry
//     times. The listing is read fresh, so a rotation is visible at once; a
//     payment reads it at most once a minute per instance and again on an
//     unknown kid, so a key rotated in elsewhere pays at once. A rotation
//     (admin direct-keys rotate) makes the new key current and gives the
//     others an expiry (grace, 7 days by default); an expired key decrypts
//     nothing. Every account sees the platform's keys.
//   - 3-D Secure: the payment is moved by checkout's own code
//     (checkout.Service.ApplyOutcome, the sandbox processor's stages), so
//     its paymentData is checkout's sealed token. A host-to-host payment
//     has no 3DS2 component on the merchant's page: a card enrolled in
//     3-D Secure is authenticated through a redirect (Adyen's redirect
//     flavour of 3DS2): requires_action with next_action {type redirect,
//     url, method GET}; the shopper comes back to return_url with
//     redirectResult, which POST /v2/payments/details takes. In the sandbox
//     the issuer authenticates at once (the URL is return_url with the
//     redirectResult); secure3d is true.
//   - Wallet tokens (tokens.go): a decode (shared/pay/walletpay) seals the
//     decrypted card (device account number, expiry, cryptogram) to the
//     current card key, in the same JWE format, and keeps it in the payments
//     table (PK "wtok#<account>", SK the payment_token_id, expiring an hour
//     after the decode, kept a day longer), beside a claim of its wallet
//     transaction (PK "wclaim#<type>", SK a hash of the wallet's
//     transaction id, whichever account decoded it: an Apple Pay token is
//     not bound to an account, so a second account's decode of it is a
//     409). So the card is never stored in
//     clear, only this function can open it, and a token payment is the one
//     decrypt path. Its id is a hash of the account and the wallet's own
//     transaction id (Apple's transactionId, Google's messageId): the same
//     wallet transaction decoded twice is one token. The payment marks it
//     used in its own transaction, conditioned on the version read: of any
//     number of payments with one token, one commits; the others answer 409
//     payment_token_used naming the transaction. An Apple Pay token pays
//     only its approved amount (400 amount_mismatch). A cryptogram is the
//     shopper's authentication (processor.AuthoriseNetworkToken): no 3-D
//     Secure; a Google Pay PAN_ONLY token goes through it like a card.
//   - Money: automatic capture (the default) goes through
//     payments.Payment.Authorise, so the capture and its ledger entries are
//     in the authorisation's own write; manual holds the funds for the
//     transactions group's capture or cancel. The transaction is on
//     /v1/transactions like any other (payment_method the brand, or
//     applepay/googlepay).
//   - Idempotency-Key is required (IdemInline): the payment, its history,
//     events, index and ledger entries, a token's use and the key's record
//     are one TransactWriteItems; 20 copies at once are one payment. A
//     refused payment is a definitive answer (201, status rejected).
//   - Calls per payment, deployed: DynamoDB GetItem (the API key), GetItem
//     (the Idempotency-Key), GetItem (the keyring, at most once a minute per
//     instance), GetItem (a payment token, when one is paid), one
//     TransactWriteItems; KMS one Decrypt (RSAES_OAEP_SHA_256). GET /keys is
//     GetItem (key) + GetItem (keyring). No Scan.
//   - Live keys: the card is decrypted (a bad JWE is the same 400), then
//     403 live_mode_unavailable: no live processor is connected.
//   - Errors: Invalid (fields named, encrypted_card_invalid, card_error,
//     amount_mismatch, payment_token_expired), NotFound (a payment token of
//     another account, or none), Conflict (payment_token_used), Forbidden,
//     IdempotencyMismatch, Unavailable (the store or KMS down: a 503, never
//     the merchant's 400).
package direct
