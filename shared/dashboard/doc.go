// Package dashboard is the merchant dashboard: server-rendered pages under
// /dashboard where an account's people sign in and do the everyday work
// (payments and their refunds, payment links, Gate orders and balance,
// wallet transactions, API keys, the API version, webhooks) on the same
// services the API functions serve, never over the HTTP API.
//
// Decisions:
//
//   - Pages are html/template, drawn inside one layout; text is escaped
//     (a payment reference carrying <script> shows as text). The only
//     script is static/dashboard.js (copy buttons), served from
//     /dashboard/static/: every page works without it, and the
//     Content-Security-Policy allows no inline code (CSP), no framing
//     (X-Frame-Options: DENY too) and forms to the dashboard only.
//   - People: users per account (one email is one user), roles owner,
//     developer and viewer. Owners and developers change things; viewers
//     read; owners alone read the audit log. Roles are enforced on the
//     server for every form (web.go, form): a page hides what a role may
//     not do, and the POST is a 403 anyway.
//   - Passwords are argon2id (golang.org/x/crypto; OWASP's 19 MiB, 2
//     passes), as PHC strings. An optional TOTP second factor
//     (github.com/pquerna/otp, RFC 6238, 30 s, one step of skew).
//   - Sessions live in the store: the cookie holds a 256-bit random token,
//     the store its SHA-256 only, with a 12-hour TTL. The cookie is
//     HttpOnly, SameSite=Strict, Path=/dashboard, and Secure except on a
//     loopback host over plain HTTP (make run). Each request re-reads the
//     user, so a role change or sign-out everywhere (the user's generation
//     moves on; older sessions are dead) takes effect at once.
//   - CSRF: every form carries the session's token (sign-in's form, before
//     any session, a double-submit cookie's); a POST without it is a 403
//     before anything else runs.
//   - Sign-in attempts: failures are counted per email and per client
//     address in 15-minute windows (atomic counters with a TTL); past 5
//     per email or 20 per address every attempt is refused (429), the right
//     password too, with the same answer whether or not the email exists.
//     An unknown email costs the same argon2id work as a wrong password.
//   - Money forms (capture, cancel, refund, a new payment link, a webhook
//     endpoint) carry an idempotency key drawn with the page: the service
//     writes it in the change's own transaction (idempotency.Commit), so a
//     double click or a reload moves money once. API key forms claim their
//     key around the keys service (the lease mode).
//   - Every change is written to the account's audit log (who, role, what,
//     which record, when, the client's address), after the change
//     succeeds; a failed audit write is logged and the change stands.
//   - Another account's record is a 404 page, as a missing one: every read
//     goes through the services with the session's account.
//   - Payouts, beneficiaries (with their payment orders and distributions),
//     invoices and disputes (payouts.go, beneficiaries.go, invoices.go,
//     disputes.go) go through their groups' services as the API does, each
//     form under its idempotency key in the service's own transaction (a
//     payout, a transfer, an invoice, a dispute's accept sent twice moves
//     money once). A create or update form the service refuses is drawn
//     again with the service's message beside the field its param names
//     (formstate.go: an IIN's check digit, an IBAN), what was typed kept.
//     Not offered: cancelling a payout (the service hands it to the
//     processor at once; pending -> paid | failed only), saving a payout
//     card (no card number in the dashboard), making payment orders and
//     distributions (the merchant's systems do, through the API), evidence
//     documents (base64 in JSON; the forms are url-encoded).
//
// Key layout:
//
//	accounts table  dashuser#<email> / user          the user, its password hash, TOTP secret, generation
//	                dashusers#<account> / <email>    the account's users
//	                dashaudit#<account> / <uuid v7>  the audit log, time-ordered
//	sessions table  dashsess#<sha-256> / s           a session (TTL)
//	                dashlimit#email#<email> / <window>, dashlimit#addr#<address> / <window>   failed sign-ins (TTL)
//
// DynamoDB calls per request: a page reads the session and the user (2
// GetItem) and the account (1 GetItem) before its own reads; a sign-in
// reads the two counters and the user, and writes the session (or the
// counters); a form adds the service's calls and one audit PutItem.
// The money pages: a list is the service's one Query (a payouts page adds
// the balances' Query and the payout cards' Query; a beneficiary's page its
// GetItem, its balances' Query and its payment orders' Query), a form the
// service's calls (as its API route: the key's GetItem and one
// TransactWriteItems) and the audit PutItem.
package dashboard
