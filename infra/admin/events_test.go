package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// TestEventsBackfillExpiry: records written without an expiry (as order and
// wallet events were) get created + Retention, in every account, across runs
// cut short by --limit; a second run changes nothing.
func TestEventsBackfillExpiry(t *testing.T) {
	dir := t.TempDir()
	var accts []string
	for _, name := range []string{"One", "Two"} {
		a := decode[struct {
			Account struct{ ID string } `json:"account"`
		}](t, embedded(t, dir, "accounts", "create", "--name", name, "--json"))
		require.NotEmpty(t, a.Account.ID)
		accts = append(accts, a.Account.ID)
	}
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	var keys []store.Key
	for _, a := range accts {
		for i := 0; i < 3; i++ {
			op, err := eventlog.Append(eventlog.Event{Type: "order.completed", Account: a, At: time.Now(), Data: map[string]string{"id": "o"}})
			require.NoError(t, err)
			op.Item.ExpiresAt = time.Time{} // as written before the event log set it
			require.NoError(t, st.Write(context.Background(), op))
			keys = append(keys, op.Item.Key)
		}
	}
	require.NoError(t, st.Close())

	type out struct {
		Read, Fixed int
		Account     string `json:"next_account"`
		Cursor      string `json:"next_cursor"`
	}
	first := decode[out](t, embedded(t, dir, "events", "backfill-expiry", "--limit", "2", "--json"))
	assert.Equal(t, 2, first.Read, "bounded by --limit")
	require.NotEmpty(t, first.Cursor, "a run cut short says where to go on")
	rest := decode[out](t, embedded(t, dir, "events", "backfill-expiry", "--account", first.Account, "--cursor", first.Cursor, "--json"))
	all := decode[out](t, embedded(t, dir, "events", "backfill-expiry", "--json"))
	assert.Equal(t, 6, first.Fixed+rest.Fixed+all.Fixed, "every record once")
	again := decode[out](t, embedded(t, dir, "events", "backfill-expiry", "--json"))
	assert.Zero(t, again.Fixed, "idempotent")

	st, err = boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	for _, k := range keys {
		it, err := st.Get(context.Background(), k)
		require.NoError(t, err)
		assert.False(t, it.ExpiresAt.IsZero(), "%s has its expiry", k)
	}
	r := cli(t, nil, "events", "backfill-expiry", "--cursor", "x", "--data-dir", dir)
	assert.Equal(t, 2, r.code, "--cursor without --account is a usage error")
}
