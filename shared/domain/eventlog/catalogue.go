package eventlog

import "slices"

// TypeInfo is one entry of the catalogue.
type TypeInfo struct {
	Type        string
	Description string
}

// Catalogue is every event type the log holds, the one list the API
// validates enabled_events and type filters against. The OpenAPI enum
// (EventType in paths-webhooks.json) and the docs repeat it; tests hold them
// to it, and prove every type is written through Append with its expiry. A
// group that starts emitting a new type adds it here first.
var Catalogue = []TypeInfo{
	{"order.completed", "A Gate order was fulfilled; data is the order with its order_content."},
	{"order.failed", "A Gate order failed; its charge was refunded to the balance."},
	{"payment.requires_action", "A payment waits for the shopper (3-D Secure or a redirect)."},
	{"payment.authorised", "A payment was authorised: funds are held."},
	{"payment.refused", "A payment was refused by the issuer or the processor's rules."},
	{"payment.failed", "A payment failed technically, or its flow ended without an answer."},
	{"payment.charged", "An authorised payment was captured, in full or in part (each capture)."},
	{"payment.amount_updated", "The authorised amount of a payment held for manual capture was changed (an Adyen amountUpdates); data.amount is the new amount."},
	{"payment.cancelled", "A payment was voided before capture (cancel, or 7 days without capture: reason authorization_expired), or abandoned."},
	{"payment.partially_refunded", "Part of a captured payment was refunded (each partial refund); the refund is its own transaction of type refund."},
	{"payment.refunded", "A captured payment was refunded in full (the last refund); the refund is its own transaction of type refund."},
	{"checkout.session.completed", "A payment was authorised on a checkout session, completing it; data is the session (no sessionData)."},
	{"checkout.session.expired", "A checkout session reached expiresAt without completing (written within about a minute)."},
	{"deposit.posted", "A deposit was posted to a Gate balance; data is the deposit."},
	{"wallet.created", "A wallet transaction was created (NEW); the shopper's wallet will be asked."},
	{"wallet.processing", "The shopper's wallet received the push; waiting for the shopper (PROCESSING)."},
	{"wallet.succeeded", "The shopper confirmed: the amount is held (SUCCESS)."},
	{"wallet.failed", "The shopper declined, had insufficient funds, or did not confirm in time (FAILED)."},
	{"wallet.captured", "A wallet transaction was captured (CAPTURED)."},
	{"wallet.cancelled", "A wallet transaction was cancelled before capture (CANCELLED)."},
	{"wallet.refunded", "Part or all of a captured wallet transaction was refunded (PARTIALLY_REFUNDED or REFUNDED)."},
	{"split_request.applied", "A payment's first capture applied its split request: each part's share moved to its partner; data is the split request."},
	{"payout.created", "A payout was requested: its amount moved from available to reserved (pending); data is the payout."},
	{"payout.paid", "The payout processor paid a payout to its card (paid)."},
	{"payout.failed", "The payout processor refused a payout, or never answered and has no record of it (failed, with failure_reason); the reserved amount is available again."},
	{"payout.cancelled", "The merchant cancelled a pending payout before it was sent to the payout processor (cancelled); the reserved amount is available again."},
	{"dispute.created", "A cardholder disputed a captured payment (needs_response): its amount and the dispute fee are held from the balance until it closes; data is the dispute with its due_by."},
	{"dispute.updated", "Evidence was added to a dispute, or submitted (under_review)."},
	{"dispute.closed", "A dispute was won (the hold released) or lost (the amount back to the cardholder, the fee kept): accepted, not answered by due_by, or decided on review (closed_reason)."},
	{"payment_order.created", "A settlement payment order was created: its amount moved from the beneficiary's balance to its reserve; data is the order (amount, currency, status, merchant_id, beneficiary_id, id)."},
	{"payment_order.paid", "The bank paid a settlement payment order to the beneficiary's account (paid)."},
	{"payment_order.failed", "The bank refused a settlement payment order, or never answered and has no record of it (failed, with failure_reason); the reserve is the beneficiary's balance again."},
	{"distribution.completed", "Every line of a distribution is credited to its beneficiary; data is the distribution with its lines."},
	{"invoice.paid", "The payer paid a bank invoice: its amount is the merchant's (pending, then available as a capture's)."},
	{"invoice.expired", "A bank invoice reached expires_at unpaid (written within about a minute)."},
	{"invoice.cancelled", "The merchant cancelled an unpaid bank invoice."},
	{"payment_link.paid", "A payment link was paid: its payment was authorised (data is the link, with transaction_id), in the payment's own transaction."},
	{"payment_link.cancelled", "A payment link was cancelled by the merchant; it takes no payment."},
	{"payment_link.expired", "A payment link reached expires_at unpaid (written within about a minute)."},
	{"customer.created", "A customer was created: by POST /v1/customers, or by a checkout payment saving a card for a shopperReference that had no customer; data is the customer."},
	{"customer.updated", "A customer was changed by POST /v1/customers/{id} (email, name, description, metadata, default_card_token_id), or the deletion of its default card token cleared default_card_token_id; data is the customer after the change."},
	{"card_token.created", "A card token was created: a checkout payment saved a new card (storePaymentMethod), or a legacy stored card became a token of its shopper's customer; data is the token (never the card number or CVC)."},
	{"card_token.deleted", "A card token was deleted (DELETE /v1/customers/{id}/card-tokens/{token_id}, or Adyen's DELETE /v2/storedPaymentMethods/{id}); data is the token as it was."},
}

// Known reports whether t is in the catalogue.
func Known(t string) bool {
	return slices.ContainsFunc(Catalogue, func(e TypeInfo) bool { return e.Type == t })
}

// Types lists the catalogue's types in order.
func Types() []string {
	out := make([]string, len(Catalogue))
	for i, e := range Catalogue {
		out[i] = e.Type
	}
	return out
}
