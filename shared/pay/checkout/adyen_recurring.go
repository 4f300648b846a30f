package checkout

import (
	"slices"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Adyen's recurring fields on a payment (shopperInteraction,
// recurringProcessingModel), as its tokenization guide sends them:
//
//   - Ecommerce (the default): the shopper is present; with
//     storePaymentMethod and a shopperReference the card is saved, with
//     storedPaymentMethodId a saved card pays (3-D Secure as the card asks).
//   - ContAuth: a merchant-initiated charge of the shopper's stored payment
//     method (storedPaymentMethodId, required), without the shopper: no 3-D
//     Secure, no redirect; recurringProcessingModel Subscription or
//     UnscheduledCardOnFile (CardOnFile is the shopper's own, on session).
//     The payment is recorded, posted and announced as checkout's others,
//     as POST /v1/payments/recurring's are, with its recurring_type.
//   - Moto (mail and telephone orders) is refused: it needs an acquirer's
//     agreement no connector here has.
//
// The answer carries additionalData.recurring.recurringDetailReference
// (the card token id), recurring.shopperReference and
// recurringProcessingModel when the request named a recurring field and a
// card was saved or charged, as Adyen's does.

// The recurring fields' values.
const (
	InteractionEcommerce = "Ecommerce"
	InteractionContAuth  = "ContAuth"
	InteractionMoto      = "Moto"

	ModelCardOnFile   = "CardOnFile"
	ModelSubscription = "Subscription"
	ModelUnscheduled  = "UnscheduledCardOnFile"
)

var (
	interactions = []string{InteractionEcommerce, InteractionContAuth, InteractionMoto}
	models       = []string{ModelCardOnFile, ModelSubscription, ModelUnscheduled}
)

// CodeShopperInteractionUnsupported refuses a shopper interaction that is
// Adyen's but not taken here.
var CodeShopperInteractionUnsupported = apierr.Register(apierr.CodeInfo{Name: "shopper_interaction_unsupported",
	Kind: apierr.Invalid, Param: "shopperInteraction",
	Meaning: "shopperInteraction Moto (mail and telephone orders) is not taken: use Ecommerce, or ContAuth for a merchant-initiated charge of a stored payment method."})

// checkRecurring holds Adyen's rules on the recurring fields.
func checkRecurring(in *PaymentRequest) error {
	if in.ShopperInteraction != "" && !slices.Contains(interactions, in.ShopperInteraction) {
		return apierr.Invalidf("shopperInteraction", "shopperInteraction must be one of %v", interactions)
	}
	if in.RecurringProcessingModel != "" && !slices.Contains(models, in.RecurringProcessingModel) {
		return apierr.Invalidf("recurringProcessingModel", "recurringProcessingModel must be one of %v", models)
	}
	switch in.ShopperInteraction {
	case InteractionMoto:
		return apierr.New(CodeShopperInteractionUnsupported, "shopperInteraction Moto is not taken; use Ecommerce or ContAuth")
	case InteractionContAuth:
		if in.PaymentMethod == nil || in.PaymentMethod.StoredPaymentMethodID == "" {
			return apierr.Invalidf("paymentMethod.storedPaymentMethodId", "a ContAuth payment charges a stored payment method: send paymentMethod.storedPaymentMethodId")
		}
		if in.RecurringProcessingModel == ModelCardOnFile {
			return apierr.Invalidf("recurringProcessingModel", "a ContAuth payment is Subscription or UnscheduledCardOnFile; CardOnFile is the shopper's own (Ecommerce)")
		}
		if in.StorePaymentMethod {
			return apierr.Invalidf("storePaymentMethod", "a ContAuth payment charges a stored payment method; it stores none")
		}
	}
	return nil
}

// merchantInitiated reports whether the payment runs without the shopper.
func (in *PaymentRequest) merchantInitiated() bool {
	return in.ShopperInteraction == InteractionContAuth
}

// recurringType is the payment's recurring_type (the Pay API's names).
func (in *PaymentRequest) recurringType() string {
	switch {
	case in.RecurringProcessingModel == ModelSubscription:
		return "subscription"
	case in.RecurringProcessingModel == ModelUnscheduled, in.merchantInitiated():
		return "unscheduled"
	case in.RecurringProcessingModel == ModelCardOnFile && in.PaymentMethod != nil && in.PaymentMethod.StoredPaymentMethodID != "":
		return "card_on_file"
	}
	return ""
}

// recurringAnswer is the answer's additionalData.recurring.* (nil when the
// request named no recurring field, or no card was saved or charged).
func recurringAnswer(in *PaymentRequest, shopperRef string, use vaultUse) map[string]string {
	if in.ShopperInteraction == "" && in.RecurringProcessingModel == "" {
		return nil
	}
	id := ""
	switch {
	case use.keep != nil:
		id = use.keep.TokenID
	case use.token != nil && use.token.token != nil:
		id = use.token.token.ID
	default:
		return nil
	}
	out := map[string]string{"recurring.recurringDetailReference": id, "recurring.shopperReference": shopperRef}
	if in.RecurringProcessingModel != "" {
		out["recurringProcessingModel"] = in.RecurringProcessingModel
	}
	return out
}
