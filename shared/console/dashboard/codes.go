package dashboard

import "github.com/paygate/paygate/shared/platform/apierr"

// The dashboard's codes (its pages show the message; the code names the
// case for the logs and the status).
var (
	CodeSignInFailed = apierr.Register(apierr.CodeInfo{Name: "sign_in_failed", Kind: apierr.Unauthenticated,
		Meaning: "The dashboard sign-in's email, password or code is wrong."})
	CodeSignInLocked = apierr.Register(apierr.CodeInfo{Name: "sign_in_locked", Kind: apierr.Forbidden,
		Meaning: "Too many failed sign-ins for the email: wait 15 minutes (the page answers 429)."})
	CodeNoSession = apierr.Register(apierr.CodeInfo{Name: "no_session", Kind: apierr.Unauthenticated,
		Meaning: "The dashboard request carries no live session: sign in."})
	CodeSessionEnded = apierr.Register(apierr.CodeInfo{Name: "session_ended", Kind: apierr.Forbidden,
		Meaning: "A dashboard form was sent after its session ended: sign in again."})
	CodeCSRF = apierr.Register(apierr.CodeInfo{Name: "csrf", Kind: apierr.Forbidden,
		Meaning: "The dashboard form is out of date or did not come from the dashboard: reload the page."})
	CodeRole = apierr.Register(apierr.CodeInfo{Name: "role", Kind: apierr.Forbidden,
		Meaning: "The dashboard user's role may not do this."})
	CodeUserExists = apierr.Register(apierr.CodeInfo{Name: "user_exists", Kind: apierr.Conflict,
		Meaning: "A dashboard user with this email exists."})
)
