package wiring_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/secretbox"
	"github.com/paygate/paygate/shared/domain/secretbox/filekeys"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/connect"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestLiveKeysMeetOneAnswer: with no live connector configured, a live key
// on a money route that reaches an outside system gets one answer, 403
// live_mode_unavailable with one message, whichever system the route calls
// (domain/connectors decides it). The recurring and direct payment routes,
// which need a live card token or encrypted card first, check the same code
// in their own tests.
func TestLiveKeysMeetOneAnswer(t *testing.T) {
	e := apitest.New(t, wiring.HTTP()...)
	_, live := e.NewAccount(accounts.Live)
	idem := 0
	key := func() string { idem++; return "live-" + string(rune('a'+idem)) }
	for _, c := range []struct {
		system, path string
		body         map[string]any
	}{
		{"card processor", "/v2/payments", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
			"reference": "live-1", "returnUrl": "https://shop.example/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "adyenjs_0_1_25$live", "encryptedExpiryMonth": "adyenjs_0_1_25$live",
				"encryptedExpiryYear": "adyenjs_0_1_25$live", "encryptedSecurityCode": "adyenjs_0_1_25$live"}}},
		{"payout processor", "/v1/payouts/cards", map[string]any{"number": "4111111111111111", "expiry_month": 3,
			"expiry_year": 2030, "holder_name": "J. Smith"}},
		{"bank", "/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": "0190a000-0000-7000-8000-000000000001",
			"amount": map[string]any{"value": 100, "currency": "KZT"}, "purpose_code": "119", "description": "May", "request_id": "req-live"}},
		{"phone-wallet provider", "/v1/wallet/authorize", map[string]any{"amount": 1000, "phoneNumber": "+77000000001",
			"iin": "900101300017", "orderReference": "order-1", "currency": "KZT"}},
		{"Google Pay", "/v1/googlepay/sessions", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}}},
	} {
		r := e.DoKey(live, "POST", c.path, c.body, "Idempotency-Key", key())
		require.Equal(t, 403, r.Status, "%s (%s): %s", c.path, c.system, r.Body)
		er := r.Err(t)
		assert.Equal(t, "live_mode_unavailable", er["code"], "%s (%s)", c.path, c.system)
		assert.Equal(t, "live mode is not available for this call: no live connector is configured for the account; use a test key",
			er["message"], "%s: the same body on every route", c.path)
	}
}

// counting is a remote card processor that authorises every wallet token
// and counts the calls that reach it.
type counting struct {
	cards.Processor
	mu    sync.Mutex
	calls map[string]int
}

func (c *counting) count(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls[name]++
}

func (c *counting) n(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[name]
}

func (c *counting) AuthoriseWallet(_ context.Context, ch cards.Charge, _, _ string) (cards.Outcome, error) {
	c.count("authorise:" + ch.Account)
	return cards.Outcome{Result: cards.Authorised, Brand: "visa", Last4: "0004", PSPReference: "PSP" + ch.Reference}, nil
}

func (c *counting) Capture(context.Context, cards.Modification) error {
	c.count("capture")
	return nil
}

func (c *counting) Cancel(context.Context, cards.Modification) error {
	c.count("cancel")
	return nil
}

func (c *counting) Refund(context.Context, cards.Modification) error {
	c.count("refund")
	return nil
}

// TestLiveKeysReachTheirConnector: a live key of an account with a live
// connector (connectors set) pays through it, through the Directory the
// wiring connects; a live key of an account without one gets the one
// live_mode_unavailable, and so does the first account once its connector
// is removed (within the Directory's cache time).
func TestLiveKeysReachTheirConnector(t *testing.T) {
	clock := &apitest.Clock{}
	clock.Set(time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC))
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock.Now)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	remote := &counting{calls: map[string]int{}}
	builds := 0
	box := secretbox.New(filekeys.Memory(), clock.Now) // the box app.WithStore gives the functions
	dir := connect.NewDirectory(st, box, clock.Now, map[string]connect.Builder{
		connectors.KindAdyen: func(c connectors.Connector, k connectors.Keys) (cards.Processor, error) {
			builds++
			require.Equal(t, "live-api-key", k.APIKey)
			return remote, nil
		},
	})
	e := apitest.NewWith(t, apitest.Options{Store: st, Clock: clock, Connectors: connectors.Set{CardConnectors: dir}}, wiring.HTTP()...)
	with, withKey := e.NewAccount(accounts.Live)
	without, withoutKey := e.NewAccount(accounts.Live)
	repo := connectors.NewRepo(st, box, clock.Now)
	conn, err := repo.Set(context.Background(), connectors.Connector{Account: with.ID, Kind: connectors.KindAdyen, Mode: connectors.ModeLive,
		URL: "https://checkout-live.example/v71", MerchantAccount: "ShopECOM"}, connectors.Keys{APIKey: "live-api-key", HMACKey: "AA"})
	require.NoError(t, err)

	n := 0
	pay := func(key string) *apitest.Resp {
		n++
		return e.DoKey(key, "POST", "/v2/payments", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
			"reference": fmt.Sprintf("live-%d", n), "returnUrl": "https://shop.example/return",
			"paymentMethod": map[string]any{"type": "googlepay", "googlePayToken": `{"signature":"opaque"}`}},
			"Idempotency-Key", fmt.Sprintf("live-connector-%d", n))
	}
	r := pay(withKey)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, "Authorised", r.Map(t)["resultCode"], r.Body)
	assert.Equal(t, 1, remote.n("authorise:"+with.ID), "the live key's payment reached the account's connector")
	psp, _ := r.Map(t)["pspReference"].(string)
	require.NotEmpty(t, psp)

	// Its refund goes to the connector that authorised it.
	r = e.DoKey(withKey, "POST", "/v2/payments/"+psp+"/refunds", map[string]any{"amount": map[string]any{"value": 400, "currency": "EUR"},
		"merchantAccount": with.MerchantAccount}, "Idempotency-Key", "live-refund-1")
	require.Equal(t, 201, r.Status, "%s", r.Body)
	assert.Equal(t, 1, remote.n("refund"))

	r = pay(withoutKey)
	require.Equal(t, 403, r.Status, "%s", r.Body)
	assert.Equal(t, "live_mode_unavailable", r.Err(t)["code"])
	assert.Equal(t, 0, remote.n("authorise:"+without.ID), "no connector: nothing reaches one")

	// Removed: the next payments (once the directory's cache lapses) meet
	// the one refusal; the connector was built once.
	_, err = repo.Remove(context.Background(), with.ID, conn.ID)
	require.NoError(t, err)
	clock.Advance(connect.CacheFor + time.Second)
	r = pay(withKey)
	require.Equal(t, 403, r.Status, "%s", r.Body)
	assert.Equal(t, "live_mode_unavailable", r.Err(t)["code"])
	assert.Equal(t, 1, remote.n("authorise:"+with.ID))
	assert.Equal(t, 1, builds)
}
