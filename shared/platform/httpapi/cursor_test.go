package httpapi_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestCursorsAreBoundToTheirList: on every list route, a cursor pages only
// the list it came from, for the account it came from, under the filters it
// came with (the page size may change). Another list's cursor, another
// account's, or the same list's under other filters is a 400 on cursor, on
// both stores.
func TestCursorsAreBoundToTheirList(t *testing.T) {
	backendsOf(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		b, err := os.ReadFile("../../../infra/democatalog/demo.json")
		require.NoError(t, err)
		f, err := catalog.ParseFile(b)
		require.NoError(t, err)
		other, otherKey := e.NewAccount(accounts.Test)
		for _, acct := range []string{e.Account.ID, other.ID} {
			require.NoError(t, catalog.NewRepo(e.Deps.Store).Load(ctx, acct, f))
		}
		for _, key := range []string{e.Key, otherKey} {
			for i := range 3 {
				r := e.DoKey(key, "POST", "/test-helpers/deposits", map[string]any{"currency_code": "USD", "amount": fmt.Sprintf("%d00.00", i+1)})
				require.Equal(t, 201, r.Status, "%s", r.Body)
			}
			for range 3 {
				r := e.DoKey(key, "POST", "/orders", map[string]any{"product_id": 101}, "Idempotency-Key", uuid.NewString())
				require.Equal(t, 201, r.Status, "%s", r.Body)
			}
		}

		// Each list, with a filter that keeps more than one page of one.
		lists := []struct{ path, otherFilter string }{
			{"/orders?status=pending", "status=failed"},
			{"/deposits?currency=USD", "currency=EUR"},
			{"/products?type=redeem_card", "type=direct_top_up"},
			{"/agent/" + e.Account.ID + "/products?is_active=true", "is_active=false"},
			{"/product-categories", ""}, // lists without filters
			{"/product-types", ""},
		}
		cursors := map[string]string{}
		for _, l := range lists {
			first := e.Do("GET", with(l.path, "limit=1"), nil)
			require.Equal(t, 200, first.Status, "%s: %s", l.path, first.Body)
			c, _ := first.Map(t)["next_cursor"].(string)
			require.NotEmpty(t, c, "%s has a second page", l.path)
			cursors[l.path] = c

			r := e.Do("GET", with(l.path, "limit=1&cursor="+c), nil)
			require.Equal(t, 200, r.Status, "%s: the same list pages on: %s", l.path, r.Body)
			r = e.Do("GET", with(l.path, "limit=50&cursor="+c), nil)
			require.Equal(t, 200, r.Status, "%s: another page size is fine: %s", l.path, r.Body)

			refused := func(why, path, key string) {
				r := e.DoKey(key, "GET", path, nil)
				require.Equal(t, 400, r.Status, "%s: %s: %s", why, path, r.Body)
				assert.Equal(t, "cursor", r.Err(t)["param"], why)
				assert.Contains(t, r.Err(t)["message"], "another list", why)
			}
			refused("another account", with(strings.Replace(l.path, e.Account.ID, other.ID, 1), "cursor="+c), otherKey)
			if l.otherFilter != "" {
				refused("other filters", with(strings.SplitN(l.path, "?", 2)[0], l.otherFilter+"&cursor="+c), e.Key)
				refused("no filter", with(strings.SplitN(l.path, "?", 2)[0], "cursor="+c), e.Key)
			}
		}
		// Every list refuses every other list's cursor.
		for _, l := range lists {
			for _, from := range lists {
				if from.path == l.path {
					continue
				}
				r := e.Do("GET", with(l.path, "cursor="+cursors[from.path]), nil)
				require.Equal(t, 400, r.Status, "%s with the cursor of %s: %s", l.path, from.path, r.Body)
				assert.Equal(t, "cursor", r.Err(t)["param"])
			}
		}
	})
}

func with(path, q string) string {
	if strings.Contains(path, "?") {
		return path + "&" + q
	}
	return path + "?" + q
}
