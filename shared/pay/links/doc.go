// Package links is the Pay API's payment links (spec §1.1, §4.5): a merchant
// creates a link for an amount, sends its url, and the shopper pays it once
// on the hosted payment page, which runs the web Drop-in (shared/pay/dropin) on
// a checkout session of the link.
//
// # Functions
//
//   - PaymentLinksFunction (routes.go): POST /v1/payment-links, GET
//     /v1/payment-links (status, created_from, created_to), GET /{id}, GET
//     /by-order-reference/{order_reference}, POST /{id}/cancel, POST
//     /{id}/expiration, GET /statistics. It moves no money.
//   - HostedPageFunction (routes_page.go, pay.go): GET /pay/{id} (the page), POST
//     /pay/{id}/session and /pay/{id}/sessions/{session_id}/setup,
//     /payments, /payments/details (the Drop-in's calls on the link's
//     session; no key: the url is the capability), GET
//     /dropin/{version}/{file} and GET /sandbox/3ds2/challenge (the
//     Drop-in's files and the sandbox issuer's challenge screen). A money
//     path. Its page encrypts the card in the browser (Drop-in 1.1.0) to the
//     key the setup offers, and it opens the fields with the card keyring
//     (checkout.CardKeyring; KMS Decrypt by the card key's policy).
//   - PaymentLinkExpirerFunction (expire.go): every minute, stores the
//     expiry of active links past expires_at with payment_link.expired.
//
// # Decisions
//
//   - Statuses: active, then paid, cancelled or expired, each final; the
//     moves are one table (link.go, transitions) and one function (move).
//     Expiry is read, not written: a link past expires_at is expired at once
//     everywhere (API, lists, page, payments); the expirer stores it and
//     writes the event within a minute. expires_at defaults to 24 hours and
//     is at most 90 days ahead; POST /expiration moves it (later than now,
//     within 90 days) while the link is active.
//   - Paid at most once. The page's payments go through checkout on the
//     link's current session, with the link read for the request as the
//     caller's checkout.LinkHold: checkout asks it to admit each attempt
//     before the processor (active, and the session is the link's current
//     one) and adds the link's change to the transaction of the payment
//     that succeeds: the link paid, at the version read, with its event,
//     counters and the expiry entry's removal, beside the payment, its
//     events and the session's completion. Of tabs paying at once one
//     transaction commits; the others fail a condition and record nothing
//     (no authorisation is held for them: the sandbox processor answers
//     in-process), and are answered 409 payment_link_paid. A cancel, an
//     expiration update or the expirer racing a payment conditions on the
//     same version, so a link ends once, with one event.
//   - The link's session: every tab shares one (POST /pay/{id}/session
//     answers it while it takes payments, else opens a new one and names it
//     on the link in the same write, so tabs opening at once share the
//     winner's). It expires with the link (at most checkout's 24 hours), its
//     reference is the order reference (else the link id), its returnUrl
//     the page (redirect answers come back to it), its capture mode the
//     link's capture, and it carries the link's id and customer to the
//     payment. Refused three times it ends (checkout's rule) and the page
//     opens another: a refused card always leaves a retry. A link's session
//     takes no payment elsewhere (/v2/client/..., /v2/payments/details: 409
//     payment_link_session), and the page takes only the payment method and
//     the browser from the shopper: no metadata, references or capture mode.
//   - The page (routes_page.go) shows the amount, the description (escaped text)
//     and the merchant's name (read once, when the link is created), in
//     English, Russian or Kazakh (shopper_locale, else Accept-Language),
//     under a strict CSP with no inline code, no referrer, no framing, never
//     cached. Anyone with the url may pay; it shows nothing else of the
//     link.
//   - url: PUBLIC_BASE_URL (a custom domain) when set, else the scheme and
//     host the create request came to, + /pay/<id>; stored with the link.
//   - customer_id names one of the account's customers (shared/domain/vault: one
//     GetItem at creation; a missing or another account's is a 404 naming
//     it); it is stored on the link and set on its payment.
//   - Statistics (stats.go) are counters per UTC day of creation, status,
//     currency and shard, moved by each change in its own transaction, so
//     they are exact; a range is widened to whole days and answered with
//     the range counted.
//
// # Key layout (payments table; keys.go)
//
//   - plink#<id> / link: the link, written conditioned on its version.
//   - plinkacct#<account> / <id>: its copy in the account's list.
//   - plinkref#<account>#<order_reference> / <id>: by order reference.
//   - plinkexp#<shard> / <expires_at>#<account>#<id>: active links by expiry
//     (a dueindex).
//   - plinkstat#<account> / <day>#<status>#<currency>#<shard>#n|a: counters.
//
// # DynamoDB calls (calls_test.go, on DynamoDB Local)
//
// Create: GetItem (key), GetItem (merchant name), one TransactWriteItems;
// with an Idempotency-Key one GetItem more; a replay the two key reads.
// Page: one GetItem. Drop-in files: none. Session: GetItem + one
// TransactWriteItems the first time, two GetItems after. Setup: two
// GetItems. Payment: two GetItems and one TransactWriteItems. Get: the key
// and the link. No Scan anywhere.
package links
