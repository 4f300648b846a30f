package customers

import "github.com/paygate/paygate/shared/platform/apierr"

// The customers' codes.
var (
	CodeOffSessionNotAllowed = apierr.Register(apierr.CodeInfo{Name: "off_session_not_allowed", Kind: apierr.Invalid, Param: "off_session",
		Meaning: "The card token's recurring model does not allow a charge without the shopper (off_session)."})
	CodeNoCardToken = apierr.Register(apierr.CodeInfo{Name: "no_card_token", Kind: apierr.Invalid, Param: "customer_id",
		Meaning: "The customer has no saved card to charge: name a card_token_id, or save a card first."})
	CodeCardTokenUnknown = apierr.Register(apierr.CodeInfo{Name: "card_token_unknown", Kind: apierr.Invalid, Param: "default_card_token_id",
		Meaning: "The card token is not one of this customer's (another customer's or account's, deleted, or never saved): it cannot be the customer's default."})
)
