package orders

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStrictIDs: an order id has one spelling (lower-case UUID) and a
// product id filter one spelling (digits, no sign or leading zero): the
// other spellings are 400s naming the parameter, never the same record.
func TestStrictIDs(t *testing.T) {
	e := newEnv(t, envOpts{})
	e.deposit(e.Account.ID, "USD", 5000)
	id := e.order(map[string]any{"product_id": pCard}).Map(t)["id"].(string)
	require.Equal(t, 200, e.Do("GET", "/orders/"+id, nil).Status)

	r := e.Do("GET", "/orders/"+strings.ToUpper(id), nil)
	require.Equal(t, 400, r.Status, "%s", r.Body)
	require.Equal(t, "orderId", r.Err(t)["param"])
	require.Contains(t, r.Err(t)["message"], "lower case")

	list := func(q string) int {
		r := e.Do("GET", "/orders?"+q, nil)
		if r.Status != 200 {
			require.Equal(t, "product_id", r.Err(t)["param"], q)
			return r.Status
		}
		require.Len(t, r.Map(t)["data"], 1, q)
		return r.Status
	}
	require.Equal(t, 200, list("product_id=1"))
	for _, q := range []string{"product_id=%2B1", "product_id=01", "product_id=1.0", "product_id=%201", "product_id=9223372036854775808"} {
		require.Equal(t, 400, list(q), q)
	}
}
