package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func (g *gateway) pay(t *testing.T, key, idem string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": idem, "returnUrl": "https://shop.example/return",
		"paymentMethod": map[string]any{"type": "scheme", "encryptedCardNumber": "test_4111111111111111",
			"encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"},
	})
	req, err := http.NewRequest(http.MethodPost, "http://"+g.addr+"/v2/payments", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", idem)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// TestMakeRunPicksUpConnectors: a connector set on make run's data
// directory (as the admin CLI sets it: the key file there seals its keys)
// serves the account's payments of its mode once the gateway starts: the
// sandbox no longer answers them.
func TestMakeRunPicksUpConnectors(t *testing.T) {
	dir := t.TempDir()
	g := start(t, dir, nil, nil)
	account, key := banner(t, g.out.String())
	status, body := g.pay(t, key, "before")
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "Authorised", body["resultCode"], "the sandbox authorises its test card")
	g.stop()

	var hits atomic.Int32
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer provider.Close()
	st, err := boltstore.Open(filepath.Join(dir, "store.db"), nil)
	require.NoError(t, err)
	_, err = connectors.NewRepo(st, secretbox.New(filekeys.New(filekeys.Dir(dir)), nil), nil).Set(context.Background(),
		connectors.Connector{Account: account, Kind: connectors.KindAdyen, Mode: connectors.ModeTest, URL: provider.URL + "/v71",
			MerchantAccount: "ShopECOM"}, connectors.Keys{APIKey: "local-api-key", HMACKey: "AABB"})
	require.NoError(t, err)
	require.NoError(t, st.Close())

	g = start(t, dir, nil, nil)
	status, body = g.pay(t, key, "after")
	require.NotEqual(t, http.StatusOK, status, "the connector, not the sandbox, took the payment: %v", body)
	require.True(t, hits.Load() > 0 || status == http.StatusServiceUnavailable,
		"the connector answered (its provider was called, or the connector answered unavailable): %d %v", status, body)
	require.NotContains(t, g.out.String(), "local-api-key")
}
