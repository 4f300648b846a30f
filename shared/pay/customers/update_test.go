package customers

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/vault"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// createCustomer creates a customer through the API and returns its answer.
func (e *env) createCustomer(body map[string]any) map[string]any {
	e.T.Helper()
	r := e.post("/v1/customers", body)
	require.Equal(e.T, 201, r.Status, "%s", r.Body)
	return r.Map(e.T)
}

// customer GETs a customer.
func (e *env) customer(id string) *apitest.Resp {
	e.T.Helper()
	r := e.Do("GET", "/v1/customers/"+id, nil)
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	return r
}

// TestUpdateCustomer: POST /v1/customers/{id} changes the fields it sends
// and only those ("" removes one), merges metadata (a key set to "" is
// removed, keys not sent stay), moves the e-mail index with the address,
// and answers the customer exactly as GET shows it. Idempotency-Key is
// optional: a retry with the key replays, another body with it is a 422.
// No body, or one that changes nothing, answers the customer as it is.
func TestUpdateCustomer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.createCustomer(map[string]any{"external_ref": "upd-1", "email": "ana@example.com", "name": "Ana",
			"description": "VIP", "metadata": map[string]any{"tier": "gold", "crm": "C-1", "team": "a"}})
		id := c["id"].(string)
		path := "/v1/customers/" + id

		key := e.key()
		body := map[string]any{"email": "Ana.New@Example.com", "name": "Ana Smith",
			"metadata": map[string]any{"tier": "platinum", "crm": "", "region": "eu", "absent": ""}}
		r := e.Do("POST", path, body, "Idempotency-Key", key)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		got := r.Map(t)
		assert.Equal(t, "Ana.New@Example.com", got["email"])
		assert.Equal(t, "Ana Smith", got["name"])
		assert.Equal(t, "VIP", got["description"], "a field not sent stays")
		assert.Equal(t, "upd-1", got["external_ref"])
		assert.Equal(t, c["created_at"], got["created_at"])
		assert.Equal(t, map[string]any{"tier": "platinum", "team": "a", "region": "eu"}, got["metadata"],
			"set, removed with \"\", kept when not named, added")
		assert.JSONEq(t, string(r.Body), string(e.customer(id).Body), "the answer is the customer as GET shows it")

		again := e.Do("POST", path, body, "Idempotency-Key", key)
		assert.Equal(t, 200, again.Status)
		assert.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
		assert.JSONEq(t, string(r.Body), string(again.Body))
		assert.Equal(t, 422, e.Do("POST", path, map[string]any{"name": "Other"}, "Idempotency-Key", key).Status, "the key of another body")

		// The e-mail index follows the address (case-insensitive).
		assert.Equal(t, []string{id}, idsOf(e.list("/v1/customers?email=ana.new@example.com")))
		assert.Empty(t, e.list("/v1/customers?email=ana@example.com"), "the old address no longer finds it")
		assert.Len(t, e.partition(vault.EmailPK(e.Account.ID, "ana@example.com")), 0, "its index entry is gone")

		// "" removes a text field; without a key; the answer still equals GET.
		r = e.Do("POST", path, map[string]any{"email": "", "description": ""})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		_, hasEmail := r.Map(t)["email"]
		_, hasDescription := r.Map(t)["description"]
		assert.False(t, hasEmail)
		assert.False(t, hasDescription)
		assert.Equal(t, "Ana Smith", r.Map(t)["name"])
		assert.Empty(t, e.list("/v1/customers?email=ana.new@example.com"))
		assert.JSONEq(t, string(r.Body), string(e.customer(id).Body))

		// No body, an empty one, or one that changes nothing: the customer as it is.
		before := e.customer(id).Body
		for _, b := range []any{nil, map[string]any{}, map[string]any{"name": "Ana Smith", "metadata": map[string]any{"tier": "platinum", "gone": ""}}} {
			r := e.post(path, b)
			require.Equal(t, 200, r.Status, "%v: %s", b, r.Body)
			assert.JSONEq(t, string(before), string(r.Body))
		}

		// Every key named with "" empties the metadata.
		r = e.post(path, map[string]any{"metadata": map[string]any{"tier": "", "team": "", "region": ""}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, map[string]any{}, r.Map(t)["metadata"])

		// Under 2023-06-01 the answer has no metadata, as GET's.
		old := e.post(path, map[string]any{"name": "Ana S."}, "Service-Version", "2023-06-01")
		require.Equal(t, 200, old.Status, "%s", old.Body)
		assert.NotContains(t, old.Map(t), "metadata")
		assert.Equal(t, "Ana S.", old.Map(t)["name"])
	})
}

// TestUpdateBadInput: each is a 4xx naming the field (404 for a customer
// that is not the account's), and nothing changes: the customer reads the
// same, no event is written, and a retry with the same key runs again.
func TestUpdateBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		s := e.saveCard("bad-upd", "4111111111111111")
		other := e.saveCard("bad-upd-other", "5555555555554444")
		_, otherKey := e.NewAccount(accounts.Test)
		foreign := e.saveCardWith(otherKey, "bad-upd-foreign", "4111111111111111")
		full := map[string]any{}
		for i := range 50 {
			full[fmt.Sprint("k", i)] = "v"
		}
		path := "/v1/customers/" + s.customer
		require.Equal(t, 200, e.post(path, map[string]any{"metadata": full}).Status)
		before := e.customer(s.customer).Body
		events := countEvents(t, e)

		key := e.key()
		for _, c := range []struct {
			name   string
			path   string
			body   any
			status int
			param  string
			code   string
		}{
			{"bad email", path, map[string]any{"email": "not-an-email"}, 400, "email", ""},
			{"display-name email", path, map[string]any{"email": "Ana <ana@example.com>"}, 400, "email", ""},
			{"long email", path, map[string]any{"email": strings.Repeat("a", 250) + "@example.com"}, 400, "email", ""},
			{"long name", path, map[string]any{"name": strings.Repeat("n", 257)}, 400, "name", ""},
			{"long description", path, map[string]any{"description": strings.Repeat("d", 501)}, 400, "description", ""},
			{"name a number", path, map[string]any{"name": 12}, 400, "name", ""},
			{"null", path, map[string]any{"name": nil}, 400, "name", ""},
			{"empty metadata key", path, map[string]any{"metadata": map[string]any{"": "x"}}, 400, "metadata", ""},
			{"long metadata value", path, map[string]any{"metadata": map[string]any{"k0": strings.Repeat("v", 501)}}, 400, "metadata.k0", ""},
			{"51 keys after the merge", path, map[string]any{"metadata": map[string]any{"one-more": "v"}}, 400, "metadata", ""},
			{"external_ref never changes", path, map[string]any{"external_ref": "new-ref"}, 400, "external_ref", "parameter_unknown"},
			{"unknown field", path, map[string]any{"nickname": "x"}, 400, "nickname", "parameter_unknown"},
			{"malformed token", path, map[string]any{"default_card_token_id": "tok_1"}, 400, "default_card_token_id", ""},
			{"unknown token", path, map[string]any{"default_card_token_id": "spm_unknown"}, 400, "default_card_token_id", "card_token_unknown"},
			{"another customer's token", path, map[string]any{"default_card_token_id": other.token}, 400, "default_card_token_id", "card_token_unknown"},
			{"another account's token", path, map[string]any{"default_card_token_id": foreign.token}, 400, "default_card_token_id", "card_token_unknown"},
			{"not a uuid", "/v1/customers/not-a-uuid", map[string]any{"name": "x"}, 400, "id", ""},
			{"missing customer", "/v1/customers/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42", map[string]any{"name": "x"}, 404, "", ""},
			{"another account's customer", "/v1/customers/" + foreign.customer, map[string]any{"name": "x"}, 404, "", ""},
			{"not JSON", path, "name=x", 400, "", ""},
		} {
			r := e.Do("POST", c.path, c.body, "Idempotency-Key", key)
			require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
			if c.param != "" || c.code != "" {
				code, param := errOf(t, r)
				assert.Equal(t, c.param, param, "%s: %s", c.name, r.Body)
				if c.code != "" {
					assert.Equal(t, c.code, code, "%s: %s", c.name, r.Body)
				}
			}
		}
		assert.JSONEq(t, string(before), string(e.customer(s.customer).Body), "nothing changed")
		assert.Equal(t, events, countEvents(t, e), "no event")

		// A removal makes room in the same update; the key was not used up.
		r := e.Do("POST", path, map[string]any{"metadata": map[string]any{"one-more": "v", "k0": ""}}, "Idempotency-Key", key)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Len(t, r.Map(t)["metadata"], 50)
	})
}

// saveCardWith is saveCard with another account's key.
func (e *env) saveCardWith(key, shopper, number string) saved {
	e.T.Helper()
	r := e.DoKey(key, "POST", "/v2/payments", payment("save-"+shopper, shopper, card(number)), "Idempotency-Key", e.key())
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	psp := r.Map(e.T)["pspReference"].(string)
	tx := e.DoKey(key, "GET", "/v1/transactions/"+psp, nil)
	require.Equal(e.T, 200, tx.Status, "%s", tx.Body)
	return saved{payment: psp, customer: tx.Map(e.T)["customer_id"].(string), token: tx.Map(e.T)["card_token_id"].(string)}
}

// TestDefaultCardToken: default_card_token_id names the token a recurring
// payment by customer_id charges in place of the computed default (the card
// saved last), until "" clears it. Only the customer's own token whose card
// has not expired may be chosen. Deleting the chosen token clears the choice
// in the same write. A chosen card that expired later is refused at the
// charge (expired_card naming customer_id), never replaced by another card.
func TestDefaultCardToken(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.Clock.Set(time.Now().UTC())
		first := e.saveCard("def-shopper", "4111111111111111")
		e.Clock.Advance(time.Second)
		second := e.saveCard("def-shopper", "5555555555554444")
		require.Equal(t, first.customer, second.customer)
		path := "/v1/customers/" + first.customer
		charge := func(ref string) *apitest.Resp {
			b := recurring("", ref)
			delete(b, "card_token_id")
			b["customer_id"] = first.customer
			return e.post("/v1/payments/recurring", b)
		}
		charged := func(ref string) string {
			r := charge(ref)
			require.Equal(t, 201, r.Status, "%s", r.Body)
			return r.Map(t)["card_token_id"].(string)
		}
		assert.Equal(t, second.token, charged("def-1"), "none chosen: the card saved last")
		assert.NotContains(t, e.customer(first.customer).Map(t), "default_card_token_id", "none chosen: absent")

		r := e.post(path, map[string]any{"default_card_token_id": first.token})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, first.token, r.Map(t)["default_card_token_id"])
		assert.Equal(t, first.token, e.customer(first.customer).Map(t)["default_card_token_id"])
		assert.Equal(t, first.token, charged("def-2"), "the chosen one")
		e.Clock.Advance(time.Second)
		e.saveCard("def-shopper", "5555555555554444")
		assert.Equal(t, first.token, charged("def-3"), "saving another card again does not move a chosen default")

		r = e.post(path, map[string]any{"default_card_token_id": ""})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.NotContains(t, r.Map(t), "default_card_token_id", "cleared")
		assert.Equal(t, second.token, charged("def-4"), "the computed default again")

		// Deleting the chosen token clears it: GET, the events and the next
		// charge agree.
		require.Equal(t, 200, e.post(path, map[string]any{"default_card_token_id": first.token}).Status)
		require.Equal(t, 200, e.Do("DELETE", path+"/card-tokens/"+first.token, nil).Status)
		got := e.customer(first.customer)
		assert.NotContains(t, got.Map(t), "default_card_token_id")
		updated := e.events(vault.EventCustomerUpdated)
		require.NotEmpty(t, updated)
		assert.JSONEq(t, string(got.Body), string(updated[len(updated)-1].Data), "the delete's customer.updated is the customer after it")
		assert.Equal(t, second.token, charged("def-5"))
		r = e.post(path, map[string]any{"default_card_token_id": first.token})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "card_token_unknown", code, "a deleted token")
		assert.Equal(t, "default_card_token_id", param)

		// A chosen card that expires later: the charge is refused, naming
		// customer_id, and no other card is charged.
		require.Equal(t, 200, e.post(path, map[string]any{"default_card_token_id": second.token}).Status)
		third := e.saveCardExpiring("def-shopper", "4111111111111111", "2031")
		e.Clock.Set(time.Date(2030, 4, 1, 0, 0, 0, 0, time.UTC))
		r = charge("def-6")
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param = errOf(t, r)
		assert.Equal(t, "expired_card", code)
		assert.Equal(t, "customer_id", param)
		assert.Contains(t, r.Err(t)["message"], second.token)
		// An expired card cannot be chosen; a valid one can.
		r = e.post(path, map[string]any{"default_card_token_id": ""})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r = e.post(path, map[string]any{"default_card_token_id": second.token})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param = errOf(t, r)
		assert.Equal(t, "expired_card", code)
		assert.Equal(t, "default_card_token_id", param)
		require.Equal(t, 200, e.post(path, map[string]any{"default_card_token_id": third.token}).Status)
		assert.Equal(t, third.token, charged("def-7"))
	})
}

// saveCardExpiring saves a card expiring in March of year.
func (e *env) saveCardExpiring(shopper, number, year string) saved {
	e.T.Helper()
	c := card(number)
	c["encryptedExpiryYear"] = "test_" + year
	r := e.post("/v2/payments", payment("save-"+shopper, shopper, c))
	require.Equal(e.T, 200, r.Status, "%s", r.Body)
	require.Equal(e.T, "Authorised", r.Map(e.T)["resultCode"], "%s", r.Body)
	tx := e.tx(r.Map(e.T)["pspReference"].(string))
	return saved{payment: tx["id"].(string), customer: tx["customer_id"].(string), token: tx["card_token_id"].(string)}
}

// TestConcurrentUpdatesLoseNothing: many updates of one customer at once,
// each adding its own metadata key, are all applied (each is decided on the
// customer as the others left it); a customer that kept changing through
// every attempt answers 409 resource_busy, and a retry with the same key
// applies it. Each update writes one customer.updated. An update choosing a
// token as the default racing the token's delete never leaves a default
// naming a deleted token.
func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		c := e.createCustomer(map[string]any{"external_ref": "race-upd"})
		id := c["id"].(string)
		path := "/v1/customers/" + id
		before := len(e.events(vault.EventCustomerUpdated))
		const n = 20
		var wg sync.WaitGroup
		busy := make([]int, n)
		for i := range n {
			wg.Go(func() {
				key, body := e.key(), map[string]any{"metadata": map[string]any{fmt.Sprint("k", i): fmt.Sprint("v", i)}}
				for range 20 {
					r := e.Do("POST", path, body, "Idempotency-Key", key)
					if r.Status == 409 {
						assert.Contains(t, string(r.Body), "resource_busy", "a lost race is the codebase's 409: %s", r.Body)
						busy[i]++
						time.Sleep(10 * time.Millisecond)
						continue
					}
					assert.Equal(t, 200, r.Status, "%s", r.Body)
					return
				}
				t.Errorf("update %d kept answering 409", i)
			})
		}
		wg.Wait()
		md := e.customer(id).Map(t)["metadata"].(map[string]any)
		for i := range n {
			assert.Equal(t, fmt.Sprint("v", i), md[fmt.Sprint("k", i)], "update %d was lost", i)
		}
		assert.Len(t, md, n)
		assert.Len(t, e.events(vault.EventCustomerUpdated), before+n, "one customer.updated per update")
		t.Logf("409 answers retried: %v", busy)

		// The default and the token's delete, racing: whichever commits
		// second reads the other's result.
		for round := range 5 {
			s := e.saveCard(fmt.Sprint("race-def-", round), "4111111111111111")
			var set, del *apitest.Resp
			wg.Go(func() { set = e.post("/v1/customers/"+s.customer, map[string]any{"default_card_token_id": s.token}) })
			wg.Go(func() { del = e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil) })
			wg.Wait()
			require.Equal(t, 200, del.Status, "%s", del.Body)
			assert.Contains(t, []int{200, 400}, set.Status, "%s", set.Body)
			assert.NotContains(t, e.customer(s.customer).Map(t), "default_card_token_id", "round %d: no default names the deleted token", round)
		}
	})
}

// TestUpdateReadsAgainAfterALostRace: another update commits between an
// update's read and its write; the write, conditioned on the version read,
// fails, and the update reads the customer again and applies its change to
// the other's: both changes are kept, each with its customer.updated.
func TestUpdateReadsAgainAfterALostRace(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		c := e.createCustomer(map[string]any{"external_ref": "lost-race", "name": "Ana", "metadata": map[string]any{"a": "0"}})
		id := c["id"].(string)
		record := vault.CustomerKey(e.Account.ID, id)
		var fired atomic.Bool
		rec.mu.Lock()
		rec.hook = func(ops []store.Op) {
			writesRecord := slices.ContainsFunc(ops, func(op store.Op) bool { return op.Item.Key == record })
			if writesRecord && fired.CompareAndSwap(false, true) {
				r := e.post("/v1/customers/"+id, map[string]any{"name": "Ana Smith", "metadata": map[string]any{"b": "2"}})
				require.Equal(t, 200, r.Status, "%s", r.Body)
			}
		}
		rec.mu.Unlock()
		r := e.post("/v1/customers/"+id, map[string]any{"description": "VIP", "metadata": map[string]any{"a": "1"}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		require.True(t, fired.Load())
		got := r.Map(t)
		assert.Equal(t, "Ana Smith", got["name"], "the other update's change is kept")
		assert.Equal(t, "VIP", got["description"])
		assert.Equal(t, map[string]any{"a": "1", "b": "2"}, got["metadata"])
		assert.JSONEq(t, string(r.Body), string(e.customer(id).Body))
		updated := e.events(vault.EventCustomerUpdated)
		require.Len(t, updated, 2)
		assert.JSONEq(t, string(r.Body), string(updated[1].Data), "the last event is the customer after both")
	})
}

// TestDefaultAndDeleteInterleaved: an update choosing a token as the
// default and the token's delete, each committing between the other's read
// and write, in both orders. The delete that read the customer before the
// update fails on the customer's version, reads again and clears the new
// default with the token; the update that read the token before the delete
// fails on its check, reads again and is refused (card_token_unknown). No
// default ever names a deleted token.
func TestDefaultAndDeleteInterleaved(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		hookOnce := func(match func(ops []store.Op) bool, f func()) *atomic.Bool {
			var fired atomic.Bool
			rec.mu.Lock()
			rec.hook = func(ops []store.Op) {
				if match(ops) && fired.CompareAndSwap(false, true) {
					f()
				}
			}
			rec.mu.Unlock()
			return &fired
		}
		writes := func(k store.Key) func(ops []store.Op) bool {
			return func(ops []store.Op) bool {
				return slices.ContainsFunc(ops, func(op store.Op) bool { return op.Item.Key == k && op.Kind != store.OpCheck })
			}
		}

		// The update commits inside the delete's read-write window.
		s := e.saveCard("interleave-1", "4111111111111111")
		fired := hookOnce(writes(vault.TokenKey(e.Account.ID, s.token)), func() {
			r := e.post("/v1/customers/"+s.customer, map[string]any{"default_card_token_id": s.token})
			require.Equal(t, 200, r.Status, "%s", r.Body)
		})
		r := e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		require.True(t, fired.Load())
		got := e.customer(s.customer)
		assert.NotContains(t, got.Map(t), "default_card_token_id", "the delete read again and cleared the default")
		updated := e.events(vault.EventCustomerUpdated)
		require.Len(t, updated, 2, "the update's, then the delete's")
		assert.Equal(t, s.token, decode(t, updated[0].Data)["default_card_token_id"])
		assert.JSONEq(t, string(got.Body), string(updated[1].Data))
		assert.Len(t, e.events(vault.EventTokenDeleted), 1)

		// The delete commits inside the update's read-write window.
		s = e.saveCard("interleave-2", "4111111111111111")
		fired = hookOnce(writes(vault.CustomerKey(e.Account.ID, s.customer)), func() {
			r := e.Do("DELETE", "/v1/customers/"+s.customer+"/card-tokens/"+s.token, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
		})
		r = e.post("/v1/customers/"+s.customer, map[string]any{"default_card_token_id": s.token})
		require.True(t, fired.Load())
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, param := errOf(t, r)
		assert.Equal(t, "card_token_unknown", code)
		assert.Equal(t, "default_card_token_id", param)
		assert.NotContains(t, e.customer(s.customer).Map(t), "default_card_token_id")
		assert.Len(t, e.events(vault.EventCustomerUpdated), 2, "the refused update wrote nothing")
		assert.Len(t, e.events(vault.EventTokenDeleted), 2)
	})
}

// TestUpdateThatKeepsLosingIsBusy: a customer changed by another update
// between every read and write of an update answers, after the race's
// attempts, 409 resource_busy with nothing of it applied; a retry with the
// same Idempotency-Key applies it.
func TestUpdateThatKeepsLosingIsBusy(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e, rec := recordedEnv(t, b)
		id := e.createCustomer(map[string]any{"external_ref": "busy"})["id"].(string)
		record := vault.CustomerKey(e.Account.ID, id)
		var inside atomic.Bool
		var others atomic.Int64
		rec.mu.Lock()
		rec.hook = func(ops []store.Op) {
			if !slices.ContainsFunc(ops, func(op store.Op) bool { return op.Item.Key == record }) || !inside.CompareAndSwap(false, true) {
				return
			}
			defer inside.Store(false)
			n := others.Add(1)
			r := e.post("/v1/customers/"+id, map[string]any{"metadata": map[string]any{"other": fmt.Sprint(n)}})
			require.Equal(t, 200, r.Status, "%s", r.Body)
		}
		rec.mu.Unlock()
		key, body := e.key(), map[string]any{"name": "Ana"}
		r := e.Do("POST", "/v1/customers/"+id, body, "Idempotency-Key", key)
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "resource_busy", code)
		assert.NotContains(t, e.customer(id).Map(t), "name", "nothing of it applied")
		assert.Len(t, e.events(vault.EventCustomerUpdated), int(others.Load()), "only the others' events")

		rec.mu.Lock()
		rec.hook = nil
		rec.mu.Unlock()
		r = e.Do("POST", "/v1/customers/"+id, body, "Idempotency-Key", key)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Ana", r.Map(t)["name"])
		assert.Equal(t, fmt.Sprint(others.Load()), r.Map(t)["metadata"].(map[string]any)["other"])
	})
}
