package idempotency

import "github.com/paygate/paygate/shared/platform/apierr"

// The codes of the Idempotency-Key (the other answers about a key, a replay
// or idempotency_key_reused, are the kinds' own).
var (
	CodeKeyMissing = apierr.Register(apierr.CodeInfo{Name: "idempotency_key_missing", Kind: apierr.Invalid, Param: Header,
		Meaning: "The operation creates something or moves money and needs an Idempotency-Key header."})
	CodeInFlight = apierr.Register(apierr.CodeInfo{Name: "idempotency_in_flight", Kind: apierr.Conflict, Param: Header,
		Meaning: "A request with this Idempotency-Key is still in progress; retry later with the same key."})
	CodeClaimLapsed = apierr.Register(apierr.CodeInfo{Name: "idempotency_claim_lapsed", Kind: apierr.Conflict, Param: Header,
		Meaning: "This request's claim on its Idempotency-Key lapsed and a retry took it over; the retry's answer stands."})
)
