// Package walletpay is Apple Pay and Google Pay for the Pay API: merchant
// sessions and payment data requests for the merchant's page, and the decode
// of the tokens the page gets into single-use payment tokens that
// POST /v1/payments/direct pays (shared/pay/direct). It is not the phone wallet
// of shared/pay/wallet.
//
// Decisions:
//
//   - Function: WalletSessionsFunction, not a money path (a decode moves no
//     money; the payment is the DirectPaymentsFunction's). It seals decoded
//     cards to the card keys' public halves (cse.NewSealer) and has no KMS
//     grant: it cannot decrypt what it stored.
//   - Modes: test keys use the test wallets the wiring passes (TestWallets:
//     the sandbox's, shared/sandbox/paytokens, a published Apple Pay root,
//     intermediate and leaf with Apple's certificate markers, a processing
//     key; a Google Pay root signing key and the gateway's recipient key).
//     Live keys use Apple Root CA - G3, Google's published root keys
//     (fetched, cached for their max-age) and the platform's own keys and
//     merchant identity certificate from one SecureString parameter
//     (LiveSecrets, read like checkout's signing keys, every RefreshEvery);
//     without it live wallets answer 403.
//   - Apple Pay sessions: the validation URL must be https on one of
//     Apple's gateway hosts, path /paymentservices/ (applepay.GatewayHosts);
//     anything else is a 400 before anything is sent, in both modes. Live:
//     one POST to it with the merchant identity certificate (mTLS), no
//     redirect followed, 10 s at most; Apple's 4xx is a 400 with Apple's
//     message, anything else a 503. Test mode sends nothing: the test
//     wallets make a session of Apple's shape.
//   - Google Pay sessions: the PaymentDataRequest parts in Google's own
//     names (the page passes them on as they are; names_test.go's
//     foreignNames), tokenized for gateway "paygate" with the account id as
//     gatewayMerchantId, which a decode checks.
//   - Decode: applepay verifies the CMS chain (leaf and intermediate markers,
//     to the mode's root, at the signing time) and a signing time at most
//     applepay.MaxAge (10 minutes) old, then ECDH, the concatenation KDF,
//     AES-256-GCM. googlepay verifies the intermediate key's signature and
//     expiry, the message signature for recipient gateway:paygate, then
//     ECIES-KEM, HKDF-SHA256, HMAC-SHA256, AES-256-CTR, and
//     messageExpiration. A refusal is a 400 (applepay_token_invalid,
//     googlepay_token_invalid) saying which check failed: a merchant can act
//     on it, and it helps no forger (the checks are public-key ones).
//   - Tokens: shared/pay/direct's, keyed by the wallet's own transaction id, so
//     the same Apple Pay transaction (or Google Pay message) decoded again
//     answers the same payment_token_id (200, with used and transaction_id)
//     and pays once. Apple Pay's tokens are sealed to the platform's
//     processing key, not an account's, so a decode also claims its wallet
//     transaction across accounts (wallettokens.ClaimsPK, "wclaim#<type>", SK a
//     hash of the transaction id, put-if-absent in the token's own write):
//     another account decoding the same transaction gets 409
//     wallet_transaction_claimed and no token. (Google Pay's tokens name
//     the account as gatewayMerchantId, checked first.) The decrypted number
//     and cryptogram are never returned, logged or stored in clear.
//   - Idempotency-Key is optional on the decodes (the record joins the
//     token's put); the session routes store nothing (an Apple session is
//     minutes long: a replay of one would be stale).
//   - Test helpers (test keys only): POST /test-helpers/wallet-tokens/applepay
//     and /googlepay make test tokens (TestWallets'), so a merchant without
//     a device, the schemathesis run and docs/direct-payments.md's examples can
//     decode one.
//   - Calls per request: a decode is GetItem (key), GetItem (the keyring, at
//     most once a minute per instance), one TransactWriteItems (the token,
//     its claim, the key's record), and on a repeat a GetItem of the token; sessions are the
//     key's GetItem alone (live Apple: one HTTPS call to Apple). Live mode
//     adds one SSM GetParameter per RefreshEvery per instance.
package walletpay
