package connect_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/providers/adyencheckout"
	"github.com/paygate/paygate/shared/store/boltstore"
)

type built struct {
	cards.Processor
	c connectors.Connector
	k connectors.Keys
}

func TestTheDirectoryFindsAndCachesConnectors(t *testing.T) {
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	box := secretbox.New(filekeys.Memory(), clock)
	var builds atomic.Int32
	dir := connect.NewDirectory(st, box, clock, map[string]connect.Builder{
		connectors.KindAdyen: func(c connectors.Connector, k connectors.Keys) (cards.Processor, error) {
			builds.Add(1)
			return built{c: c, k: k}, nil
		},
	})
	repo := connectors.NewRepo(st, box, clock)
	c, err := repo.Set(ctx, connectors.Connector{Account: "acct_1", Kind: "adyen", Mode: "live", URL: "https://example.test/v71",
		MerchantAccount: "M"}, connectors.Keys{APIKey: "api-1", HMACKey: "AA"})
	require.NoError(t, err)

	id, p, err := dir.CardConnector(ctx, "acct_1", true)
	require.NoError(t, err)
	assert.Equal(t, c.ID, id)
	assert.Equal(t, "api-1", p.(built).k.APIKey, "built with its key opened")
	id, _, err = dir.CardConnector(ctx, "acct_1", false)
	require.NoError(t, err)
	assert.Equal(t, "", id, "no test connector")
	_, _, err = dir.CardConnector(ctx, "acct_1", true)
	require.NoError(t, err)
	_, err = dir.CardConnectorByID(ctx, "acct_1", c.ID)
	require.NoError(t, err)
	assert.Equal(t, int32(1), builds.Load(), "built once, then cached")

	_, err = dir.CardConnectorByID(ctx, "acct_2", c.ID)
	assert.True(t, apierr.Is(err, apierr.NotFound), "another account's connector: %v", err)

	// A new connector reaches the directory once the cache lapses; the old
	// one still serves its payments.
	c2, err := repo.Set(ctx, connectors.Connector{Account: "acct_1", Kind: "adyen", Mode: "live", URL: "https://example.test/v71",
		MerchantAccount: "M"}, connectors.Keys{APIKey: "api-2", HMACKey: "BB"})
	require.NoError(t, err)
	id, _, err = dir.CardConnector(ctx, "acct_1", true)
	require.NoError(t, err)
	assert.Equal(t, c.ID, id, "cached for CacheFor")
	now = now.Add(connect.CacheFor + time.Second)
	id, p, err = dir.CardConnector(ctx, "acct_1", true)
	require.NoError(t, err)
	assert.Equal(t, c2.ID, id)
	assert.Equal(t, "api-2", p.(built).k.APIKey)
	old, err := dir.CardConnectorByID(ctx, "acct_1", c.ID)
	require.NoError(t, err)
	assert.Equal(t, "api-1", old.(built).k.APIKey)
	_, err = dir.CardConnectorByID(ctx, "acct_2", c.ID)
	assert.True(t, apierr.Is(err, apierr.NotFound), "another account's connector, not cached: %v", err)

	// Removed: no connector for the mode once the cache lapses.
	_, err = repo.Remove(ctx, "acct_1", c2.ID)
	require.NoError(t, err)
	now = now.Add(connect.CacheFor + time.Second)
	id, _, err = dir.CardConnector(ctx, "acct_1", true)
	require.NoError(t, err)
	assert.Equal(t, "", id)
	_, err = dir.CardConnectorByID(ctx, "acct_1", c2.ID)
	require.NoError(t, err, "a removed connector still captures and refunds")
}

func TestTheDirectoryBuildsTheAdyenConnector(t *testing.T) {
	ctx := context.Background()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	box := secretbox.New(filekeys.Memory(), nil)
	_, err = connectors.NewRepo(st, box, nil).Set(ctx, connectors.Connector{Account: "acct_1", Kind: "adyen", Mode: "test",
		URL: "http://127.0.0.1:8081/v2", MerchantAccount: "M"}, connectors.Keys{APIKey: "api", HMACKey: "AA"})
	require.NoError(t, err)
	_, p, err := connect.NewDirectory(st, box, nil, nil).CardConnector(ctx, "acct_1", false)
	require.NoError(t, err)
	assert.IsType(t, &adyencheckout.Processor{}, p)
}

func TestForConnectsTheDirectoryWhereSecretsOpen(t *testing.T) {
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	defer st.Close()
	d := app.WithStore(st, nil, nil, nil)
	assert.IsType(t, &connect.Directory{}, connect.For(d).CardConnectors)
	d.Secrets = nil
	assert.Nil(t, connect.For(d).CardConnectors, "no secret box: no connector (live keys refused)")
	own := &connect.Directory{}
	d.Connectors.CardConnectors = own
	assert.Same(t, own, connect.For(d).CardConnectors, "the function's own directory wins")
}
