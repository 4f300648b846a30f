package connectors_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/stores"
)

const (
	apiKey  = "AQE-api-key-of-the-test-0123456789"
	hmacKey = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
)

func adyen(account, mode string) connectors.Connector {
	return connectors.Connector{Account: account, Kind: connectors.KindAdyen, Mode: mode,
		URL: "https://checkout-test.adyen.com/v71/", MerchantAccount: "ShopECOM"}
}

// everyItem is every item of the accounts table's connector partitions.
func everyItem(t *testing.T, st store.Store, pks ...string) []store.Item {
	t.Helper()
	var out []store.Item
	for _, pk := range pks {
		p, err := st.Query(context.Background(), store.Query{Table: store.TableAccounts, PK: pk, Limit: 100})
		require.NoError(t, err)
		out = append(out, p.Items...)
	}
	return out
}

func TestConnectorsAreKeptWithTheirKeysSealed(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		box := secretbox.New(filekeys.Memory(), clock)
		r := connectors.NewRepo(st, box, clock)
		acct := "acct_" + ids.New()

		live := adyen(acct, connectors.ModeLive)
		live.EncryptionKey = `{"kty":"RSA","n":"AQAB","e":"AQAB"}`
		c, err := r.Set(ctx, live, connectors.Keys{APIKey: apiKey, HMACKey: hmacKey})
		require.NoError(t, err)
		assert.True(t, ids.ValidPrefixed("conn", c.ID), c.ID)
		assert.Equal(t, "https://checkout-test.adyen.com/v71", c.URL, "no trailing slash")
		assert.Equal(t, now, c.CreatedAt)

		// Stored: no key in clear, both sealed.
		items := everyItem(t, st, "conns#"+acct, "connid#"+c.ID, "connmode#"+acct)
		require.Len(t, items, 3)
		for _, it := range items {
			assert.NotContains(t, string(it.Data), apiKey)
			assert.NotContains(t, string(it.Data), hmacKey)
		}
		assert.Equal(t, 2, strings.Count(string(items[0].Data), `"`+secretbox.Prefix), "%s", items[0].Data)

		// Found by account and mode, and by id alone.
		got, k, ok, err := r.OpenedFor(ctx, acct, connectors.ModeLive)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, c, got)
		assert.Equal(t, connectors.Keys{APIKey: apiKey, HMACKey: hmacKey}, k)
		_, _, ok, err = r.OpenedFor(ctx, acct, connectors.ModeTest)
		require.NoError(t, err)
		assert.False(t, ok, "no test connector")
		nc, hk, err := r.NotificationKey(ctx, c.ID)
		require.NoError(t, err)
		assert.Equal(t, acct, nc.Account)
		assert.Equal(t, connectors.ModeLive, nc.Mode)
		assert.Equal(t, hmacKey, hk)

		// Another account's id is not found.
		_, _, err = r.Opened(ctx, "acct_other", c.ID)
		assert.True(t, apierr.Is(err, apierr.NotFound), "%v", err)
		_, _, err = r.NotificationKey(ctx, "conn_00000000000000000000000000000000")
		assert.True(t, apierr.Is(err, apierr.NotFound))
		_, _, err = r.NotificationKey(ctx, "../x")
		assert.True(t, apierr.Is(err, apierr.NotFound))

		// Set again: the new one serves the mode, the old one stays findable.
		now = now.Add(time.Hour)
		c2, err := r.Set(ctx, adyen(acct, connectors.ModeLive), connectors.Keys{APIKey: "second-api", HMACKey: "AABB"})
		require.NoError(t, err)
		got, k, ok, err = r.OpenedFor(ctx, acct, connectors.ModeLive)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, c2.ID, got.ID)
		assert.Equal(t, "second-api", k.APIKey)
		old, k, err := r.Opened(ctx, acct, c.ID)
		require.NoError(t, err)
		assert.True(t, old.Removed())
		assert.Equal(t, c2.ID, old.ReplacedBy)
		assert.Equal(t, apiKey, k.APIKey, "the old connector keeps its keys for its payments")

		list, err := r.List(ctx, acct)
		require.NoError(t, err)
		require.Len(t, list, 2)
		assert.Equal(t, c2.ID, list[0].ID, "the current one first")

		// Remove: the mode has no connector, the record stays.
		_, err = r.Remove(ctx, "acct_other", c2.ID)
		assert.True(t, apierr.Is(err, apierr.NotFound), "another account's id")
		removed, err := r.Remove(ctx, acct, c2.ID)
		require.NoError(t, err)
		assert.True(t, removed.Removed())
		_, _, ok, err = r.OpenedFor(ctx, acct, connectors.ModeLive)
		require.NoError(t, err)
		assert.False(t, ok)
		_, _, err = r.NotificationKey(ctx, c2.ID)
		require.NoError(t, err, "a removed connector's notifications are still heard")
		_, err = r.Remove(ctx, acct, c2.ID)
		require.NoError(t, err, "removing twice is a no-op")
		// Removing the replaced one leaves the mode alone.
		c3, err := r.Set(ctx, adyen(acct, connectors.ModeLive), connectors.Keys{APIKey: "third", HMACKey: "CC"})
		require.NoError(t, err)
		_, err = r.Remove(ctx, acct, c.ID)
		require.NoError(t, err)
		got, _, ok, err = r.OpenedFor(ctx, acct, connectors.ModeLive)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, c3.ID, got.ID)
	})
}

func TestConnectorConfigurationIsChecked(t *testing.T) {
	ctx := context.Background()
	st := memStore(t)
	r := connectors.NewRepo(st, secretbox.New(filekeys.Memory(), nil), nil)
	keys := connectors.Keys{APIKey: "a", HMACKey: "b"}
	for name, c := range map[string]struct {
		mut   func(*connectors.Connector)
		keys  connectors.Keys
		param string
	}{
		"kind":          {func(c *connectors.Connector) { c.Kind = "stripe" }, keys, "kind"},
		"mode":          {func(c *connectors.Connector) { c.Mode = "prod" }, keys, "mode"},
		"http":          {func(c *connectors.Connector) { c.URL = "http://checkout-test.adyen.com/v71" }, keys, "url"},
		"no host":       {func(c *connectors.Connector) { c.URL = "https:///v71" }, keys, "url"},
		"credentials":   {func(c *connectors.Connector) { c.URL = "https://u:p@checkout-test.adyen.com/v71" }, keys, "url"},
		"merchant":      {func(c *connectors.Connector) { c.MerchantAccount = " " }, keys, "merchant_account"},
		"api key":       {func(*connectors.Connector) {}, connectors.Keys{HMACKey: "b"}, "api_key"},
		"hmac key":      {func(*connectors.Connector) {}, connectors.Keys{APIKey: "a"}, "hmac_key"},
		"bad jwk":       {func(c *connectors.Connector) { c.EncryptionKey = "not json" }, keys, "encryption_key"},
		"jwk, no kty":   {func(c *connectors.Connector) { c.EncryptionKey = `{"n":"x"}` }, keys, "encryption_key"},
		"no account":    {func(c *connectors.Connector) { c.Account = "" }, keys, "account"},
		"loopback name": {func(c *connectors.Connector) { c.URL = "http://localhost.example.com/v2" }, keys, "url"},
	} {
		in := adyen("acct_1", connectors.ModeTest)
		c.mut(&in)
		_, err := r.Set(ctx, in, c.keys)
		require.Error(t, err, name)
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind, name)
		assert.Equal(t, c.param, e.Param, name)
	}
	for _, u := range []string{"http://127.0.0.1:8081/v2", "http://localhost:8081/v2", "http://[::1]:8081/v2", "https://checkout-test.adyen.com/v71"} {
		in := adyen("acct_1", connectors.ModeTest)
		in.URL = u
		_, err := r.Set(ctx, in, keys)
		assert.NoError(t, err, u)
	}
}

func memStore(t *testing.T) store.Store {
	t.Helper()
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = st.Close() })
	return st
}
