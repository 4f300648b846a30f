package app_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/idempotency"
)

// TestFingerprintKeyFromTheEnvironment: outside ENVIRONMENT=local a
// function refuses to start without IDEMPOTENCY_FINGERPRINT_KEY (or with a
// short one); locally the dev key serves; a given key keys Deps.Idem.
func TestFingerprintKeyFromTheEnvironment(t *testing.T) {
	const key = "0123456789abcdef0123456789abcdef-prod"
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, c := range []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"prod without a key", map[string]string{"ENVIRONMENT": "prod"}, false},
		{"dev without a key", map[string]string{"ENVIRONMENT": "dev"}, false},
		{"prod with a short key", map[string]string{"ENVIRONMENT": "prod", app.FingerprintKeyEnv: "short"}, false},
		{"prod with a key", map[string]string{"ENVIRONMENT": "prod", app.FingerprintKeyEnv: key}, true},
		{"local without a key", map[string]string{"ENVIRONMENT": "local"}, true},
		{"no ENVIRONMENT (local) without a key", map[string]string{}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := app.ConfigFromEnv(env(c.env))
			if c.ok {
				require.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), app.FingerprintKeyEnv)
			}
		})
	}

	open := func(kv map[string]string) *app.Deps {
		kv["STORE"], kv["DATA_DIR"] = "embedded", filepath.Join(t.TempDir(), "data")
		cfg, err := app.ConfigFromEnv(env(kv))
		require.NoError(t, err)
		d, err := app.Open(context.Background(), cfg)
		require.NoError(t, err)
		t.Cleanup(func() { _ = d.Close() })
		return d
	}
	body := []byte(`{"number":"4111111111111111"}`)
	dev := idempotency.New(nil, nil).Fingerprint("POST", "/v1/payouts/cards", body)
	assert.Equal(t, dev, open(map[string]string{}).Idem.Fingerprint("POST", "/v1/payouts/cards", body), "locally, the dev key")
	keyed := open(map[string]string{"ENVIRONMENT": "prod", app.FingerprintKeyEnv: key}).Idem.Fingerprint("POST", "/v1/payouts/cards", body)
	assert.NotEqual(t, dev, keyed, "the configured key")
	assert.Equal(t, idempotency.New(nil, nil).WithFingerprintKey([]byte(key)).Fingerprint("POST", "/v1/payouts/cards", body), keyed)
}

// TestSecretBoxIsPickedOnce: on the embedded store the secret box is the
// data directory's key file (a second process over it opens what the first
// sealed); a deployed function that did not ask for the KMS box has none,
// and one that did has the opener's.
func TestSecretBoxIsPickedOnce(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	open := func() *app.Deps {
		cfg, err := app.ConfigFromEnv(func(k string) string { return map[string]string{"STORE": "embedded", "DATA_DIR": dir}[k] })
		require.NoError(t, err)
		d, err := app.Open(ctx, cfg)
		require.NoError(t, err)
		return d
	}
	d := open()
	sealed, err := d.Secrets.Seal(ctx, []byte("whsec_x"))
	require.NoError(t, err)
	require.NoError(t, d.Close())
	d = open()
	defer d.Close()
	got, err := d.Secrets.Open(ctx, sealed)
	require.NoError(t, err)
	assert.Equal(t, "whsec_x", string(got))

	cloud := app.OnCloud(func(context.Context, app.Config) (app.Cloud, error) { return app.Cloud{Store: d.Store}, nil })
	cfg, err := app.ConfigFromEnv(func(k string) string {
		return map[string]string{"ENVIRONMENT": "prod", app.FingerprintKeyEnv: "0123456789abcdef0123456789abcdef"}[k]
	})
	require.NoError(t, err)
	deployed, err := app.Open(ctx, cfg, cloud)
	require.NoError(t, err)
	assert.Nil(t, deployed.Secrets, "a deployed function without WithSecretBox keeps no secrets")
	box := d.Secrets
	deployed, err = app.Open(ctx, cfg, cloud, app.WithSecretBox(func(app.Config) (secretbox.Box, error) { return box, nil }))
	require.NoError(t, err)
	assert.Same(t, box, deployed.Secrets)
}
