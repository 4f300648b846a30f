package prepaid_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/platform/accounts"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/money"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// depositEvent is a deposit.posted record as the event log stores it.
type depositEvent struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Created  int64        `json:"created"`
	Account  string       `json:"account"`
	Livemode bool         `json:"livemode"`
	Data     prepaid.View `json:"data"`
}

// depositEvents reads the account's event records, oldest first.
func depositEvents(t *testing.T, st store.Store, accountID string) ([]depositEvent, []store.Item) {
	t.Helper()
	page, err := st.Query(context.Background(), store.Query{Table: store.TableEvents, PK: "evt#" + accountID, Limit: 100})
	require.NoError(t, err)
	var out []depositEvent
	for _, it := range page.Items {
		require.False(t, it.ExpiresAt.IsZero(), "every event record expires")
		var ev depositEvent
		require.NoError(t, json.Unmarshal(it.Data, &ev))
		out = append(out, ev)
	}
	return out, page.Items
}

// TestDepositPostedEventOnce: a posted deposit writes one deposit.posted
// event in its transaction, in the writers' shape, with the deposit's view
// as data; posting the reference again, or a deposit the balance refuses,
// writes none.
func TestDepositPostedEventOnce(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		now := time.Now().UTC().Truncate(time.Second)
		l := prepaid.New(st, func() time.Time { return now })
		live, err := accounts.NewRepo(st, nil).Create(ctx, accounts.NewAccount{Name: "Live shop", Mode: accounts.Live, Country: "KZ"})
		require.NoError(t, err)
		acct := live.ID
		d, created, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 12345, Method: prepaid.MethodBankWire, ExternalRef: "EVT-1"})
		require.NoError(t, err)
		require.True(t, created)

		evs, items := depositEvents(t, st, acct)
		require.Len(t, evs, 1)
		ev := evs[0]
		assert.Regexp(t, `^evt_[0-9a-f]{32}$`, ev.ID)
		assert.Equal(t, items[0].SK, ev.ID, "keyed evt#<account> / event id")
		assert.Equal(t, prepaid.EventDepositPosted, ev.Type)
		assert.Equal(t, acct, ev.Account)
		assert.Equal(t, now.Unix(), ev.Created)
		assert.True(t, ev.Livemode, "a live account's deposit is live")
		sandbox, err := accounts.NewRepo(st, nil).Create(ctx, accounts.NewAccount{Name: "Sandbox", Mode: accounts.Test, Country: "KZ"})
		require.NoError(t, err)
		_, _, err = l.PostDeposit(ctx, sandbox.ID, prepaid.Deposit{Currency: "USD", Amount: 1, Method: prepaid.MethodManual, ExternalRef: "EVT-T"})
		require.NoError(t, err)
		tevs, _ := depositEvents(t, st, sandbox.ID)
		require.Len(t, tevs, 1)
		assert.False(t, tevs[0].Livemode, "a test account's deposit is a test event")
		assert.Equal(t, now.Add(eventlog.Retention).Unix(), items[0].ExpiresAt.Unix())
		want, _ := json.Marshal(d.View())
		got, _ := json.Marshal(ev.Data)
		assert.JSONEq(t, string(want), string(got))
		assert.Equal(t, "123.45", ev.Data.Amount)
		var raw map[string]any
		require.NoError(t, json.Unmarshal(items[0].Data, &raw))
		assert.ElementsMatch(t, []string{"id", "type", "created", "account", "livemode", "data"}, keys(raw))
		assert.NotContains(t, raw["data"], "account_id", "data is the public view")

		// The same reference again (even with another amount): no event.
		_, created, err = l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 12345, ExternalRef: "EVT-1"})
		require.NoError(t, err)
		require.False(t, created)
		_, created, err = l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "USD", Amount: 1, ExternalRef: "EVT-1"})
		require.NoError(t, err)
		require.False(t, created)

		// A deposit the balance refuses: nothing, its event included.
		require.NoError(t, st.Write(ctx, prepaid.CreditOp(acct, "EUR", money.MaxBalance, now)))
		_, _, err = l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "EUR", Amount: 1, ExternalRef: "EVT-FULL"})
		require.Error(t, err)

		evs, _ = depositEvents(t, st, acct)
		assert.Len(t, evs, 1)
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestConcurrentSameReferenceOneEvent: 20 posts of one reference race; one
// deposit, one event.
func TestConcurrentSameReferenceOneEvent(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		l := prepaid.New(st, nil)
		var wg sync.WaitGroup
		ids := make([]string, 20)
		for i := range 20 {
			wg.Go(func() {
				d, _, err := l.PostDeposit(ctx, acct, prepaid.Deposit{Currency: "EUR", Amount: 700, ExternalRef: "RACE-EVT"})
				if assert.NoError(t, err) {
					ids[i] = d.ID
				}
			})
		}
		wg.Wait()
		evs, _ := depositEvents(t, st, acct)
		require.Len(t, evs, 1)
		assert.Equal(t, ids[0], evs[0].Data.ID)
		for _, id := range ids {
			assert.Equal(t, ids[0], id)
		}
	})
}

// TestTestDepositEvent: the test helper's deposit is a sandbox one
// (livemode false); its event's data is the body the API answered, and a
// keyed replay or a second post of the reference adds none.
func TestTestDepositEvent(t *testing.T) {
	backends(t, func(t *testing.T, e *apitest.Env) {
		body := map[string]any{"currency_code": "EUR", "amount": "7.50", "external_ref": "HELPER-EVT"}
		r := e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "evt-key")
		require.Equal(t, 201, r.Status, "%s", r.Body)
		require.Equal(t, 201, e.Do("POST", "/test-helpers/deposits", body, "Idempotency-Key", "evt-key").Status)
		require.Equal(t, 200, e.Do("POST", "/test-helpers/deposits", body).Status)

		evs, _ := depositEvents(t, e.Deps.Store, e.Account.ID)
		require.Len(t, evs, 1)
		assert.False(t, evs[0].Livemode)
		got, _ := json.Marshal(evs[0].Data)
		assert.JSONEq(t, string(r.Body), string(got))
	})
}
