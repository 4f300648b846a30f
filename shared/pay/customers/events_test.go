package customers

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/pay/transactions"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// event is a record of the account's log.
type event struct {
	eventlog.Record
	item store.Item
}

// events lists the account's events of the given types (every customer and
// card token type when none is given), oldest first, each checked to
// expire eventlog.Retention after it was created.
func (e *env) events(types ...string) []event {
	e.T.Helper()
	if len(types) == 0 {
		types = vault.EventTypes
	}
	var out []event
	q := eventlog.Newest(e.Account.ID, "")
	for {
		page, err := e.Deps.Store.Query(context.Background(), q)
		require.NoError(e.T, err)
		for _, it := range page.Items {
			r, err := eventlog.Decode(it)
			require.NoError(e.T, err)
			if slices.Contains(types, r.Type) {
				require.Equal(e.T, r.Created+int64(eventlog.Retention.Seconds()), it.ExpiresAt.Unix(), "%s expires with the log's retention", r.Type)
				out = append(out, event{Record: r, item: it})
			}
		}
		if q.Cursor = page.Next; q.Cursor == "" {
			break
		}
	}
	slices.Reverse(out)
	return out
}

// typesOf lists the events' types.
func typesOf(evs []event) []string {
	out := []string{}
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

// recorder is a store that keeps every committed write's ops, to show what
// one transaction held; hook, when set, runs before each write.
type recorder struct {
	store.Store
	mu     sync.Mutex
	writes [][]store.Op
	hook   func(ops []store.Op)
}

func (r *recorder) Write(ctx context.Context, ops ...store.Op) error {
	r.mu.Lock()
	hook := r.hook
	r.mu.Unlock()
	if hook != nil {
		hook(ops)
	}
	err := r.Store.Write(ctx, ops...)
	if err == nil {
		r.mu.Lock()
		r.writes = append(r.writes, slices.Clone(ops))
		r.mu.Unlock()
	}
	return err
}

// with is the committed write that put event id, and whether it also wrote
// every key of keys.
func (r *recorder) with(id string, keys ...store.Key) ([]store.Op, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.writes {
		if !slices.ContainsFunc(w, func(op store.Op) bool { return op.Item.Table == store.TableEvents && op.Item.SK == id }) {
			continue
		}
		for _, k := range keys {
			if !slices.ContainsFunc(w, func(op store.Op) bool { return op.Item.Key == k }) {
				return w, false
			}
		}
		return w, true
	}
	return nil, false
}

// recordedEnv is newEnv over a recorder.
func recordedEnv(t *testing.T, b backend) (*env, *recorder) {
	clock := &apitest.Clock{}
	st := b.store(t)
	if st == nil {
		bolt, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock.Now)
		require.NoError(t, err)
		t.Cleanup(func() { bolt.Close() })
		st = bolt
	}
	rec := &recorder{Store: st}
	return &env{Env: apitest.NewWith(t, apitest.Options{Store: rec, Clock: clock}, BuildCustomers,
		checkout.BuildCheckoutPayments, checkout.BuildCheckoutTestHelpers, transactions.BuildTransactions)}, rec
}

// TestCustomerEvents: creating a customer writes one customer.created and
// updating one a customer.updated, each in the transaction of the change
// (with the customer's record), its data the customer as the API answered
// it. A replay, an update that changes nothing and every refused change
// write none.
func TestCustomerEvents(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		key := e.key()
		body := map[string]any{"external_ref": "ev-1", "email": "ana@example.com", "name": "Ana", "metadata": map[string]any{"crm": "C-1"}}
		r := e.Do("POST", "/v1/customers", body, "Idempotency-Key", key)
		require.Equal(t, 201, r.Status, "%s", r.Body)
		id := r.Map(t)["id"].(string)
		evs := e.events()
		require.Equal(t, []string{vault.EventCustomerCreated}, typesOf(evs))
		assert.JSONEq(t, string(r.Body), string(evs[0].Data), "data is the customer as answered")
		assert.False(t, evs[0].Livemode)
		_, together := rec.with(evs[0].ID, vault.CustomerKey(e.Account.ID, id), vault.RefKey(e.Account.ID, "ev-1"))
		assert.True(t, together, "customer.created commits with the customer")

		// Nothing for a replay or a refused creation.
		require.Equal(t, "true", e.Do("POST", "/v1/customers", body, "Idempotency-Key", key).Header.Get("Idempotent-Replayed"))
		require.Equal(t, 409, e.post("/v1/customers", map[string]any{"external_ref": "ev-1"}).Status)
		require.Equal(t, 400, e.post("/v1/customers", map[string]any{"email": "nope"}).Status)
		assert.Len(t, e.events(), 1)

		// An update: one customer.updated, with the record.
		path := "/v1/customers/" + id
		ukey := e.key()
		ubody := map[string]any{"name": "Ana Smith", "metadata": map[string]any{"crm": "", "tier": "gold"}}
		u := e.Do("POST", path, ubody, "Idempotency-Key", ukey)
		require.Equal(t, 200, u.Status, "%s", u.Body)
		evs = e.events()
		require.Equal(t, []string{vault.EventCustomerCreated, vault.EventCustomerUpdated}, typesOf(evs))
		assert.JSONEq(t, string(u.Body), string(evs[1].Data), "data is the customer after the change")
		_, together = rec.with(evs[1].ID, vault.CustomerKey(e.Account.ID, id))
		assert.True(t, together, "customer.updated commits with the customer")

		// Nothing for a replay, an update that changes nothing, or a
		// refused one.
		require.Equal(t, "true", e.Do("POST", path, ubody, "Idempotency-Key", ukey).Header.Get("Idempotent-Replayed"))
		require.Equal(t, 200, e.post(path, map[string]any{"name": "Ana Smith", "metadata": map[string]any{"crm": ""}}).Status)
		require.Equal(t, 200, e.post(path, nil).Status)
		require.Equal(t, 400, e.post(path, map[string]any{"email": "nope"}).Status)
		require.Equal(t, 400, e.post(path, map[string]any{"default_card_token_id": "spm_unknown"}).Status)
		require.Equal(t, 404, e.post("/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42", map[string]any{"name": "x"}).Status)
		assert.Len(t, e.events(), 2)
	})
}

// TestCardTokenEvents: every write creating a card token writes its
// card_token.created (with the token, once, however many payments save the
// card at once; a card saved again writes none), every delete its
// card_token.deleted (on both faces), each in the transaction of the change
// and its data the token as the API shows it, never a card number or CVC.
// A checkout payment that creates the shopper's customer writes its
// customer.created with the payment. Refused deletes write nothing.
func TestCardTokenEvents(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		s := e.saveCard("ev-shopper", "4111111111111111")
		evs := e.events()
		require.Equal(t, []string{vault.EventCustomerCreated, vault.EventTokenCreated}, typesOf(evs))
		assert.JSONEq(t, string(e.customer(s.customer).Body), string(evs[0].Data))
		tokens := e.list("/v1/customers/" + s.customer + "/card-tokens")
		require.Len(t, tokens, 1)
		want, _ := json.Marshal(tokens[0])
		assert.JSONEq(t, string(want), string(evs[1].Data), "data is the token as the API lists it")
		w, together := rec.with(evs[1].ID, vault.TokenKey(e.Account.ID, s.token), payments.Key(e.Account.ID, s.payment),
			vault.CustomerKey(e.Account.ID, s.customer))
		assert.True(t, together, "the token, its customer and their events commit with the payment that saves the card")
		assert.True(t, slices.ContainsFunc(w, func(op store.Op) bool { return op.Item.SK == evs[0].ID }), "customer.created in that write too")

		// Saved again: no event.
		e.saveCard("ev-shopper", "4111111111111111")
		assert.Len(t, e.events(), 2)

		// Many payments saving one new card at once: one token, one event.
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				r := e.post("/v2/payments", payment("ev-race", "ev-shopper", card("5555555555554444")))
				assert.Equal(t, 200, r.Status, "%s", r.Body)
			})
		}
		wg.Wait()
		created := e.events(vault.EventTokenCreated)
		require.Len(t, created, 2, "one card_token.created per token")
		assert.Len(t, e.events(vault.EventCustomerCreated), 1)
		assert.Len(t, e.list("/v1/customers/"+s.customer+"/card-tokens"), 2)

		// Deleted: card_token.deleted, the token as it was, with the delete.
		before := e.list("/v1/customers/" + s.customer + "/card-tokens")
		r := e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		deleted := e.events(vault.EventTokenDeleted)
		require.Len(t, deleted, 1)
		for _, tok := range before {
			if tok["id"] == s.token {
				want, _ := json.Marshal(tok)
				assert.JSONEq(t, string(want), string(deleted[0].Data))
			}
		}
		_, together = rec.with(deleted[0].ID, vault.TokenKey(e.Account.ID, s.token))
		assert.True(t, together, "card_token.deleted commits with the delete")
		assert.Empty(t, e.events(vault.EventCustomerUpdated), "it was not the chosen default: the customer is unchanged")

		// Refused deletes: nothing.
		require.Equal(t, 404, e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil).Status)
		other := e.saveCard("ev-other", "4111111111111111")
		require.Equal(t, 404, e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+other.token, nil).Status)
		assert.Len(t, e.events(vault.EventTokenDeleted), 1)

		// Adyen's face: the same event.
		ma := e.Account.MerchantAccount
		require.Equal(t, 204, e.Do("DELETE", storedPath("ev-other", ma, other.token), nil).Status)
		deleted = e.events(vault.EventTokenDeleted)
		require.Len(t, deleted, 2)
		assert.Equal(t, other.token, decode(t, deleted[1].Data)["id"])

		// Saved again after its delete: a new token, created again.
		e.saveCard("ev-shopper", "4111111111111111")
		created = e.events(vault.EventTokenCreated)
		assert.Equal(t, s.token, decode(t, created[len(created)-1].Data)["id"])

		for _, ev := range e.events() {
			// The CVC as a JSON value: a bare "737" may stand in a random id
			// or a timestamp's nanoseconds.
			for _, secret := range []string{"4111111111111111", "5555555555554444", `"737"`, "number", "cvc"} {
				assert.NotContains(t, string(ev.Data), secret, "%s carries no card number or CVC", ev.Type)
			}
		}
	})
}

// TestLegacyMigrationEvents: the write that turns a shopper's legacy stored
// cards into card tokens (creating its customer) writes customer.created
// and a card_token.created per token, once; deleting a legacy card of a
// shopper with no customer yet (never a card token) writes none.
func TestLegacyMigrationEvents(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.legacy("mig-shopper", "spm_legacyA", "4111111111111111", "1111")
		e.legacy("mig-shopper", "spm_legacyB", "4000000000000341", "0341")
		e.legacy("gone-shopper", "spm_legacyC", "5555555555554444", "4444")
		require.Equal(t, 204, e.Do("DELETE", storedPath("gone-shopper", e.Account.MerchantAccount, "spm_legacyC"), nil).Status)
		assert.Empty(t, e.events())

		r := e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "mig-1",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "mig-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": "spm_legacyA"}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		evs := e.events()
		require.Len(t, evs, 3, "%v", typesOf(evs))
		assert.Equal(t, vault.EventCustomerCreated, evs[0].Type)
		var ids []string
		for _, ev := range evs[1:] {
			assert.Equal(t, vault.EventTokenCreated, ev.Type)
			ids = append(ids, decode(t, ev.Data)["id"].(string))
			assert.NotContains(t, string(ev.Data), "4111111111111111")
		}
		assert.ElementsMatch(t, []string{"spm_legacyA", "spm_legacyB"}, ids, "one event per migrated token")

		// Paying with a migrated token again writes none.
		r = e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "mig-2",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "mig-shopper",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": "spm_legacyB"}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Len(t, e.events(), 3)
	})
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

// TestManyLegacyCardsMigrateWithinOneWrite: a shopper's first payment that
// saves a card and migrates the most legacy cards a write takes
// (vault.MaxLegacyMigrated), each with its card_token.created, stays well
// inside a transaction's limit; a legacy card past that bound migrates,
// with its event, when it pays.
func TestManyLegacyCardsMigrateWithinOneWrite(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		n := vault.MaxLegacyMigrated + 5
		for i := range n {
			e.legacy("many", fmt.Sprintf("spm_legacy%02d", i), "4111111111111111", "1111")
		}
		body := payment("many-1", "many", card("5555555555554444"))
		body["shopperEmail"] = "many@example.com"
		r := e.post("/v2/payments", body)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		largest := 0
		for _, w := range rec.writes {
			largest = max(largest, len(w))
		}
		t.Logf("the migrating write: %d ops", largest)
		assert.LessOrEqual(t, largest, store.MaxTransactOps-15, "room for a session's and a payment link's writes too")
		assert.Len(t, e.events(vault.EventTokenCreated), vault.MaxLegacyMigrated+1, "the migrated cards and the saved one")
		assert.Len(t, e.events(vault.EventCustomerCreated), 1)

		last := fmt.Sprintf("spm_legacy%02d", n-1)
		r = e.post("/v2/payments", map[string]any{"amount": map[string]any{"value": 900, "currency": "EUR"}, "reference": "many-2",
			"returnUrl": "https://shop.example.com/return", "shopperReference": "many",
			"paymentMethod": map[string]any{"type": "scheme", "storedPaymentMethodId": last}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		created := e.events(vault.EventTokenCreated)
		require.Len(t, created, vault.MaxLegacyMigrated+2)
		assert.Equal(t, last, decode(t, created[len(created)-1].Data)["id"])
	})
}
