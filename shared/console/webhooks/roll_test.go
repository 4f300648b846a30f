package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/console/webhooks/signature"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// handSign is a receiver's own HMAC, independent of package signature.
func handSign(secret string, t int64, body string) string {
	m := hmac.New(sha256.New, []byte(secret))
	fmt.Fprintf(m, "%d.%s", t, body)
	return hex.EncodeToString(m.Sum(nil))
}

// TestRollSecretSignsWithBoth: after a roll, deliveries are signed with the
// new and the old secret (two v1=) until expire_old_after, then with the new
// one only; a receiver that still holds the old secret verifies with its own
// HMAC during the window; a tampered body or an old t fails.
func TestRollSecretSignsWithBoth(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		start := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(start)
		svc := webhooks.New(e.Deps.Store, e.Clock.Now)
		c := create(t, e, e.Key, endpointBody(), 201)
		id, oldSecret := c["id"].(string), c["secret"].(string)

		r := e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 3600})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		newSecret := r.Map(t)["secret"].(string)
		apitest.RememberSecret(newSecret)
		require.NotEqual(t, oldSecret, newSecret)
		assert.NotContains(t, string(e.Do("GET", "/v1/webhook-endpoints/"+id, nil).Body), newSecret)

		ep, err := svc.Get(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(context.Background(), ep) // stored sealed
		require.NoError(t, err)
		now := e.Clock.Now().Add(59 * time.Minute)
		secrets := ep.SigningSecrets(now)
		require.Equal(t, []string{newSecret, oldSecret}, secrets)

		body := `{"id":"evt_1","type":"order.completed","created":1,"data":{}}`
		header := signature.Sign([]byte(body), now, secrets...)
		assert.Equal(t, 2, strings.Count(header, "v1="))
		assert.Equal(t, fmt.Sprintf("t=%d,v1=%s,v1=%s", now.Unix(), handSign(newSecret, now.Unix(), body),
			handSign(oldSecret, now.Unix(), body)), header, "both signatures are the receiver's own HMAC")
		for _, s := range []string{oldSecret, newSecret} {
			assert.NoError(t, signature.Verify([]byte(body), header, now, 0, s))
			assert.ErrorIs(t, signature.Verify([]byte(body+" "), header, now, 0, s), signature.ErrNoMatch, "tampered body")
			assert.ErrorIs(t, signature.Verify([]byte(body), header, now.Add(6*time.Minute), 0, s), signature.ErrTooOld, "old t")
		}

		// Past the window: the new secret alone.
		assert.Equal(t, []string{newSecret}, ep.SigningSecrets(start.Add(time.Hour)))

		// A roll without a body keeps the old secret 24 h.
		r = e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		third := r.Map(t)["secret"].(string)
		apitest.RememberSecret(third)
		ep, err = svc.Get(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		ep, err = svc.Opened(context.Background(), ep)
		require.NoError(t, err)
		assert.Equal(t, start.Add(webhooks.DefaultExpireOld), ep.PrevExpiresAt.UTC())
		assert.Equal(t, []string{third, newSecret}, ep.SigningSecrets(start.Add(23*time.Hour)))
		assert.Equal(t, []string{third}, ep.SigningSecrets(start.Add(24*time.Hour)))

		// expire_old_after 0 stops the old secret at once.
		r = e.Do("POST", "/v1/webhook-endpoints/"+id+"/roll-secret", map[string]any{"expire_old_after": 0})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		apitest.RememberSecret(r.Map(t)["secret"].(string))
		ep, err = svc.Get(context.Background(), e.Account.ID, id)
		require.NoError(t, err)
		assert.Len(t, ep.SigningSecrets(start), 1)
	})
}

func TestSubscribed(t *testing.T) {
	e := webhooks.Endpoint{EnabledEvents: []string{"order.completed"}}
	assert.True(t, e.Subscribed("order.completed"))
	assert.False(t, e.Subscribed("order.failed"))
	e.Disabled = true
	assert.False(t, e.Subscribed("order.completed"), "a disabled endpoint gets nothing")
	all := webhooks.Endpoint{EnabledEvents: []string{webhooks.Wildcard}}
	assert.True(t, all.Subscribed("payment.refunded"))
}

// TestSubscribers: the fan-out list holds enabled endpoints subscribed to
// the type (or "*"), with their secrets, and nothing of another account.
func TestSubscribers(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		svc := webhooks.New(e.Deps.Store, e.Clock.Now)
		orders := create(t, e, e.Key, map[string]any{"url": hookURL, "enabled_events": []any{"order.completed"}}, 201)
		all := create(t, e, e.Key, map[string]any{"url": hookURL, "enabled_events": []any{"*"}}, 201)
		off := create(t, e, e.Key, map[string]any{"url": hookURL, "enabled_events": []any{"*"}}, 201)
		require.Equal(t, 200, e.Do("POST", "/v1/webhook-endpoints/"+off["id"].(string), map[string]any{"disabled": true}).Status)
		_, otherKey := e.NewAccount(accounts.Test)
		create(t, e, otherKey, map[string]any{"url": hookURL, "enabled_events": []any{"*"}}, 201)

		ids := func(typ string) map[string]string {
			subs, err := svc.Subscribers(context.Background(), e.Account.ID, typ)
			require.NoError(t, err)
			out := map[string]string{}
			for _, s := range subs {
				opened, err := svc.Opened(context.Background(), &s) // stored sealed
				require.NoError(t, err)
				out[s.ID] = opened.Secret
			}
			return out
		}
		assert.Equal(t, map[string]string{orders["id"].(string): orders["secret"].(string), all["id"].(string): all["secret"].(string)},
			ids("order.completed"))
		assert.Equal(t, map[string]string{all["id"].(string): all["secret"].(string)}, ids("payment.refunded"))
	})
}
