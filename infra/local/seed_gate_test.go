package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// The gate seed runs at every start: the catalog stays the demo one and the
// initial deposit credits once however many restarts there are.
func TestSeedGateIsIdempotent(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), time.Now)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	ctx := context.Background()
	const acct = "0190f3a2-b4c4-7d1e-8a00-0000000000aa"
	for range 3 {
		require.NoError(t, seedGate(ctx, d, acct))
	}
	ps, next, err := catalog.NewRepo(st).Products(ctx, acct, catalog.Filter{}, 100, "")
	require.NoError(t, err)
	require.Len(t, ps, 13)
	require.Empty(t, next)
	b, err := prepaid.New(st, nil).Balance(ctx, acct, "USD")
	require.NoError(t, err)
	require.Equal(t, int64(1000_00), b.Available)
	ds, _, err := prepaid.New(st, nil).Deposits(ctx, acct, prepaid.DepositFilter{}, 10, "")
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, SandboxDepositRef, ds[0].ExternalRef)
}
