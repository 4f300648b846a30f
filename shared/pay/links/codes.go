package links

import "github.com/paygate/paygate/shared/platform/apierr"

// The codes of payment links. A link that takes no payment answers the code
// of its status, so the hosted page can say why.
var (
	CodePaid = apierr.Register(apierr.CodeInfo{Name: "payment_link_paid", Kind: apierr.Conflict,
		Meaning: "The payment link was paid; it takes no other payment or change."})
	CodeCancelled = apierr.Register(apierr.CodeInfo{Name: "payment_link_cancelled", Kind: apierr.Conflict,
		Meaning: "The payment link was cancelled; it takes no payment or change."})
	CodeExpired = apierr.Register(apierr.CodeInfo{Name: "payment_link_expired", Kind: apierr.Conflict,
		Meaning: "The payment link's expires_at passed; it takes no payment or change."})
	CodeSessionReplaced = apierr.Register(apierr.CodeInfo{Name: "payment_link_session_replaced", Kind: apierr.Conflict,
		Meaning: "The payment link's page opened another checkout session; reload the page to pay with the current one."})
)

// statusCodes is the code of a status that refuses a change.
var statusCodes = map[Status]apierr.Code{StatusPaid: CodePaid, StatusCancelled: CodeCancelled, StatusExpired: CodeExpired}
