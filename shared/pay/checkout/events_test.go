package checkout_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/pay/checkout"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// sessionEvent is a session's event record as the event log stores it.
type sessionEvent struct {
	ID       string               `json:"id"`
	Type     string               `json:"type"`
	Created  int64                `json:"created"`
	Account  string               `json:"account"`
	Livemode bool                 `json:"livemode"`
	Data     checkout.SessionView `json:"data"`
}

// sessionEvents reads the account's session events by session id.
func sessionEvents(t *testing.T, e *apitest.Env, accountID string) map[string][]sessionEvent {
	t.Helper()
	page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 1000})
	require.NoError(t, err)
	out := map[string][]sessionEvent{}
	for _, it := range page.Items {
		var head struct {
			Type string `json:"type"`
		}
		require.NoError(t, json.Unmarshal(it.Data, &head))
		if head.Type == checkout.EventSessionCompleted || head.Type == checkout.EventSessionExpired {
			var ev sessionEvent
			require.NoError(t, json.Unmarshal(it.Data, &ev))
			require.Equal(t, it.SK, ev.ID)
			out[ev.Data.ID] = append(out[ev.Data.ID], ev)
		}
	}
	return out
}

// expiryEntries counts the expiry index's entries over every shard.
func expiryEntries(t *testing.T, e *apitest.Env) int {
	t.Helper()
	n := 0
	for shard := range 8 {
		page, err := e.Deps.Store.Query(context.Background(), store.Query{Table: store.TableSessions, PK: fmt.Sprintf("csexp#%d", shard), Limit: 1000})
		require.NoError(t, err)
		n += len(page.Items)
	}
	return n
}

func expirer(e *apitest.Env) *checkout.Expirer {
	return checkout.NewExpirer(e.Deps.Store, e.Clock.Now, nil)
}

// TestSessionCompletedEvent: the payment that completes a session writes one
// checkout.session.completed event in its transaction, in the writers'
// shape, with the session as the API shows it and no secret in it; refused
// attempts before it and calls after it write none.
func TestSessionCompletedEvent(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		now := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(now)
		ck := e.NewClientKey(origin)
		r := e.Do("POST", "/v2/sessions", sessionBody(e, map[string]any{"reference": "evt-complete",
			"metadata": map[string]any{"cart": "c-1"}, "shopperEmail": "s@example.com"}))
		require.Equal(t, 201, r.Status, "%s", r.Body)
		created := r.Map(t)
		var s sess
		r.JSON(t, &s)
		base := "/v2/client/sessions/" + s.ID

		refused := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4000000000000010")})
		require.Equal(t, 200, refused.Status, "%s", refused.Body)
		assert.Empty(t, sessionEvents(t, e, e.Account.ID), "a refused attempt leaves the session open: no event")

		ok := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
		require.Equal(t, 200, ok.Status, "%s", ok.Body)
		again := clientDo(e, ck, base+"/payments", map[string]any{"sessionData": s.SessionData, "paymentMethod": card("5555555555554444")})
		require.Equal(t, 409, again.Status, "%s", again.Body)

		evs := sessionEvents(t, e, e.Account.ID)[s.ID]
		require.Len(t, evs, 1)
		ev := evs[0]
		assert.Equal(t, checkout.EventSessionCompleted, ev.Type)
		assert.Regexp(t, `^evt_[0-9a-f]{32}$`, ev.ID)
		assert.Equal(t, e.Account.ID, ev.Account)
		assert.Equal(t, now.Unix(), ev.Created)
		assert.False(t, ev.Livemode)

		// data: the create answer without sessionData, plus the result.
		res := sessionResult(t, e, s.ID)
		data, _ := json.Marshal(ev.Data)
		var got map[string]any
		require.NoError(t, json.Unmarshal(data, &got))
		for k, v := range created {
			if k != "sessionData" {
				assert.Equal(t, v, got[k], k)
			}
		}
		for k, v := range res {
			assert.Equal(t, v, got[k], k)
		}
		assert.Equal(t, "completed", got["status"])

		it, err := e.Deps.Store.Get(context.Background(), eventlog.Key(e.Account.ID, ev.ID))
		require.NoError(t, err)
		assert.Equal(t, now.Add(eventlog.Retention).Unix(), it.ExpiresAt.Unix())
		var raw map[string]any
		require.NoError(t, json.Unmarshal(it.Data, &raw))
		assert.ElementsMatch(t, []string{"id", "type", "created", "account", "livemode", "data"}, keys(raw))
		// The CVC as a JSON value ("737"), not three digits anywhere: random
		// ids contain 737 now and then.
		for _, secret := range []string{s.SessionData, "sessionData", "4111111111111111", "paymentData", `"737"`, "SecurityCode"} {
			assert.NotContains(t, string(it.Data), secret)
		}
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestSessionCompletedOnceUnderRace: 16 payments race to complete one
// session; one commits, with the one event.
func TestSessionCompletedOnceUnderRace(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"reference": "evt-race"})
		const n = 16
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				statuses[i] = clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments",
					map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")}).Status
			})
		}
		wg.Wait()
		won := 0
		for _, st := range statuses {
			require.Contains(t, []int{200, 409}, st)
			if st == 200 {
				won++
			}
		}
		assert.Equal(t, 1, won)
		assert.Equal(t, 1, countAuthorised(storedPayments(t, e, e.Account.ID)))
		evs := sessionEvents(t, e, e.Account.ID)[s.ID]
		require.Len(t, evs, 1)
		assert.Equal(t, checkout.EventSessionCompleted, evs[0].Type)
	})
}

// TestExpirerExpiresOpenSessions: past expiresAt the expirer stores
// expired with one checkout.session.expired event for each open session
// (one waiting in 3-D Secure included), drops the entries of sessions that
// ended otherwise without an event, leaves unexpired ones, and a second run
// finds nothing. The API reads as before: expired, and a late details call
// is refused "3D Not Authenticated".
func TestExpirerExpiresOpenSessions(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		at := func(d time.Duration) string { return t0.Add(d).Format(time.RFC3339) }
		ck := e.NewClientKey(origin)
		open := createSession(t, e, map[string]any{"reference": "exp-open", "expiresAt": at(10 * time.Minute)})
		done := createSession(t, e, map[string]any{"reference": "exp-done", "expiresAt": at(10 * time.Minute)})
		waiting := createSession(t, e, map[string]any{"reference": "exp-waiting", "expiresAt": at(10 * time.Minute)})
		later := createSession(t, e, map[string]any{"reference": "exp-later", "expiresAt": at(20 * time.Minute)})
		require.Equal(t, 4, expiryEntries(t, e))

		r := clientDo(e, ck, "/v2/client/sessions/"+done.ID+"/payments", map[string]any{"sessionData": done.SessionData, "paymentMethod": card("4111111111111111")})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r = clientDo(e, ck, "/v2/client/sessions/"+waiting.ID+"/payments", map[string]any{"sessionData": waiting.SessionData, "paymentMethod": card("5454545454545454")})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var p payResp
		r.JSON(t, &p)
		require.Equal(t, "paymentPending", sessionResult(t, e, waiting.ID)["status"])

		res, err := expirer(e).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{}, res, "nothing is due before expiresAt")

		e.Clock.Advance(10 * time.Minute) // exactly expiresAt: expired
		res, err = expirer(e).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{Expired: 2, Dropped: 1}, res)
		res, err = expirer(e).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{}, res, "a second run finds nothing")
		assert.Equal(t, 1, expiryEntries(t, e), "only the later session's entry is left")

		evs := sessionEvents(t, e, e.Account.ID)
		require.Len(t, evs[done.ID], 1)
		assert.Equal(t, checkout.EventSessionCompleted, evs[done.ID][0].Type, "a completed session gets no expired event")
		assert.Empty(t, evs[later.ID])
		for _, id := range []string{open.ID, waiting.ID} {
			require.Len(t, evs[id], 1, id)
			ev := evs[id][0]
			assert.Equal(t, checkout.EventSessionExpired, ev.Type)
			assert.Equal(t, t0.Add(10*time.Minute).Unix(), ev.Created)
			assert.Equal(t, checkout.StatusExpired, ev.Data.Status)
			assert.Empty(t, ev.Data.Payments, "a payment still waiting is not listed")
			assert.Equal(t, "expired", sessionResult(t, e, id)["status"])
			stored, err := e.Deps.Store.Get(ctx, store.Key{Table: store.TableSessions, PK: "cs#" + id, SK: "session"})
			require.NoError(t, err)
			assert.Contains(t, string(stored.Data), `"status":"expired"`)
		}

		// The waiting payment's late details: refused as before, no new
		// session event, the session still expired.
		late := clientDo(e, ck, "/v2/client/sessions/"+waiting.ID+"/payments/details", map[string]any{"sessionData": waiting.SessionData,
			"details": map[string]any{"threeDSResult": threeDS("", p.Action.AuthorisationToken)}})
		require.Equal(t, 200, late.Status, "%s", late.Body)
		assert.Equal(t, "Refused", late.Map(t)["resultCode"])
		assert.Equal(t, "3D Not Authenticated", late.Map(t)["refusalReason"])
		pay := clientDo(e, ck, "/v2/client/sessions/"+open.ID+"/payments", map[string]any{"sessionData": open.SessionData, "paymentMethod": card("4111111111111111")})
		require.Equal(t, 409, pay.Status, "%s", pay.Body)
		assert.Equal(t, "session_expired", pay.Err(t)["code"])
		assert.Equal(t, "expired", sessionResult(t, e, waiting.ID)["status"])
		assert.Len(t, sessionEvents(t, e, e.Account.ID)[waiting.ID], 1)

		e.Clock.Advance(10 * time.Minute)
		res, err = expirer(e).Run(ctx)
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{Expired: 1}, res)
		assert.Zero(t, expiryEntries(t, e))
	})
}

// TestExpirerWaitsForTheStoresExpiry: an expirer whose clock runs ahead of
// the store's (the store still holds the live marker, so a payment could
// still complete the session) writes nothing and keeps the entry.
func TestExpirerWaitsForTheStoresExpiry(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		s := createSession(t, e, map[string]any{"reference": "exp-skew", "expiresAt": t0.Add(10 * time.Minute).Format(time.RFC3339)})
		ahead := checkout.NewExpirer(e.Deps.Store, func() time.Time { return t0.Add(11 * time.Minute) }, nil)
		res, err := ahead.Run(context.Background())
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{}, res)
		assert.Empty(t, sessionEvents(t, e, e.Account.ID))
		assert.Equal(t, 1, expiryEntries(t, e))
		assert.Equal(t, "active", sessionResult(t, e, s.ID)["status"])
	})
}

// TestExpirerRuns overlap: four runs at once over the same 12 expired
// sessions; each session is expired once, with one event.
func TestExpirerRunsOverlap(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		const n = 12
		for i := range n {
			createSession(t, e, map[string]any{"reference": fmt.Sprintf("exp-overlap-%d", i), "expiresAt": t0.Add(5 * time.Minute).Format(time.RFC3339)})
		}
		e.Clock.Advance(5 * time.Minute)
		var wg sync.WaitGroup
		var mu sync.Mutex
		total := 0
		for range 4 {
			wg.Go(func() {
				res, err := expirer(e).Run(context.Background())
				assert.NoError(t, err)
				mu.Lock()
				total += res.Expired
				mu.Unlock()
			})
		}
		wg.Wait()
		assert.Equal(t, n, total, "each session expired by exactly one run")
		evs := sessionEvents(t, e, e.Account.ID)
		require.Len(t, evs, n)
		for id, l := range evs {
			assert.Len(t, l, 1, id)
		}
		assert.Zero(t, expiryEntries(t, e))
	})
}

// TestCompletionRacesExpirer: payments complete sessions while the clock
// crosses their expiry and expirers run; every session ends with exactly
// one event, matching its status: completed, or expired.
func TestCompletionRacesExpirer(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		ck := e.NewClientKey(origin)
		const n = 10
		ss := make([]sess, n)
		for i := range n {
			ss[i] = createSession(t, e, map[string]any{"reference": fmt.Sprintf("exp-race-%d", i), "expiresAt": t0.Add(time.Minute).Format(time.RFC3339)})
		}
		pay := func(wg *sync.WaitGroup, from, to int) {
			for i := from; i < to; i++ {
				for range 3 {
					wg.Go(func() {
						r := clientDo(e, ck, "/v2/client/sessions/"+ss[i].ID+"/payments",
							map[string]any{"sessionData": ss[i].SessionData, "paymentMethod": card("4111111111111111")})
						assert.Contains(t, []int{200, 409}, r.Status, "%s", r.Body)
					})
				}
			}
		}
		// The first half completes before expiry; the second half's
		// payments race the clock crossing expiresAt and three expirers.
		var wg sync.WaitGroup
		pay(&wg, 0, n/2)
		wg.Wait()
		pay(&wg, n/2, n)
		wg.Go(func() {
			e.Clock.Set(t0.Add(time.Minute))
			var inner sync.WaitGroup
			for range 3 {
				inner.Go(func() {
					_, err := expirer(e).Run(context.Background())
					assert.NoError(t, err)
				})
			}
			inner.Wait()
		})
		wg.Wait()
		_, err := expirer(e).Run(context.Background()) // a later run picks up the rest
		require.NoError(t, err)

		evs := sessionEvents(t, e, e.Account.ID)
		completed := 0
		for _, s := range ss {
			require.Len(t, evs[s.ID], 1, s.ID)
			status := sessionResult(t, e, s.ID)["status"]
			switch evs[s.ID][0].Type {
			case checkout.EventSessionCompleted:
				completed++
				assert.Equal(t, "completed", status)
			case checkout.EventSessionExpired:
				assert.Equal(t, "expired", status)
			}
		}
		assert.Equal(t, completed, countAuthorised(storedPayments(t, e, e.Account.ID)))
		assert.Zero(t, expiryEntries(t, e))
		t.Logf("%d of %d sessions completed before expiry", completed, n)
		assert.GreaterOrEqual(t, completed, n/2)
	})
}

// TestExpirerBudget: a run takes at most its per-shard share and says there
// is more; the following runs finish the rest, each session once.
func TestExpirerBudget(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		ctx := context.Background()
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		const n = 40
		for i := range n {
			createSession(t, e, map[string]any{"reference": fmt.Sprintf("exp-budget-%d", i), "expiresAt": t0.Add(time.Minute).Format(time.RFC3339)})
		}
		e.Clock.Advance(time.Minute)
		x := expirer(e)
		total, runs := 0, 0
		for more := true; more; runs++ {
			require.Less(t, runs, n, "the expirer makes progress")
			res, err := x.RunAt(ctx, e.Clock.Now(), 2, 3)
			require.NoError(t, err)
			assert.LessOrEqual(t, res.Expired, 8*3)
			total += res.Expired
			more = res.More
		}
		assert.Greater(t, runs, 1)
		assert.Equal(t, n, total)
		assert.Len(t, sessionEvents(t, e, e.Account.ID), n)
		assert.Zero(t, expiryEntries(t, e))
	})
}

// hookStore runs f once, just before the first transaction written through
// it: the moment between the expirer's read of a session and its write.
type hookStore struct {
	store.Store
	once sync.Once
	f    func()
}

func (h *hookStore) Write(ctx context.Context, ops ...store.Op) error {
	if len(ops) > 1 {
		h.once.Do(h.f)
	}
	return h.Store.Write(ctx, ops...)
}

// TestSessionCompletedWhileExpirerRuns: the expirer read the session open
// and past expiry; before it writes, a payment (on a clock still before
// expiry) completes the session. The expirer's write fails on the version,
// it reads the session again, finds it completed and drops its entry: the
// session has its completed event and no expired one.
func TestSessionCompletedWhileExpirerRuns(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		t0 := time.Now().UTC().Truncate(time.Second)
		e.Clock.Set(t0)
		ck := e.NewClientKey(origin)
		s := createSession(t, e, map[string]any{"reference": "exp-interleave", "expiresAt": t0.Add(time.Minute).Format(time.RFC3339)})
		e.Clock.Set(t0.Add(time.Minute))
		h := &hookStore{Store: e.Deps.Store, f: func() {
			e.Clock.Set(t0.Add(59 * time.Second))
			r := clientDo(e, ck, "/v2/client/sessions/"+s.ID+"/payments",
				map[string]any{"sessionData": s.SessionData, "paymentMethod": card("4111111111111111")})
			require.Equal(t, 200, r.Status, "%s", r.Body)
			e.Clock.Set(t0.Add(time.Minute))
		}}
		res, err := checkout.NewExpirer(h, e.Clock.Now, nil).Run(context.Background())
		require.NoError(t, err)
		assert.Equal(t, checkout.ExpireResult{Dropped: 1}, res)
		evs := sessionEvents(t, e, e.Account.ID)[s.ID]
		require.Len(t, evs, 1)
		assert.Equal(t, checkout.EventSessionCompleted, evs[0].Type)
		assert.Equal(t, "completed", sessionResult(t, e, s.ID)["status"])
		assert.Zero(t, expiryEntries(t, e))
	})
}
