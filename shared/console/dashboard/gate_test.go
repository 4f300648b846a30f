package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
)

var testCatalog = &catalog.File{
	ProductTypes: catalog.StandardTypes,
	Categories:   []catalog.Category{{ID: 1, Name: "Games", Slug: "games"}},
	Products: []catalog.Product{{ID: 1, Name: "Steam 10", Slug: "steam-10", CategoryID: 1, ProductTypeID: 1,
		TypeCode: catalog.TypeRedeemCard, RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 1000}},
}

// gateOrder deposits 50.00 USD to account and places an order of the
// sandbox catalog's card through the Gate API with key; it returns the id.
func (e *env) gateOrder(account, key, ref string) string {
	e.T.Helper()
	ctx := context.Background()
	require.NoError(e.T, catalog.NewRepo(e.Deps.Store).Load(ctx, account, testCatalog))
	_, _, err := prepaid.New(e.Deps.Store, e.Clock.Now).PostDeposit(ctx, account, prepaid.Deposit{Currency: "USD", Amount: 5000,
		Method: prepaid.MethodManual, ExternalRef: "dep-" + ids.New()[24:]})
	require.NoError(e.T, err)
	r := e.DoKey(key, "POST", "/orders", map[string]any{"product_id": 1, "quantity": 1, "external_ref": ref}, "Idempotency-Key", ids.New())
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	return r.Map(e.T)["id"].(string)
}

func TestGateOrdersBalanceAndWalletPages(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.gateOrder(e.Account.ID, e.Key, "shop-77")
		w := e.Do("POST", "/v1/wallet/authorize", map[string]any{"amount": 150000, "phoneNumber": "+77011234567", "iin": "900101300017",
			"orderReference": "wallet-order-1", "currency": "KZT"}, "Idempotency-Key", ids.New())
		require.Equal(t, 200, w.Status, "%s", w.Body)
		c := e.client()
		c.signIn(e.user("", dashboard.Viewer))

		home := c.get("/dashboard")
		assert.Contains(t, home.Body, id, "recent orders on the home page")
		list := c.get("/dashboard/gate/orders")
		require.Equal(t, 200, list.Status)
		assert.Contains(t, list.Body, id)
		assert.Contains(t, list.Body, "shop-77")
		assert.NotContains(t, c.get("/dashboard/gate/orders?status=failed").Body, id)
		assert.Equal(t, 400, c.get("/dashboard/gate/orders?status=nope").Status)
		detail := c.get("/dashboard/gate/orders/" + id)
		require.Equal(t, 200, detail.Status)
		assert.Contains(t, detail.Body, "10.00 USD")

		bal := c.get("/dashboard/gate/balance")
		require.Equal(t, 200, bal.Status)
		assert.Contains(t, bal.Body, "40.00 USD", "50.00 deposited, 10.00 ordered")
		assert.Contains(t, bal.Body, "50.00 USD")

		wal := c.get("/dashboard/wallet")
		require.Equal(t, 200, wal.Status)
		assert.Contains(t, wal.Body, "wallet-order-1")
		assert.Contains(t, wal.Body, "1,500.00 KZT")
		assert.Contains(t, wal.Body, "4567")
		assert.NotContains(t, wal.Body, "+77011234567", "the phone number is masked")
		assert.Equal(t, 400, c.get("/dashboard/wallet?status=nope").Status)

		// Another account's order is a 404, and not in its lists.
		other := e.otherAccount()
		_, otherKey, err := e.Deps.Keys.Create(context.Background(), other.ID, authSecret())
		require.NoError(t, err)
		rememberSecret(otherKey)
		theirs := e.gateOrder(other.ID, otherKey, "theirs-1")
		assert.Equal(t, 404, c.get("/dashboard/gate/orders/"+theirs).Status)
		assert.False(t, strings.Contains(c.get("/dashboard/gate/orders").Body, theirs))
	})
}
