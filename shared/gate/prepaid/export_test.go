package prepaid

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// What only the tests read: how a DebitOp failed, and a deposit by its
// external reference.

// IsInsufficient reports whether err is the failure of a DebitOp at index i of
// a Write because the balance was too low (as opposed to a stale version),
// judged from the item the store returned.
func IsInsufficient(err error, i int, amount int64) bool {
	cf, ok := store.IsConditionFailed(err)
	if !ok || cf.Index != i {
		return false
	}
	return cf.Current == nil || cf.Current.N < amount
}

// DepositByRef reads the deposit that claimed ref, NotFound when none did.
func (l *Ledger) DepositByRef(ctx context.Context, accountID, ref string) (*Deposit, error) {
	it, err := l.st.Get(ctx, refKey(accountID, ref))
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, apierr.NotFoundf("no deposit with external_ref %q", ref)
		}
		return nil, apierr.Wrap("ledger.DepositByRef", apierr.Internal, err)
	}
	var d Deposit
	if err := json.Unmarshal(it.Data, &d); err != nil {
		return nil, apierr.Wrap("ledger.DepositByRef", apierr.Internal, err)
	}
	return &d, nil
}
