package auth

import "github.com/paygate/paygate/shared/platform/apierr"

// The API keys' codes.
var (
	CodeKeyInactive = apierr.Register(apierr.CodeInfo{Name: "key_inactive", Kind: apierr.Conflict,
		Meaning: "The key is revoked or expired: it cannot be rolled."})
	CodeTooManyKeys = apierr.Register(apierr.CodeInfo{Name: "too_many_keys", Kind: apierr.Conflict,
		Meaning: "The account holds too many active keys for one change to update them all: revoke unused keys first."})
	CodeKeyTaken = apierr.Register(apierr.CodeInfo{Name: "key_taken", Kind: apierr.Conflict,
		Meaning: "The key is registered already (to this account or another)."})
)
