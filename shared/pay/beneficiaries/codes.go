package beneficiaries

import "github.com/paygate/paygate/shared/platform/apierr"

// The beneficiaries' codes.
var (
	CodeBeneficiaryStateConflict = apierr.Register(apierr.CodeInfo{Name: "beneficiary_state_conflict", Kind: apierr.Conflict,
		Meaning: "The beneficiary's status does not allow this change (the message names both statuses)."})
	CodeBeneficiaryDisabled = apierr.Register(apierr.CodeInfo{Name: "beneficiary_disabled", Kind: apierr.Conflict,
		Meaning: "The beneficiary is disabled: enable it before paying it or distributing to it; param names it."})
	CodeDuplicateBeneficiary = apierr.Register(apierr.CodeInfo{Name: "duplicate_beneficiary", Kind: apierr.Invalid,
		Meaning: "A distribution names one beneficiary on two lines; param names the second."})
	CodeRequestIDReused = apierr.Register(apierr.CodeInfo{Name: "request_id_reused", Kind: apierr.IdempotencyMismatch, Param: "request_id",
		Meaning: "The request_id already made a payment order with another beneficiary, amount, purpose code or description."})
)
