package accounts_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func stores(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("embedded", func(t *testing.T) {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = st.Close() })
		f(t, st)
	})
	t.Run("dynamodb", func(t *testing.T) { f(t, dynamotest.New(t, nil)) })
}

// TestPairOnceUnderRace: live accounts racing to pair with one test
// account: exactly one wins, the others are a Conflict, and the winner and
// the test account name each other.
func TestPairOnceUnderRace(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		repo := accounts.NewRepo(st, nil)
		test, err := repo.Create(ctx, accounts.NewAccount{Name: "Shop sandbox", Mode: accounts.Test})
		require.NoError(t, err)
		const n = 8
		lives := make([]*accounts.Account, n)
		for i := range lives {
			lives[i], err = repo.Create(ctx, accounts.NewAccount{Name: "Shop", Mode: accounts.Live})
			require.NoError(t, err)
		}
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range lives {
			wg.Add(1)
			go func() { defer wg.Done(); _, _, errs[i] = repo.Pair(ctx, lives[i].ID, test.ID) }()
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			if err == nil {
				require.Equal(t, -1, won, "two pairings won")
				won = i
				continue
			}
			assert.Equal(t, apierr.Conflict, apierr.KindOf(err), "%v", err)
		}
		require.NotEqual(t, -1, won)
		got, err := repo.Get(ctx, test.ID)
		require.NoError(t, err)
		assert.Equal(t, lives[won].ID, got.Pair)
		for i, l := range lives {
			a, err := repo.Get(ctx, l.ID)
			require.NoError(t, err)
			if i == won {
				assert.True(t, accounts.Paired(a, got))
			} else {
				assert.Empty(t, a.Pair, "a loser stays unpaired")
			}
		}
		// Modes must be one live and one test; missing accounts are 404s.
		_, _, err = repo.Pair(ctx, test.ID, lives[won].ID)
		assert.Equal(t, apierr.Invalid, apierr.KindOf(err))
		_, _, err = repo.Pair(ctx, "no-such", test.ID)
		assert.Equal(t, apierr.NotFound, apierr.KindOf(err))
	})
}

// TestEachIDVisitsEveryAccount: every account created, concurrently too,
// is in the accounts index once; a create refused (its merchant account
// taken) leaves no entry; EachID stops at its callback's first error.
func TestEachIDVisitsEveryAccount(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		repo := accounts.NewRepo(st, nil)
		const n = 20
		made := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				a, err := repo.Create(ctx, accounts.NewAccount{Name: "Shop", Mode: accounts.Test})
				assert.NoError(t, err)
				made[i] = a.ID
			})
		}
		wg.Wait()
		_, err := repo.Create(ctx, accounts.NewAccount{Name: "Taken", MerchantAccount: "TakenMA", Mode: accounts.Live})
		require.NoError(t, err)
		_, err = repo.Create(ctx, accounts.NewAccount{Name: "Again", MerchantAccount: "TakenMA", Mode: accounts.Live})
		require.True(t, apierr.Is(err, apierr.Conflict))

		seen := map[string]int{}
		require.NoError(t, accounts.EachID(ctx, st, func(id string) error { seen[id]++; return nil }))
		assert.Len(t, seen, n+1, "the refused create left no entry")
		for _, id := range made {
			assert.Equal(t, 1, seen[id], id)
		}
		stop := assert.AnError
		calls := 0
		err = accounts.EachID(ctx, st, func(string) error { calls++; return stop })
		assert.ErrorIs(t, err, stop)
		assert.Equal(t, 1, calls)
	})
}
