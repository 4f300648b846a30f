package payments

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/version"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

func TestTransitions(t *testing.T) {
	allowed := map[[2]Status]bool{}
	for from, tos := range transitions {
		for _, to := range tos {
			allowed[[2]Status{from, to}] = true
		}
	}
	all := Statuses
	for _, from := range all {
		for _, to := range all {
			p := New(Payment{ID: "p1", AccountID: "a"}, time.Now())
			p.Status = from
			err := p.Transition(to, "", time.Now())
			if allowed[[2]Status{from, to}] {
				assert.NoError(t, err, "%s -> %s", from, to)
				assert.Equal(t, to, p.Status)
			} else {
				assert.True(t, apierr.Is(err, apierr.Conflict), "%s -> %s must be a conflict", from, to)
				assert.Equal(t, from, p.Status, "a refused change leaves the record")
			}
		}
	}
	for _, s := range []Status{Rejected, Failed, Cancelled, Refunded} {
		assert.True(t, s.Final())
	}
	assert.False(t, Authorized.Final())
}

func TestSaveWritesHistoryAndEventsInOneTransaction(t *testing.T) {
	now := time.Date(2024, 2, 1, 10, 0, 0, 0, time.UTC)
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), func() time.Time { return now })
	require.NoError(t, err)
	defer st.Close()
	ctx := context.Background()
	repo := NewRepo(st)
	p := New(Payment{ID: "pay1", AccountID: "acct1", Amount: 1000, Currency: "EUR"}, now)
	require.NoError(t, p.Transition(RequiresAction, "3ds2 challenge", now))
	require.NoError(t, repo.Save(ctx, p))

	got, err := repo.Get(ctx, "acct1", "pay1")
	require.NoError(t, err)
	assert.Equal(t, RequiresAction, got.Status)
	require.Len(t, got.History, 2)

	// A stale copy cannot overwrite a newer one: the version condition fails
	// and nothing (not even the event) is written.
	stale, err := repo.Get(ctx, "acct1", "pay1")
	require.NoError(t, err)
	require.NoError(t, got.Transition(Authorized, "", now.Add(time.Second)))
	require.NoError(t, repo.Save(ctx, got))
	require.NoError(t, stale.Transition(Rejected, "late", now.Add(2*time.Second)))
	err = repo.Save(ctx, stale)
	assert.True(t, apierr.Is(err, apierr.Conflict))

	final, err := repo.Get(ctx, "acct1", "pay1")
	require.NoError(t, err)
	assert.Equal(t, Authorized, final.Status)
	assert.NotNil(t, final.AuthedAt)
	assert.Len(t, final.History, 3)

	page, err := st.Query(ctx, store.Query{Table: store.TableEvents, PK: "evt#acct1", Limit: 10})
	require.NoError(t, err)
	var types []string
	for _, it := range page.Items {
		rec, err := eventlog.Decode(it)
		require.NoError(t, err)
		require.False(t, it.ExpiresAt.IsZero(), "every event record expires")
		var data map[string]any
		require.NoError(t, json.Unmarshal(rec.Data, &data))
		types = append(types, rec.Type)
		assert.NotContains(t, data, "internal", "the flow state is never shown")
	}
	assert.ElementsMatch(t, []string{"payment.requires_action", "payment.authorised"}, types)

	_, err = repo.Get(ctx, "other", "pay1")
	assert.True(t, apierr.Is(err, apierr.NotFound))
}

func TestLegacyVersionSeesThreeD(t *testing.T) {
	obj := map[string]any{"status": "requires_action", "history": []any{map[string]any{"status": "created"}, map[string]any{"status": "requires_action"}}}
	out := version.Apply("2023-09-01", version.Ctx{Kind: Kind, Status: 200}, obj)
	assert.Equal(t, "3d", out["status"])
	assert.Equal(t, "3d", out["history"].([]any)[1].(map[string]any)["status"])

	cur := version.Apply(version.Current, version.Ctx{Kind: Kind}, map[string]any{"status": "requires_action"})
	assert.Equal(t, "requires_action", cur["status"])

	ev := map[string]any{"type": "payment.requires_action", "account": "a", "data": map[string]any{"status": "requires_action"}}
	old := version.Apply("2023-09-01", version.Ctx{Kind: version.KindEvent}, ev)
	assert.Equal(t, "payment.3d", old["type"])
	assert.Equal(t, "3d", old["data"].(map[string]any)["status"])
}

func TestTransitionBecauseKeepsReasonAndWhyApart(t *testing.T) {
	now := time.Date(2024, 2, 1, 10, 0, 0, 0, time.UTC)
	p := New(Payment{ID: "p1", AccountID: "a"}, now)
	require.NoError(t, p.Transition(RequiresAction, "3-D Secure challenge", now))
	require.NoError(t, p.TransitionBecause(Rejected, "3D Not Authenticated", "session_expired: the session expired during 3-D Secure", now))
	assert.Equal(t, Rejected, p.Status)
	assert.Equal(t, "3D Not Authenticated", p.RefusalReason)
	last := p.History[len(p.History)-1]
	assert.Equal(t, HistoryEntry{Status: Rejected, From: RequiresAction, At: now, Reason: "session_expired: the session expired during 3-D Secure"}, last)
	assert.Len(t, p.pending, 2, "each change queues its event")
	err := p.TransitionBecause(Authorized, "", "late", now)
	assert.True(t, apierr.Is(err, apierr.Conflict), "a final payment does not move")
	assert.Equal(t, "3D Not Authenticated", p.RefusalReason)
}

// TestCustomerIndex: a payment with a customer, and its refund, are in the
// customer's index partition from their first save; a stored payment that
// gains a customer (SetCustomer) joins it with its next save.
func TestCustomerIndex(t *testing.T) {
	now := time.Date(2024, 2, 1, 10, 0, 0, 0, time.UTC)
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "s.db"), func() time.Time { return now })
	require.NoError(t, err)
	defer st.Close()
	ctx := context.Background()
	repo := NewRepo(st)
	entries := func(customer string) []string {
		page, err := st.Query(ctx, store.Query{Table: store.TablePayments, PK: CustomerPK("acct1", customer), Limit: 10})
		require.NoError(t, err)
		var out []string
		for _, it := range page.Items {
			out = append(out, it.SK)
		}
		return out
	}

	p := New(Payment{ID: "pay1", AccountID: "acct1", Amount: 1000, Currency: "EUR", CustomerID: "cus1", CaptureMode: CaptureAutomatic}, now)
	require.NoError(t, p.Authorise("", now))
	require.NoError(t, repo.Save(ctx, p))
	r, err := p.Refund(Op{}, "ref1", now)
	require.NoError(t, err)
	require.NoError(t, repo.Save(ctx, p))
	assert.Equal(t, "cus1", r.CustomerID)
	assert.Equal(t, []string{"pay1", "ref1"}, entries("cus1"))

	q := New(Payment{ID: "pay2", AccountID: "acct1", Amount: 1000, Currency: "EUR"}, now)
	require.NoError(t, q.Transition(RequiresAction, "3ds2", now))
	require.NoError(t, repo.Save(ctx, q))
	assert.Empty(t, entries("cus2"))
	q.SetCustomer("cus2")
	require.NoError(t, q.Authorise("", now))
	require.NoError(t, repo.Save(ctx, q))
	assert.Equal(t, []string{"pay2"}, entries("cus2"))
	got, err := repo.Get(ctx, "acct1", "pay2")
	require.NoError(t, err)
	assert.Equal(t, "cus2", got.CustomerID)
}

// TestFlowReadsTheOldInternalMap: records stored when the flow state was a
// map of strings ("internal") read into Flow's fields.
func TestFlowReadsTheOldInternalMap(t *testing.T) {
	raw := `{"id":"pay1","account_id":"a","type":"payment","status":"requires_action","history":[],"metadata":{},
		"internal":{"stage":"challenge","paymentData":"tok","returnUrl":"https://shop.example/back","flow":"frictionless",
		"refusalReasonCode":"11","keepCard":"{\"s\":\"ref\"}","source":"direct"}}`
	p, err := Decode(store.Item{Data: []byte(raw), Version: 1})
	require.NoError(t, err)
	assert.Equal(t, Flow{Stage: "challenge", PaymentData: "tok", ReturnURL: "https://shop.example/back", Processor: "frictionless",
		RefusalReasonCode: "11", KeepCard: `{"s":"ref"}`, Source: "direct"}, p.Flow)
	out, err := json.Marshal(p)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"internal":{"stage":"challenge"`, "stored under the same name")
	p.Flow = Flow{}
	out, err = json.Marshal(p)
	require.NoError(t, err)
	assert.NotContains(t, string(out), `"internal"`, "an empty flow is not stored")
}
