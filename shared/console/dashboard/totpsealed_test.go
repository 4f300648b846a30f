package dashboard_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestTOTPSecretsAreStoredSealed: a user's TOTP secret is stored sealed,
// never in clear, and still checks codes; a record stored in clear before
// sealing still signs in, and its next write seals it.
func TestTOTPSecretsAreStoredSealed(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		ctx := context.Background()
		email := e.user("", dashboard.Viewer)
		key := store.Key{Table: store.TableAccounts, PK: "dashuser#" + email, SK: "user"}
		stored := func() (store.Item, map[string]any) {
			it, err := e.Deps.Store.Get(ctx, key)
			require.NoError(t, err)
			m := map[string]any{}
			require.NoError(t, json.Unmarshal(it.Data, &m))
			return it, m
		}
		signIn := func(secret string) error {
			e.Clock.Set(e.Clock.Now().Add(30 * time.Second)) // a fresh code each time
			code, err := totp.GenerateCode(secret, e.Clock.Now())
			require.NoError(t, err)
			_, _, err = e.dash.SignIn(ctx, dashboard.SignInInput{Email: email, Password: password, Code: code, Address: "192.0.2.9"})
			return err
		}

		_, secret, err := e.dash.StartTOTP(email)
		require.NoError(t, err)
		apitest.RememberSecret(secret)
		code, err := totp.GenerateCode(secret, e.Clock.Now())
		require.NoError(t, err)
		require.NoError(t, e.dash.ConfirmTOTP(ctx, email, secret, code, dashboard.Proof{}))
		it, m := stored()
		assert.True(t, secretbox.IsSealed(m["totp_secret"].(string)), "stored: %s", it.Data)
		assert.NotContains(t, string(it.Data), secret)
		require.NoError(t, signIn(secret), "the sealed secret checks codes")

		// A write that leaves the secret alone stores it as it was.
		require.NoError(t, e.dash.SetPassword(ctx, email, password))
		_, again := stored()
		assert.Equal(t, m["totp_secret"], again["totp_secret"])

		// A record of before sealing: the secret in clear.
		const legacy = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
		apitest.RememberSecret(legacy)
		it, m = stored()
		m["totp_secret"] = legacy
		data, err := json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, e.Deps.Store.Write(ctx, store.Put(store.Item{Key: key, Data: data}, store.IfVersion(it.Version))))
		require.NoError(t, signIn(legacy), "a clear record still signs in")
		require.NoError(t, e.dash.SetPassword(ctx, email, password))
		it, m = stored()
		assert.True(t, secretbox.IsSealed(m["totp_secret"].(string)), "sealed on its next write: %s", it.Data)
		assert.NotContains(t, string(it.Data), legacy)
		require.NoError(t, signIn(legacy))
	})
}
