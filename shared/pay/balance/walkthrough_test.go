package balance

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/pay/checkout"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// authorise pays with a sandbox card through checkout and returns the
// transaction id: captured at once (checkout's automatic capture), or held
// for capture with manual.
func (e *env) authorise(value int64, ref string, manual bool) string {
	e.T.Helper()
	body := map[string]any{"amount": map[string]any{"value": value, "currency": "EUR"}, "reference": ref,
		"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
			"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030",
			"encryptedSecurityCode": "test_737"}}
	if manual {
		body["additionalData"] = map[string]any{"manualCapture": "true"}
	}
	r := e.post("/v2/payments", body)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	require.Equal(e.T, "Authorised", r.Map(e.T)["resultCode"])
	return r.Map(e.T)["pspReference"].(string)
}

type entryList struct {
	Data       []Entry `json:"data"`
	HasMore    bool    `json:"has_more"`
	NextCursor string  `json:"next_cursor"`
}

// TestWalkThrough is docs/balance.md's walk-through on both stores: a payment
// captured at authorisation (checkout's automatic capture: the books hear of
// it with no code of checkout's own), the balance, a payout card and a
// payout, another payment held for manual capture and split at its capture,
// and its refund.
func TestWalkThrough(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{more: []apitest.Builder{checkout.BuildCheckoutPayments}})
		// 1. A payment captured at authorisation is available at once in the sandbox.
		tx := e.authorise(10000, "order-50", false)
		bal := e.balances()["EUR"]
		assert.Equal(t, CurrencyBalance{Currency: "EUR", Available: 10000}, CurrencyBalance{Currency: bal.Currency, Available: bal.Available, Pending: bal.Pending, Reserved: bal.Reserved})
		var entries entryList
		e.Do("GET", "/v1/balance/entries", nil).JSON(t, &entries)
		require.Len(t, entries.Data, 1, "settled at once: one entry, processor -> available")
		assert.Equal(t, ledger.EntryCapture, entries.Data[0].Type)
		assert.Equal(t, int64(10000), entries.Data[0].Amount)
		assert.Equal(t, ledger.Source{Type: "transaction", ID: tx}, entries.Data[0].Source)

		// 2. A refund right after the capture works: the funds are available.
		require.Equal(t, 200, e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 1000}).Status)

		// 3. Pay out 2000 to a sandbox card.
		po := e.payout(e.card(cardPaid), 2000)
		assert.Equal(t, int64(2000), e.balances()["EUR"].Reserved)
		e.drain()
		assert.Equal(t, "paid", e.getPayout(po)["status"])
		assert.Equal(t, int64(7000), e.balances()["EUR"].Available)

		// 4. Split the next order, held for manual capture: 20% to a
		// marketplace, 1500 to a courier.
		tx2 := e.authorise(10000, "order-51", true)
		r := e.post("/v1/split-requests", map[string]any{"order_reference": "order-51",
			"parts": []any{map[string]any{"reference": "marketplace", "percentage": 20}, map[string]any{"reference": "courier-7", "amount": 1500}}})
		require.Equal(t, 201, r.Status, string(r.Body))
		sid := r.Map(t)["id"].(string)
		require.Equal(t, 200, e.post("/v1/transactions/"+tx2+"/capture", nil).Status)
		s := e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.Equal(t, "applied", s["status"])
		assert.Equal(t, int64(7000+6500), e.balances()["EUR"].Available, "the merchant's share")
		// 5. Refund half: each part gives back half of what it received.
		require.Equal(t, 200, e.post("/v1/transactions/"+tx2+"/refund", map[string]any{"amount": 5000}).Status)
		s = e.Do("GET", "/v1/split-requests/"+sid, nil).Map(t)
		assert.EqualValues(t, 1000, s["parts"].([]any)[0].(map[string]any)["reversed_amount"])
		assert.EqualValues(t, 750, s["parts"].([]any)[1].(map[string]any)["reversed_amount"])
		assert.Equal(t, int64(7000+6500-3250), e.balances()["EUR"].Available)

		e.Do("GET", "/v1/balance/entries?type=split", nil).JSON(t, &entries)
		require.Len(t, entries.Data, 1)
		assert.Equal(t, int64(-3500), entries.Data[0].Amount, "the partners' shares left the merchant's balance")
		e.check()
	})
}

// TestSettlementDelay: with a configured delay a capture's funds stay
// pending, a refund of them is refused (insufficient_balance, nothing
// changed), and the settlement task makes them available once the delay
// passed (not before), after which the refund works; on both stores.
func TestSettlementDelay(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b, options{pol: ledger.Policy{SettlementDelay: 48 * time.Hour}})
		e.Clock.Set(time.Now().UTC())
		tx := e.fund(8000, "EUR")
		bal := e.balances()["EUR"]
		assert.Equal(t, int64(8000), bal.Pending)
		assert.Equal(t, int64(0), bal.Available)
		var entries entryList
		e.Do("GET", "/v1/balance/entries", nil).JSON(t, &entries)
		require.Len(t, entries.Data, 1, "the capture; its settlement comes later")
		assert.Equal(t, e.Clock.Now().Add(48*time.Hour).Truncate(time.Second), entries.Data[0].AvailableOn.Truncate(time.Second))

		r := e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 100})
		require.Equal(t, 400, r.Status, string(r.Body))
		code, param := errOf(t, r)
		assert.Equal(t, "insufficient_balance", code)
		assert.Equal(t, "amount", param)
		assert.EqualValues(t, 0, e.Do("GET", "/v1/transactions/"+tx, nil).Map(t)["refunded_amount"], "nothing refunded")
		assert.Equal(t, int64(8000), e.balances()["EUR"].Pending)

		e.Clock.Advance(47 * time.Hour)
		settled, _, err := e.svc.Settle(context.Background())
		require.NoError(t, err)
		assert.Zero(t, settled, "not due yet")
		assert.Equal(t, int64(8000), e.balances()["EUR"].Pending)

		e.Clock.Advance(time.Hour)
		settled, _, err = e.svc.Settle(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, settled)
		bal = e.balances()["EUR"]
		assert.Equal(t, int64(0), bal.Pending)
		assert.Equal(t, int64(8000), bal.Available)
		settled, _, err = e.svc.Settle(context.Background())
		require.NoError(t, err)
		assert.Zero(t, settled, "settled once")

		r = e.post("/v1/transactions/"+tx+"/refund", map[string]any{"amount": 100})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, int64(7900), e.balances()["EUR"].Available)
		e.check()
	})
}

// TestEntriesList: filters by type, currency and created range, pages with
// the cursor, and refuses bad filters naming them.
func TestEntriesList(t *testing.T) {
	e := newEnv(t, backend{"embedded", embeddedStore, embeddedQueue}, options{})
	start := time.Now().UTC().Add(-time.Second)
	for i := 0; i < 3; i++ {
		e.fund(100, "EUR")
	}
	e.fund(100, "USD")
	var page entryList
	e.Do("GET", "/v1/balance/entries?limit=3", nil).JSON(t, &page)
	require.Len(t, page.Data, 3)
	require.True(t, page.HasMore)
	seen := len(page.Data)
	for page.HasMore {
		r := e.Do("GET", "/v1/balance/entries?limit=3&cursor="+page.NextCursor, nil)
		require.Equal(t, 200, r.Status, string(r.Body))
		page = entryList{}
		r.JSON(t, &page)
		seen += len(page.Data)
	}
	assert.Equal(t, 4, seen, "four captures, each settled at once in its own entry")
	e.Do("GET", "/v1/balance/entries?type=capture&currency=EUR", nil).JSON(t, &page)
	assert.Len(t, page.Data, 3)
	e.Do("GET", "/v1/balance/entries?created_from="+start.Add(time.Hour).Format(time.RFC3339), nil).JSON(t, &page)
	assert.Empty(t, page.Data)
	for q, param := range map[string]string{"type=gift": "type", "currency=eur": "currency", "created_from=yesterday": "created_from", "limit=0": "limit"} {
		r := e.Do("GET", "/v1/balance/entries?"+q, nil)
		require.Equal(t, 400, r.Status, q)
		_, p := errOf(t, r)
		assert.Equal(t, param, p, q)
	}
}
