package boltstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/storetest"
)

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T, clock store.Clock) store.Store {
		s, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock)
		require.NoError(t, err)
		return s
	})
}

func TestDurable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	k := store.Key{Table: store.TableLedger, PK: "acct_1", SK: "balance"}
	exp := time.Unix(time.Now().Add(time.Hour).Unix(), 0)
	require.NoError(t, s.Write(ctx, store.Put(store.Item{Key: k, Data: []byte("x"), N: 5, ExpiresAt: exp}, store.IfAbsent)))
	require.NoError(t, s.Write(ctx, store.Add(k, 2, true, store.Always)))
	require.NoError(t, s.Close())

	s, err = boltstore.Open(path, nil)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Get(ctx, k)
	require.NoError(t, err)
	assert.Equal(t, []byte("x"), got.Data)
	assert.Equal(t, int64(7), got.N)
	assert.Equal(t, int64(2), got.Version)
	assert.True(t, exp.Equal(got.ExpiresAt))
}

func TestSecondOpenTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "store.db")
	s, err := boltstore.Open(path, nil)
	require.NoError(t, err)
	defer s.Close()
	start := time.Now()
	_, err = boltstore.Open(path, nil)
	require.Error(t, err, "the file is locked by the first handle")
	assert.Less(t, time.Since(start), 30*time.Second)
}
