// Package checkout serves checkout sessions, the advanced flow and the
// client-key endpoints of the drop-in, speaking Adyen Checkout v71 shapes
// (reference/adyen-checkout-v71.json): every success body validates against
// the reference response schemas, which allow only the fields they name.
//
// Decisions (where the spec says "not shown"):
//
//   - Function groups: CheckoutSessionsFunction (POST /v2/sessions, GET
//     /v2/sessions/{id}), CheckoutPaymentsFunction (POST /v2/paymentMethods,
//     /v2/payments, /v2/payments/details), CheckoutClientFunction (the
//     drop-in's /v2/client/sessions/{id}/... endpoints) and
//     CheckoutTestHelpersFunction (POST /test-helpers/payments/{id}/challenge),
//     and CheckoutSessionExpirerFunction (scheduled every minute, expire.go).
//   - Client key (spec §5.6): sent like a server key, raw in Authorization or
//     in x-api-key, with the browser's Origin, which must be one of the key's
//     allowed origins. Client endpoints also require the session's
//     sessionData in the body; server keys are refused there (401) and client
//     keys on server endpoints (401).
//   - merchantAccount may be left out of POST /v2/sessions, /v2/paymentMethods
//     and /v2/payments (it defaults to the key's); when sent it must be the
//     key's, else a 400 naming it.
//   - sessionData binds session id, account, amount, currency and expiry,
//     encrypted and authenticated with AES-256-GCM under a key derived from
//     the signing key (package sessiondata), so it reveals no id; any
//     mismatch is a 400 naming sessionData. paymentData (and the
//     authorisationToken and redirectResult that carry it) of a pending
//     action is sealed the same way. Signed tokens issued before encryption
//     still open until their sessions end (24 h at most).
//   - Session storage: table sessions, PK "cs#<id>": SK "session" is the
//     record (kept 30 days after expiry so results stay readable) and SK
//     "live" is a marker whose store expiry is the session's expiresAt. Every
//     write that authorises a payment on a session checks the marker in the
//     same transaction, so nothing is authorised once the session expired,
//     even if it expired between the read and the write; and the session
//     record is written conditioned on the version read, so two concurrent
//     payments cannot both complete it. PK "csexp#<shard>" (8 shards) is
//     the expiry index: SK "<expiresAt>#<id>", one entry per session,
//     written with it, removed by the expirer.
//   - Session statuses: active; paymentPending while a payment waits for
//     3-D Secure or a redirect; completed once a payment is authorised;
//     refused after MaxRefusals refused or failed attempts; canceled when the
//     shopper cancels a challenge; expired once expiresAt passed without a
//     final status (computed on read, and stored by the expirer within a
//     minute). Only active and paymentPending sessions
//     take payments; a new attempt while one is pending supersedes it (the old
//     one can no longer complete the session).
//   - Idempotency-Key is honoured on POST /v2/sessions and the /payments and
//     /payments/details routes inline (httpapi.IdemInlineOptional): the
//     record is written in the same transaction as the session or payment
//     (idempotency.Commit), so a retry replays the one payment and a session
//     costs a single write call after the key read. Details for a payment
//     already decided write the record alone. Keys sent with a client key
//     are a namespace of their own.
//   - Services take typed input and a Caller (account, merchant account, test
//     mode, time, the idempotent call) and return typed results or kinded
//     errors: CreateSession, Pay, PayInSession, Details, DetailsInSession,
//     CompleteChallenge. Only routes.go, methods.go and result.go handlers
//     know HTTP.
//   - DynamoDB calls (asserted in calls_test.go on DynamoDB Local): POST
//     /v2/sessions is GetItem (key) + one TransactWriteItems; with an
//     Idempotency-Key one more GetItem (the key's record, which then joins
//     the same transaction); a replay is the two GetItems. An authorised card
//     payment on /v2/payments is the same (1 GetItem + 1 TransactWriteItems,
//     2 + 1 with a key); on a session, the session's GetItem is added. No
//     Scan anywhere.
//   - Events: the payment that completes a session writes
//     checkout.session.completed in its transaction; the expirer writes
//     checkout.session.expired with the stored expiry. Both writes are
//     conditioned on the session's version (and on the live marker being
//     present, resp. gone), so a session gets one of the two, once. Data is
//     SessionView: the create answer without sessionData, plus the result's
//     status and payments.
//   - Payments: each attempt is a payments.Payment (status machine, history
//     and events in the same transaction). pspReference is the payment id.
//   - Capture mode (capture.go): Adyen's additionalData.manualCapture on
//     /v2/payments or /v2/sessions ("true": manual; "false" or absent:
//     automatic, the whole amount captured by payments.Payment.Authorise in
//     the authorisation's own write). A session's payments take the
//     session's mode; a shopper's payment that names one is a 400.
//   - Answers are built from the payment record alone (Service.response): a
//     waiting payment keeps its stage's paymentData in its Flow, a refused
//     one its refusalReasonCode. So /payments/details sent twice answers the
//     same status and body with or without an Idempotency-Key (a payment
//     already decided, or past the token's stage, answers as it stands), and
//     a copy that loses a race to its twin re-reads and gives the winner's
//     answer.
//   - A payment waiting for 3-D Secure when its session expires is refused
//     (Rejected, refusalReason "3D Not Authenticated", code 11, history
//     "session_expired"), in one transaction with its removal from the
//     session's payments; one whose session was completed or taken over is
//     Cancelled. The session result lists no Pending payment once the session
//     is no longer paymentPending, even before the details call comes.
//   - Stored payment methods are the Pay API's card tokens (shared/domain/vault,
//     tokens.go): one record, one id ("spm_<fingerprint>", a keyed hash of
//     account, shopper, number and expiry: sessiondata.Signer.Fingerprint).
//     storePaymentMethod with a shopperReference saves the card as a token
//     of the customer whose external_ref is the shopperReference, creating
//     the customer when there is none, in the payment's own transaction; a
//     payment waiting for 3-D Secure keeps the token's fields in its Flow
//     and saves it with the write that authorises it. The token keeps brand,
//     last four, expiry, holder name and the sandbox card's outcome profile:
//     never the number or CVC. One card saved twice, even at once, is one
//     token (the same id; the first save put-if-absent, with the token's
//     card_token.created, later saves put-if-exists); two first payments of
//     a new shopper make one customer (the reference's claim is
//     put-if-absent, with customer.created; the loser re-reads and writes
//     again, as one that lost the token's first save does:
//     vault.Vault.Lost). storedPaymentMethodId charges a
//     token of that shopperReference with the shopper present
//     (cards.Processor.AuthoriseStored); legacy stored cards (which kept the test
//     number) still pay, and migrate to tokens in that payment's write. A
//     payment with a shopperReference whose customer exists is that
//     customer's (customer_id, the customer's transactions).
//   - Card fields encrypted in the browser (encrypted.go): each of Adyen's
//     encryptedCardNumber, encryptedExpiryMonth, encryptedExpiryYear and
//     encryptedSecurityCode is a compact JWE (RSA-OAEP-256, A256CBC-HS512)
//     to the platform's card keys, opened with the keyring direct payments
//     use (shared/domain/cse; KMS deployed: one Decrypt per field, the four
//     at once). The setup of a session (/v2/client/.../setup and the hosted
//     page's) offers the current key's public JWK as clientEncryptionKey;
//     the keyring item is read at cold start and at most once a minute
//     after. The functions that open cards (CheckoutPaymentsFunction,
//     CheckoutClientFunction, HostedPageFunction) are named in the card
//     key's policy, as DirectPaymentsFunction is.
//   - Live mode: raw card numbers and test_ card data are refused with a 400
//     (a live key takes the four encrypted fields only); any other live card
//     data gets a 403 (no live acquirer is connected). Test keys also take
//     test_ and the plain value in the encrypted fields, or the card in
//     clear, for the sandbox's scripts.
//   - Payment links (links.go): a session a link's hosted page opens names
//     the link and its customer, carries both to its payments, and takes
//     payments only with the link's hold (Caller.Link), which admits each
//     attempt before the processor and adds the link's change to the
//     authorising payment's transaction; elsewhere its payments are a 409
//     payment_link_session.
//   - CORS (cors.go): the client routes' OPTIONS answer preflights, decided
//     by the session's account's client keys (GetItem + one Query); the
//     calls themselves carry Access-Control-Allow-Origin once their key
//     allowed the origin (httpapi).
package checkout
