package webhooks_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/webhooks"
	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/gate/orders"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/links"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/openapi"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// writePaymentEvents drives a payment through created -> authorized ->
// charged with the payments package's own writer at the given times: two
// events, payment.authorised then payment.charged.
func writePaymentEvents(t *testing.T, st store.Store, accountID string, at1, at2 time.Time) string {
	t.Helper()
	ctx := context.Background()
	repo := payments.NewRepo(st)
	p := payments.New(payments.Payment{ID: ids.New(), AccountID: accountID, Amount: 1250, Currency: "EUR"}, at1)
	require.NoError(t, p.Transition(payments.Authorized, "", at1))
	require.NoError(t, repo.Save(ctx, p))
	require.NoError(t, p.Transition(payments.Charged, "", at2))
	require.NoError(t, repo.Save(ctx, p))
	return p.ID
}

// writeOrderEvent writes an order.completed event through the event log, as
// the orders package does.
func writeOrderEvent(t *testing.T, st store.Store, accountID string, at time.Time) string {
	t.Helper()
	op, err := eventlog.Append(eventlog.Event{Type: orders.EventCompleted, Account: accountID, At: at,
		Data: orders.Order{ID: ids.New(), Status: orders.StatusCompleted}})
	require.NoError(t, err)
	require.NoError(t, st.Write(context.Background(), op))
	return op.Item.SK
}

type eventList struct {
	Data       []map[string]any `json:"data"`
	HasMore    bool             `json:"has_more"`
	NextCursor string           `json:"next_cursor"`
}

func events(t *testing.T, e *apitest.Env, key, query string) eventList {
	t.Helper()
	r := e.DoKey(key, "GET", "/v1/events?"+query, nil)
	require.Equal(t, 200, r.Status, "%s", r.Body)
	var l eventList
	r.JSON(t, &l)
	return l
}

func types(l eventList) []string {
	var out []string
	for _, d := range l.Data {
		out = append(out, d["type"].(string))
	}
	return out
}

func TestEventsAPI(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		// Payment events expire 30 days after they are created: recent times.
		t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
		payID := writePaymentEvents(t, e.Deps.Store, e.Account.ID, t0, t0.Add(time.Minute))
		orderEvt := writeOrderEvent(t, e.Deps.Store, e.Account.ID, t0.Add(2*time.Minute))

		all := events(t, e, e.Key, "")
		require.Equal(t, []string{"order.completed", "payment.charged", "payment.authorised"}, types(all), "newest first")
		for _, d := range all.Data {
			assert.Regexp(t, `^evt_[0-9a-f]{32}$`, d["id"])
			assert.Equal(t, "event", d["object"])
			assert.Equal(t, e.Account.ID, d["account"])
		}
		assert.Equal(t, orderEvt, all.Data[0]["id"])
		charged := all.Data[1]
		assert.Equal(t, float64(t0.Add(time.Minute).Unix()), charged["created"])
		assert.Equal(t, payID, charged["data"].(map[string]any)["id"])
		assert.Equal(t, "charged", charged["data"].(map[string]any)["status"])

		assert.Equal(t, []string{"payment.authorised"}, types(events(t, e, e.Key, "type=payment.authorised")))
		q := url.Values{"created_from": {t0.Add(30 * time.Second).Format(time.RFC3339)}, "created_to": {t0.Add(time.Minute).Format(time.RFC3339)}}
		assert.Equal(t, []string{"payment.charged"}, types(events(t, e, e.Key, q.Encode())))
		q = url.Values{"created_from": {t0.Format(time.RFC3339)}, "created_to": {t0.Format(time.RFC3339)}}
		assert.Equal(t, []string{"payment.authorised"}, types(events(t, e, e.Key, q.Encode())), "both ends inclusive")

		// Paging: one per page, the cursor bound to the list.
		p1 := events(t, e, e.Key, "limit=1")
		require.True(t, p1.HasMore)
		p2 := events(t, e, e.Key, "limit=1&cursor="+url.QueryEscape(p1.NextCursor))
		assert.Equal(t, []string{"payment.charged"}, types(p2))

		g := e.Do("GET", "/v1/events/"+orderEvt, nil)
		require.Equal(t, 200, g.Status, "%s", g.Body)
		assert.Equal(t, "order.completed", g.Map(t)["type"])
		// Every Service-Version sees the current envelope (deliveries render
		// the endpoint's version, not this API).
		old := e.Do("GET", "/v1/events/"+orderEvt, nil, "Service-Version", "2023-06-01")
		require.Equal(t, 200, old.Status, "%s", old.Body)
		assert.Equal(t, orderEvt, old.Map(t)["id"])
		assert.Equal(t, "order.completed", old.Map(t)["type"])

		// Another account sees none of them.
		_, other := e.NewAccount(accounts.Test)
		assert.Equal(t, 404, e.DoKey(other, "GET", "/v1/events/"+orderEvt, nil).Status)
		assert.Empty(t, events(t, e, other, "").Data)

		for _, c := range []struct {
			query, param string
		}{
			{"type=order.shipped", "type"},
			{"created_from=yesterday", "created_from"},
			{"created_from=2026-03-02T00:00:00Z&created_to=2026-03-01T00:00:00Z", "created_to"},
			{"limit=0", "limit"},
			{"cursor=garbage", "cursor"},
		} {
			r := e.Do("GET", "/v1/events?"+c.query, nil)
			require.Equal(t, 400, r.Status, "%s: %s", c.query, r.Body)
			assert.Equal(t, c.param, r.Err(t)["param"], c.query)
		}
		for _, id := range []string{"evt_0190f3a2b4c47d1e8a0b1c2d3e4f5a6b", "evt_nope", "EVT_0190F3A2B4C47D1E8A0B1C2D3E4F5A6B"} {
			assert.Equal(t, 404, e.Do("GET", "/v1/events/"+id, nil).Status, id)
		}
	})
}

// TestCatalogueIsTheOneList: the event types the writers emit are in the
// catalogue, and the catalogue, the OpenAPI enum and the webhooks guide's
// event-type table (docs/webhooks.md) agree.
func TestCatalogueIsTheOneList(t *testing.T) {
	emitted := []string{orders.EventCompleted, orders.EventFailed}
	emitted = append(emitted, wallet.EventTypes...)
	emitted = append(emitted, payments.EventTypes()...)
	// Checkout sessions and Gate deposits write these (each package's own
	// constants, the ones their writers use).
	emitted = append(emitted, checkout.EventSessionCompleted, checkout.EventSessionExpired, prepaid.EventDepositPosted)
	// Captures apply split requests (payments.SaveOps); payouts write theirs.
	emitted = append(emitted, payments.EventSplitApplied)
	emitted = append(emitted, balance.EventTypes...)
	emitted = append(emitted, disputes.EventTypes...)
	// Settlement payment orders and distributions; bank invoices.
	emitted = append(emitted, beneficiaries.EventTypes...)
	emitted = append(emitted, invoices.EventTypes...)
	emitted = append(emitted, links.EventTypes...)
	// Customers and card tokens (the vault's writes: customers, checkout).
	emitted = append(emitted, vault.EventTypes...)
	for _, typ := range emitted {
		assert.True(t, eventlog.Known(typ), "%s is emitted but not in the catalogue", typ)
	}
	assert.ElementsMatch(t, emitted, eventlog.Types(), "the catalogue lists only what is emitted")

	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.Document(), &doc))
	assert.Equal(t, eventlog.Types(), doc.Components.Schemas["EventType"].Enum)

	guide, err := os.ReadFile("../../../docs/webhooks.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+(?:\\.[a-z_]+)+)` \\|")
	var inGuide []string
	for _, m := range row.FindAllStringSubmatch(string(guide), -1) {
		inGuide = append(inGuide, m[1])
	}
	assert.Equal(t, eventlog.Types(), inGuide, "docs/webhooks.md's event-type table")
	for _, c := range eventlog.Catalogue {
		assert.NotEmpty(t, strings.TrimSpace(c.Description))
	}
}

// TestEventsFilterByObject: Events with ObjectID lists that resource's
// events only (the dashboard's event log filters by it), on both stores.
func TestEventsFilterByObject(t *testing.T) {
	both(t, func(t *testing.T, e *apitest.Env) {
		now := e.Clock.Now()
		p1 := writePaymentEvents(t, e.Deps.Store, e.Account.ID, now.Add(-2*time.Minute), now.Add(-time.Minute))
		p2 := writePaymentEvents(t, e.Deps.Store, e.Account.ID, now.Add(-2*time.Minute), now.Add(-time.Minute))
		svc := webhooks.New(e.Deps.Store, e.Clock.Now)
		ctx := context.Background()
		for _, id := range []string{p1, p2} {
			evs, _, err := svc.Events(ctx, e.Account.ID, webhooks.EventFilter{ObjectID: id}, 10, "")
			require.NoError(t, err)
			require.Len(t, evs, 2, "the payment's authorised and charged events")
			for _, ev := range evs {
				assert.Contains(t, string(ev.Data), id)
			}
		}
		evs, _, err := svc.Events(ctx, e.Account.ID, webhooks.EventFilter{ObjectID: p1, Type: "payment.charged"}, 10, "")
		require.NoError(t, err)
		require.Len(t, evs, 1)
		evs, _, err = svc.Events(ctx, e.Account.ID, webhooks.EventFilter{ObjectID: "no-such-object"}, 10, "")
		require.NoError(t, err)
		assert.Empty(t, evs)
		// Another account's filter finds nothing of this one's.
		other, _ := e.NewAccount(accounts.Test)
		evs, _, err = svc.Events(ctx, other.ID, webhooks.EventFilter{ObjectID: p1}, 10, "")
		require.NoError(t, err)
		assert.Empty(t, evs)
	})
}
