// Package dashboard is the merchant dashboard: server-rendered pages under
// /dashboard where an account's people sign in and do the everyday work
// (payments and their refunds, payment links, Gate orders and balance,
// wallet transactions, API keys, the API version, webhooks) on the same
// services the API functions serve, never over the HTTP API. The same
// function serves the documentation under /docs (routes_docs.go): public
// pages, rendered by the docsite package from docs/*.md and the OpenAPI
// document, with the dashboard's headers (one function fewer to deploy;
// two route keys).
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
//     (github.com/pquerna/otp, RFC 6238, 30 s, one step of skew). A code
//     is accepted once: the last time step used is on the user, written
//     with the session under the user's version (of two sign-ins with one
//     code one wins). Turning it off or replacing its secret needs a
//     current code or the password (Proof), each check reserved against
//     the sign-in limits as a sign-in is.
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
//     An attempt is reserved before its check (a bounded add on both
//     counters in one write, store.Op.Max: past a limit it adds nothing and
//     fails) and given back when it succeeds, so parallel attempts cannot
//     all pass a read of the counters. An unknown email costs the same
//     argon2id work as a wrong password. A known user's failed check is
//     written to its account's audit log (never what was typed), an
//     unknown email's to the log of no account (UnknownEmails, expiring),
//     the same write either way.
//   - Money forms (capture, cancel, refund, a new payment link, a webhook
//     endpoint) carry an idempotency key drawn with the page: the service
//     writes it in the change's own transaction (idempotency.Commit), so a
//     double click or a reload moves money once. API key forms claim their
//     key around the keys service (the lease mode).
//   - Every change is written to the account's audit log (who, role, what,
//     which record, when, the client's address) in the change's own
//     transaction (Audited): the entry rides on the first write the
//     service commits under the request's context (store.WithExtras), so
//     both commit or neither; an entry that cannot be written stops the
//     change (a 500 page, nothing changed), a change that fails leaves no
//     entry. A change that writes nothing to the store (a resend only
//     queues messages) gets its entry alone, right after. A create's entry
//     learns the new record's id after the commit and is given it in a
//     second write (a failure there is logged; the entry stands).
//   - Test and live data: an account has one mode, so a merchant's two are
//     paired accounts (accounts.Pair). A session may switch to its user's
//     account's pair (SwitchAccount; the session record keeps it) when the
//     user holds a role there (SetRole; pairing grants nothing, and
//     without one the switch is a 403), and every page then reads and
//     writes that account only (call.account), with that role
//     (Session.Role); each request checks the role (Lookup) and the
//     pairing (while it reads the account for the header) again. Any other
//     account is a 404. Test data shows a banner.
//   - The security page lists the account's people to its owners and
//     developers; a viewer sees only itself.
//   - Developers: a webhook endpoint's edit, disable/enable and secret roll
//     (the old secret signing for the expiry picked), the event log (type,
//     resource id and date filters, cursor paging, an event's escaped
//     payload and its attempts per endpoint, resend), all through the
//     webhooks service.
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
//     A pending payout is cancelled through balance.CancelPayout (the
//     API's cancel, its race with the payouts sender included), after a
//     confirmation (data-confirm: dashboard.js asks; without the script the
//     form posts at once, as every form does). Payout cards are saved
//     through balance.SaveCard, the API's checks: the number reaches the
//     dashboard in the save form's request only, and is never drawn again
//     (a refused form keeps every field but it), audited (the last four
//     digits are), put in the form's idempotency fingerprint (its last four
//     digits stand for it) or logged. Not offered: making payment orders
//     and distributions (the merchant's systems do, through the API),
//     evidence documents (base64 in JSON; the forms are url-encoded).
//
// Key layout:
//
//	accounts table  dashuser#<email> / user          the user, its password hash, TOTP secret and last step, generation, roles on its account's pair
//	                dashusers#<account> / <email>    the account's users
//	                dashaudit#<account> / <uuid v7>  the audit log, time-ordered (dashaudit#-: unknown emails' failed sign-ins, TTL)
//	sessions table  dashsess#<sha-256> / s           a session (TTL); active: the paired account switched to
//	                dashlimit#email#<email> / <window>, dashlimit#addr#<address> / <window>   failed sign-ins (TTL)
//
// DynamoDB calls per request: a page reads the session and the user (2
// GetItem) and the account (1 GetItem) before its own reads; a sign-in
// reserves on the two counters (one TransactWriteItems), reads the user,
// and writes the session with its audit entry (one TransactWriteItems,
// with the user when a TOTP step is recorded), then gives the reservation
// back (one TransactWriteItems); a failed one writes its audit entry
// instead (one PutItem, for a known email or not); a form adds the
// service's calls, its write carrying the audit entry (a single-item write
// becomes a TransactWriteItems of two), and one UpdateItem more for a
// create's record id. An event's page reads the event, the endpoints and
// each endpoint's newest 100 attempts (1 GetItem, 1 + endpoints Query).
// The money pages: a list is the service's one Query (a payouts page adds
// the balances' Query and the payout cards' Query; a beneficiary's page its
// GetItem, its balances' Query and its payment orders' Query), a form the
// service's calls (as its API route: the key's GetItem and one
// TransactWriteItems, which carries the audit entry).
package dashboard
