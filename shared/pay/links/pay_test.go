package links_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/pay/links"
)

// TestPayOnThePage: the page's session takes the card; the link is paid by
// that payment (transaction_id, payment_link.paid once, in the payment's
// transaction), the transaction carries the link, its customer, its order
// reference and its capture mode, and the link takes no second payment.
func TestPayOnThePage(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		customer := e.customer(e.Account.ID)
		l := e.create(map[string]any{"customer_id": customer})
		id := l["id"].(string)
		s := e.open(id)
		assert.Equal(t, s.ID, e.open(id).ID, "the page's tabs share the link's session")

		setup := e.page("POST", "/pay/"+id+"/sessions/"+s.ID+"/setup", map[string]any{"sessionData": s.SessionData})
		require.Equal(t, 200, setup.Status, "%s", setup.Body)
		assert.Equal(t, map[string]any{"value": 1000.0, "currency": "EUR"}, setup.Map(t)["amount"])

		r := e.pay(id, s, "4111111111111111")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		res := r.Map(t)
		assert.Equal(t, "Authorised", res["resultCode"])
		psp := res["pspReference"].(string)

		got := e.get(id)
		assert.Equal(t, "paid", got["status"])
		assert.Equal(t, psp, got["transaction_id"])
		assert.NotEmpty(t, got["paid_at"])
		assert.Equal(t, 1, count(e.events(e.Account.ID, id), links.EventPaid))

		tx := e.Do("GET", "/v1/transactions/by-payment-link/"+id, nil)
		require.Equal(t, 200, tx.Status, "%s", tx.Body)
		txm := tx.Map(t)
		assert.Equal(t, psp, txm["id"])
		assert.Equal(t, "charged", txm["status"], "captured with the authorisation (automatic)")
		assert.Equal(t, id, txm["payment_link_id"])
		assert.Equal(t, customer, txm["customer_id"])
		assert.Equal(t, "order-42", txm["merchant_reference"])
		assert.Equal(t, "automatic", txm["capture_mode"])
		// Captured with the authorisation, it is on the merchant's books.
		entries := e.Do("GET", "/v1/balance/entries?type=capture", nil).Map(t)["data"].([]any)
		require.Len(t, entries, 1)
		entry := entries[0].(map[string]any)
		assert.Equal(t, 1000.0, entry["amount"])
		assert.Equal(t, psp, entry["source"].(map[string]any)["id"])

		// A second payment, in this tab or a new one: refused before any
		// attempt, nothing recorded.
		r = e.pay(id, s, "5555555555554444")
		require.Equal(t, 409, r.Status, "%s", r.Body)
		code, _ := errCode(t, r)
		assert.Equal(t, "payment_link_paid", code)
		r = e.page("POST", "/pay/"+id+"/session", nil)
		require.Equal(t, 409, r.Status)
		code, _ = errCode(t, r)
		assert.Equal(t, "payment_link_paid", code)
		assert.Len(t, e.linkPayments(e.Account.ID, id), 1)
		page := e.page("GET", "/pay/"+id, nil)
		assert.Contains(t, string(page.Body), "Already paid")
	})
}

// TestManualCaptureLink: a link with capture manual leaves its payment
// authorised for the merchant to capture.
func TestManualCaptureLink(t *testing.T) {
	e := newEnv(t, embedded)
	id := e.create(map[string]any{"capture": "manual"})["id"].(string)
	r := e.pay(id, e.open(id), "4111111111111111")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	tx := e.Do("GET", "/v1/transactions/by-payment-link/"+id, nil).Map(t)
	assert.Equal(t, "authorized", tx["status"])
	assert.Equal(t, "manual", tx["capture_mode"])
	assert.Equal(t, 1000.0, tx["capturable_amount"])
}

// TestRefusedThenPaid: a refused card leaves the link active for a retry;
// three refusals end the session and the page opens a new one; a good card
// then pays the link.
func TestRefusedThenPaid(t *testing.T) {
	e := newEnv(t, embedded)
	id := e.create(nil)["id"].(string)
	s := e.open(id)
	for i := 0; i < 3; i++ {
		r := e.pay(id, s, "4000000000000010")
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Refused", r.Map(t)["resultCode"])
		assert.Equal(t, "active", e.get(id)["status"])
	}
	r := e.pay(id, s, "4111111111111111")
	require.Equal(t, 409, r.Status, "the session was refused three times: %s", r.Body)
	s2 := e.open(id)
	require.NotEqual(t, s.ID, s2.ID, "a new session replaces the refused one")
	r = e.pay(id, s, "4111111111111111")
	code, _ := errCode(t, r)
	assert.Equal(t, "payment_link_session_replaced", code, "the old session pays no more")
	r = e.pay(id, s2, "4111111111111111")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
	assert.Equal(t, "paid", e.get(id)["status"])
	ps := e.linkPayments(e.Account.ID, id)
	assert.Len(t, ps, 4)
	ok := 0
	for _, p := range ps {
		if p.Status.Succeeded() {
			ok++
		}
	}
	assert.Equal(t, 1, ok)
}

// TestChallengeOnTheLink: the 3-D Secure challenge card goes fingerprint ->
// challenge; a wrong password refuses (the link stays active, the payment is
// rejected), the right one pays the link.
func TestChallengeOnTheLink(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.create(nil)["id"].(string)
		s := e.open(id)
		challenge := func() string {
			r := e.pay(id, s, "5454545454545454")
			require.Equal(t, 200, r.Status, "%s", r.Body)
			fp := r.Map(t)
			require.Equal(t, "IdentifyShopper", fp["resultCode"])
			tok := fp["action"].(map[string]any)["authorisationToken"].(string)
			r = e.details(id, s, map[string]any{"threeDSResult": threeDS("", tok)})
			require.Equal(t, 200, r.Status, "%s", r.Body)
			ch := r.Map(t)
			require.Equal(t, "ChallengeShopper", ch["resultCode"])
			return ch["action"].(map[string]any)["authorisationToken"].(string)
		}
		r := e.details(id, s, map[string]any{"threeDSResult": threeDS("N", challenge())})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Refused", r.Map(t)["resultCode"])
		assert.Equal(t, "active", e.get(id)["status"])

		r = e.details(id, s, map[string]any{"threeDSResult": threeDS("Y", challenge())})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		assert.Equal(t, "Authorised", r.Map(t)["resultCode"])
		assert.Equal(t, "paid", e.get(id)["status"])
		tx := e.Do("GET", "/v1/transactions/by-payment-link/"+id, nil).Map(t)
		assert.Equal(t, true, tx["secure3d"])
		assert.Equal(t, 1, count(e.events(e.Account.ID, id), links.EventPaid))
	})
}

// TestLinkSessionsArePaidOnlyOnTheirPage: a link's session refuses payment
// through the drop-in's client-key routes, and the page's routes refuse a
// session that is not the link's.
func TestLinkSessionsArePaidOnlyOnTheirPage(t *testing.T) {
	e := newEnv(t, embedded)
	id := e.create(nil)["id"].(string)
	s := e.open(id)
	ck := e.NewClientKey("https://shop.example.com")
	r := e.DoKey(ck, "POST", "/v2/client/sessions/"+s.ID+"/payments", map[string]any{"sessionData": s.SessionData,
		"paymentMethod": card("4111111111111111")}, "Origin", "https://shop.example.com")
	require.Equal(t, 409, r.Status, "%s", r.Body)
	code, _ := errCode(t, r)
	assert.Equal(t, "payment_link_session", code)

	// A merchant's own session through the link's page: not the link's.
	ms := e.Do("POST", "/v2/sessions", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
		"reference": "own-1", "returnUrl": "https://shop.example.com/r"}).Map(t)
	r = e.page("POST", "/pay/"+id+"/sessions/"+ms["id"].(string)+"/payments", map[string]any{"sessionData": ms["sessionData"],
		"paymentMethod": card("4111111111111111")})
	require.Equal(t, 409, r.Status, "%s", r.Body)
	code, _ = errCode(t, r)
	assert.Equal(t, "payment_link_session_replaced", code)
	assert.Empty(t, e.linkPayments(e.Account.ID, id))
	assert.Equal(t, "active", e.get(id)["status"])
}

// TestTabsPayingAtOnce: many tabs pay one link at the same moment. Exactly
// one payment is authorised; every other tab is told the link is paid (or,
// having lost the session to the winner, that it changed), and nothing of
// theirs is recorded: no money held for them. The link is paid by the
// winner, once, with one event. On both stores.
func TestTabsPayingAtOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		const tabs = 16
		for round := 0; round < 3; round++ {
			id := e.create(nil)["id"].(string)
			s := e.open(id)
			var wg sync.WaitGroup
			start := make(chan struct{})
			results := make([]map[string]any, tabs)
			statuses := make([]int, tabs)
			for i := range tabs {
				wg.Go(func() {
					<-start
					r := e.pay(id, s, "4111111111111111")
					statuses[i], results[i] = r.Status, r.Map(t)
				})
			}
			close(start)
			wg.Wait()
			won, lost := 0, 0
			winner := ""
			for i := range tabs {
				switch statuses[i] {
				case 200:
					won++
					require.Equal(t, "Authorised", results[i]["resultCode"])
					winner = results[i]["pspReference"].(string)
				case 409:
					lost++
					code := results[i]["error"].(map[string]any)["code"]
					assert.Equal(t, "payment_link_paid", code, "a losing tab is told the link is paid")
				default:
					t.Fatalf("tab %d: %d %v", i, statuses[i], results[i])
				}
			}
			require.Equal(t, 1, won, "exactly one tab's payment is authorised")
			assert.Equal(t, tabs-1, lost)
			ps := e.linkPayments(e.Account.ID, id)
			require.Len(t, ps, 1, "nothing of a losing tab is recorded")
			assert.Equal(t, winner, ps[0].ID)
			got := e.get(id)
			assert.Equal(t, "paid", got["status"])
			assert.Equal(t, winner, got["transaction_id"])
			evs := e.events(e.Account.ID, id)
			assert.Equal(t, 1, count(evs, links.EventPaid))
			assert.Equal(t, 1, count(evs, "payment.authorised"))
		}
	})
}

// TestPaymentRacesCancelAndExpirer: a payment, a cancel and the expirer
// racing on links that expire at that moment: each link ends exactly once,
// with one event, and a paid link's payment is its only success.
func TestPaymentRacesCancelAndExpirer(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		const n = 8
		type link struct {
			id string
			s  session
		}
		var ls []link
		for range n {
			id := e.create(map[string]any{"expires_at": rfc(e.Clock.Now().Add(2 * time.Second))})["id"].(string)
			ls = append(ls, link{id, e.open(id)})
		}
		time.Sleep(time.Until(e.Clock.Now().Add(2*time.Second).Truncate(time.Second)) - 50*time.Millisecond)
		var wg sync.WaitGroup
		for _, l := range ls {
			wg.Go(func() { e.pay(l.id, l.s, "4111111111111111") })
			wg.Go(func() { e.Do("POST", "/v1/payment-links/"+l.id+"/cancel", nil, "Idempotency-Key", e.key()) })
		}
		wg.Go(func() {
			for range 20 {
				_, err := e.links.Expire(t.Context())
				assert.NoError(t, err)
				time.Sleep(10 * time.Millisecond)
			}
		})
		wg.Wait()
		time.Sleep(time.Until(e.Clock.Now().Add(100 * time.Millisecond)))
		_, err := e.links.Expire(t.Context())
		require.NoError(t, err)
		for _, l := range ls {
			got := e.get(l.id)
			evs := e.events(e.Account.ID, l.id)
			ends := count(evs, links.EventPaid) + count(evs, links.EventCancelled) + count(evs, links.EventExpired)
			assert.Equal(t, 1, ends, "%s ended once: %v", got["status"], evs)
			ok := 0
			for _, p := range e.linkPayments(e.Account.ID, l.id) {
				if p.Status.Succeeded() {
					ok++
					assert.Equal(t, p.ID, got["transaction_id"])
				}
			}
			if got["status"] == "paid" {
				assert.Equal(t, 1, ok)
			} else {
				assert.Equal(t, 0, ok, "an unpaid link has no successful payment")
			}
		}
	})
}

// TestExpiryCheckedInCodeAndSwept: a link past expires_at reads expired at
// once (API, list filter, page), takes no payment (409), and the expirer
// stores it with one event, from the index (a second run finds nothing).
func TestExpiryCheckedInCodeAndSwept(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.Clock.Set(time.Now().UTC())
		id := e.create(map[string]any{"expires_at": rfc(e.Clock.Now().Add(time.Hour))})["id"].(string)
		s := e.open(id)
		other := e.create(map[string]any{"expires_at": rfc(e.Clock.Now().Add(3 * time.Hour))})["id"].(string)
		e.Clock.Advance(time.Hour + time.Second)

		assert.Equal(t, "expired", e.get(id)["status"])
		assert.Empty(t, e.get(id)["expired_at"], "not stored yet")
		l := e.Do("GET", "/v1/payment-links?status=expired", nil).Map(t)["data"].([]any)
		require.Len(t, l, 1)
		assert.Equal(t, id, l[0].(map[string]any)["id"])
		page := e.page("GET", "/pay/"+id, nil)
		assert.Contains(t, string(page.Body), "Link expired")
		r := e.pay(id, s, "4111111111111111")
		require.Equal(t, 409, r.Status)
		code, _ := errCode(t, r)
		assert.Equal(t, "payment_link_expired", code)
		assert.Empty(t, e.linkPayments(e.Account.ID, id))

		res, err := e.links.Expire(t.Context())
		require.NoError(t, err)
		assert.Equal(t, links.ExpireResult{Expired: 1}, res)
		got := e.get(id)
		assert.Equal(t, "expired", got["status"])
		assert.NotEmpty(t, got["expired_at"])
		assert.Equal(t, []string{links.EventExpired}, e.events(e.Account.ID, id))
		res, err = e.links.Expire(t.Context())
		require.NoError(t, err)
		assert.Equal(t, links.ExpireResult{}, res, "the entry left the index")
		assert.Equal(t, "active", e.get(other)["status"])

		// A moved expiry moves the entry: the expirer takes the new time.
		e.Do("POST", "/v1/payment-links/"+other+"/expiration", map[string]any{"expires_at": rfc(e.Clock.Now().Add(10 * time.Minute))})
		e.Clock.Advance(2*time.Hour + time.Minute)
		res, err = e.links.Expire(t.Context())
		require.NoError(t, err)
		assert.Equal(t, links.ExpireResult{Expired: 1}, res)
		assert.Equal(t, "expired", e.get(other)["status"])
	})
}

// TestStatistics: counts and sums per status and currency over the created
// range, moved by each change in its own transaction.
func TestStatistics(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
		e.Clock.Set(day)
		exp := rfc(day.Add(7 * 24 * time.Hour))
		a := e.create(map[string]any{"expires_at": exp})["id"].(string)
		e.create(map[string]any{"amount": map[string]any{"value": 2500, "currency": "EUR"}, "expires_at": exp})
		e.create(map[string]any{"amount": map[string]any{"value": 70000, "currency": "KZT"}, "expires_at": exp})
		c := e.create(map[string]any{"amount": map[string]any{"value": 300, "currency": "EUR"}, "expires_at": exp})["id"].(string)
		e.Clock.Set(day.Add(24 * time.Hour))
		e.create(map[string]any{"amount": map[string]any{"value": 5, "currency": "USD"}})
		require.Equal(t, 200, e.pay(a, e.open(a), "4111111111111111").Status)
		require.Equal(t, 200, e.Do("POST", "/v1/payment-links/"+c+"/cancel", nil).Status)

		r := e.Do("GET", "/v1/payment-links/statistics?created_from=2026-03-10T15:00:00Z&created_to=2026-03-10T15:00:01Z", nil)
		require.Equal(t, 200, r.Status, "%s", r.Body)
		st := r.Map(t)
		assert.Equal(t, "2026-03-10T00:00:00Z", st["created_from"], "widened to whole days")
		assert.Equal(t, "2026-03-10T23:59:59Z", st["created_to"])
		assert.Equal(t, []any{
			map[string]any{"status": "active", "currency": "EUR", "count": 1.0, "amount": 2500.0},
			map[string]any{"status": "active", "currency": "KZT", "count": 1.0, "amount": 70000.0},
			map[string]any{"status": "paid", "currency": "EUR", "count": 1.0, "amount": 1000.0},
			map[string]any{"status": "cancelled", "currency": "EUR", "count": 1.0, "amount": 300.0},
		}, st["data"])
		all := e.Do("GET", "/v1/payment-links/statistics", nil).Map(t)["data"].([]any)
		assert.Len(t, all, 5, "the last 30 days by default")
		r = e.Do("GET", "/v1/payment-links/statistics?created_from=2024-01-01T00:00:00Z&created_to=2026-03-10T00:00:00Z", nil)
		require.Equal(t, 400, r.Status)
		_, p := errCode(t, r)
		assert.Equal(t, "created_from", p)
		r = e.Do("GET", "/v1/payment-links/statistics?created_from=2026-03-11T00:00:00Z&created_to=2026-03-10T00:00:00Z", nil)
		assert.Equal(t, 400, r.Status)
	})
}

// TestTabsOpeningAtOnceShareOneSession: tabs that open a new link's page at
// the same moment all get the one session that committed first.
func TestTabsOpeningAtOnceShareOneSession(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.create(nil)["id"].(string)
		const tabs = 12
		got := make([]string, tabs)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range tabs {
			wg.Go(func() {
				<-start
				r := e.page("POST", "/pay/"+id+"/session", nil)
				if assert.Equal(t, 200, r.Status, "%s", r.Body) {
					got[i] = r.Map(t)["id"].(string)
				}
			})
		}
		close(start)
		wg.Wait()
		for _, s := range got {
			assert.Equal(t, got[0], s, "one session for every tab")
		}
		assert.Equal(t, got[0], e.open(id).ID)
	})
}
