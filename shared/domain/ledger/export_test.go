package ledger

import "github.com/paygate/paygate/shared/store"

// Test-only helpers: nothing outside the tests calls these.

// IsGuardFailure reports whether err is a write refused because a balance
// of the books changed since it was read (a guarded add: owed, or available
// taken below zero by another write), so the caller reads again.
func IsGuardFailure(err error, ops []store.Op) bool {
	cf, ok := store.IsConditionFailed(err)
	return ok && cf.Index >= 0 && cf.Index < len(ops) && IsBalanceOp(ops[cf.Index])
}
