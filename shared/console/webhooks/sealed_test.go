package webhooks_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestSigningSecretsAreStoredSealed: an endpoint's signing secret, and the
// one a roll keeps, are stored sealed, never in clear; a record stored in
// clear before sealing still signs with its secret, and its next write
// seals it.
func TestSigningSecretsAreStoredSealed(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		svc := webhooks.New(e.Deps.Store, e.Clock.Now)
		raw := func(id string) (store.Item, map[string]any) {
			it, err := e.Deps.Store.Get(ctx, webhooks.EndpointKey(e.Account.ID, id))
			require.NoError(t, err)
			m := map[string]any{}
			require.NoError(t, json.Unmarshal(it.Data, &m))
			return it, m
		}
		c := create(t, e, e.Key, endpointBody(), 201)
		id, first := c["id"].(string), c["secret"].(string)
		it, m := raw(id)
		assert.True(t, secretbox.IsSealed(m["secret"].(string)), "stored: %s", it.Data)
		assert.NotContains(t, string(it.Data), strings.TrimPrefix(first, webhooks.SecretPrefix))

		r := e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 3600})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		second := r.Map(t)["secret"].(string)
		apitest.RememberSecret(second)
		it, m = raw(id)
		assert.True(t, secretbox.IsSealed(m["secret"].(string)))
		assert.True(t, secretbox.IsSealed(m["prev_secret"].(string)))
		for _, s := range []string{first, second} {
			assert.NotContains(t, string(it.Data), strings.TrimPrefix(s, webhooks.SecretPrefix))
		}
		ep, err := svc.Get(ctx, e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(ctx, ep)
		require.NoError(t, err)
		assert.Equal(t, []string{second, first}, ep.SigningSecrets(e.Clock.Now()))

		// A record of before sealing: its secret in clear.
		const legacy = "whsec_00000000000000000000000000000000000000000000000000000000000000aa"
		apitest.RememberSecret(legacy)
		m["secret"] = legacy
		delete(m, "prev_secret")
		delete(m, "prev_expires_at")
		data, err := json.Marshal(m)
		require.NoError(t, err)
		require.NoError(t, e.Deps.Store.Write(ctx, store.Put(store.Item{Key: it.Key, Data: data}, store.IfVersion(it.Version))))
		ep, err = svc.Get(ctx, e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(ctx, ep)
		require.NoError(t, err)
		assert.Equal(t, []string{legacy}, ep.SigningSecrets(e.Clock.Now()), "a clear record still signs")

		require.Equal(t, 200, e.Do("POST", "/v1/webhook-endpoints/"+id, map[string]any{"description": "touched"}).Status)
		it, m = raw(id)
		assert.True(t, secretbox.IsSealed(m["secret"].(string)), "sealed on its next write: %s", it.Data)
		assert.NotContains(t, string(it.Data), strings.TrimPrefix(legacy, webhooks.SecretPrefix))
		ep, err = svc.Get(ctx, e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(ctx, ep)
		require.NoError(t, err)
		assert.Equal(t, []string{legacy}, ep.SigningSecrets(e.Clock.Now()))
	})
}
