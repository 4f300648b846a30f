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

// Adyen's storePaymentMethodMode of a session: whether its payments store
// the shopper's card.
const (
	StoreDisabled      = "disabled"      // never
	StoreAskForConsent = "askForConsent" // when the shopper ticks the Drop-in's box (the payment's storePaymentMethod)
	StoreEnabled       = "enabled"       // always
)

var storeModes = []string{StoreDisabled, StoreAskForConsent, StoreEnabled}

// SessionRecurring is what a session keeps of Adyen's recurring fields.
type SessionRecurring struct {
	StoreMode   string `json:"store_mode,omitempty"` // "" when the request named none: the payment's storePaymentMethod decides, as before
	Model       string `json:"model,omitempty"`
	Interaction string `json:"interaction,omitempty"`
}

// sessionRecurring holds Adyen's rules on a session's recurring fields: a
// session is the shopper's (Ecommerce; ContAuth is the merchant's, on
// POST /v2/payments; Moto is not taken), storing needs a shopperReference,
// and storePaymentMethod true is storePaymentMethodMode enabled.
func (in *CreateSessionRequest) sessionRecurring() (SessionRecurring, error) {
	r := SessionRecurring{StoreMode: in.StorePaymentMethodMode, Model: in.RecurringProcessingModel, Interaction: in.ShopperInteraction}
	switch in.ShopperInteraction {
	case "", InteractionEcommerce:
	case InteractionMoto:
		return r, apierr.New(CodeShopperInteractionUnsupported, "shopperInteraction Moto is not taken; a session is Ecommerce")
	case InteractionContAuth:
		return r, apierr.Invalidf("shopperInteraction", "a session is the shopper's (Ecommerce): a ContAuth payment is the merchant's, on POST /v2/payments with a secret key")
	default:
		return r, apierr.Invalidf("shopperInteraction", "shopperInteraction must be one of %v", interactions)
	}
	if r.Model != "" && !slices.Contains(models, r.Model) {
		return r, apierr.Invalidf("recurringProcessingModel", "recurringProcessingModel must be one of %v", models)
	}
	if r.StoreMode != "" && !slices.Contains(storeModes, r.StoreMode) {
		return r, apierr.Invalidf("storePaymentMethodMode", "storePaymentMethodMode must be one of %v", storeModes)
	}
	if in.StorePaymentMethod {
		if r.StoreMode == StoreDisabled || r.StoreMode == StoreAskForConsent {
			return r, apierr.Invalidf("storePaymentMethod", "storePaymentMethod true stores every payment's card: it is storePaymentMethodMode enabled, not %s", r.StoreMode)
		}
		r.StoreMode = StoreEnabled
	}
	if (r.StoreMode == StoreEnabled || r.StoreMode == StoreAskForConsent) && in.ShopperReference == "" {
		return r, apierr.New(apierr.CodeParameterMissing, "storing the shopper's payment method (storePaymentMethodMode %s) needs a shopperReference", r.StoreMode).WithParam("shopperReference")
	}
	return r, nil
}

// applyRecurring gives a session's payment the session's recurring fields:
// its model when the payment names none (another is a 400), and whether the
// card is stored (enabled: always; disabled: never, a payment asking is a
// 400; askForConsent or none: as the payment's storePaymentMethod says).
func (s *Session) applyRecurring(in *PaymentRequest) error {
	r := s.Recurring
	switch {
	case in.RecurringProcessingModel == "":
		in.RecurringProcessingModel = r.Model
	case r.Model != "" && in.RecurringProcessingModel != r.Model:
		return apierr.Invalidf("recurringProcessingModel", "recurringProcessingModel must be the session's (%s)", r.Model)
	}
	if in.ShopperInteraction == "" {
		in.ShopperInteraction = r.Interaction
	}
	switch r.StoreMode {
	case StoreEnabled:
		in.StorePaymentMethod = true
	case StoreDisabled:
		if in.StorePaymentMethod {
			return apierr.Invalidf("storePaymentMethod", "this session stores no payment method (storePaymentMethodMode disabled)")
		}
	}
	return nil
}
