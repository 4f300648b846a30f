package orders

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

func TestMain(m *testing.M) { apitest.Main(m) }

// Products of the test catalog.
const (
	pCard     = 1 // redeem_card, 10.00 USD
	pTopUp    = 2 // direct_top_up, 5.00..500.00 KZT step 1.00, phone_number required
	pInactive = 3
	pTransfer = 4 // direct_transfer, 25.00 USD
	pRange    = 5 // redeem_card priced by range: not orderable
)

var testCatalog = &catalog.File{
	ProductTypes: catalog.StandardTypes,
	Categories:   []catalog.Category{{ID: 1, Name: "Games", Slug: "games"}},
	Products: []catalog.Product{
		{ID: pCard, Name: "Steam 10", Slug: "steam-10", CategoryID: 1, ProductTypeID: 1, TypeCode: catalog.TypeRedeemCard,
			RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 1000},
		{ID: pTopUp, Name: "Mobile top-up", Slug: "mobile-kz", CategoryID: 1, ProductTypeID: 3, TypeCode: catalog.TypeDirectTopUp,
			RegionCode: "KZ", CurrencyCode: "KZT", IsActive: true, MinAmount: 500, MaxAmount: 50000, Step: 100,
			CustomerAccount: []catalog.AccountField{
				{Name: "phone_number", Label: "Phone", Required: true, Pattern: `\+7[0-9]{10}`},
				{Name: "email", Label: "Email", MaxLength: 64},
			}},
		{ID: pInactive, Name: "Old card", Slug: "old-card", CategoryID: 1, ProductTypeID: 1, TypeCode: catalog.TypeRedeemCard,
			RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: false, Price: 500},
		{ID: pTransfer, Name: "Transfer", Slug: "transfer-25", CategoryID: 1, ProductTypeID: 2, TypeCode: catalog.TypeDirectTransfer,
			RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 2500},
		{ID: pRange, Name: "Range card", Slug: "range-card", CategoryID: 1, ProductTypeID: 1, TypeCode: catalog.TypeRedeemCard,
			RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, MinAmount: 100, MaxAmount: 1000, Step: 100},
	},
}

type env struct {
	*apitest.Env
	svc *Service
	led *prepaid.Ledger
	n   atomic.Int64 // idempotency key counter
}

type envOpts struct {
	store  store.Store // nil: embedded
	serial bool
	ttl    time.Duration
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	e := &env{}
	build := func(d *app.Deps) (httpapi.Group, error) {
		e.svc = New(Config{Store: d.Store, Queue: d.Queue, Test: gatesupplier.New(), Clock: d.Clock, Log: d.Log, SerializeBalances: o.serial, ProductTTL: o.ttl})
		return e.svc.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: o.store}, build)
	e.led = prepaid.New(e.Deps.Store, e.Deps.Clock)
	require.NoError(t, catalog.NewRepo(e.Deps.Store).Load(context.Background(), e.Account.ID, testCatalog))
	return e
}

// dynamoStore is a store on DynamoDB Local (the test skips without it).
func dynamoStore(t testing.TB) store.Store { return dynamotest.New(t, nil) }

// backends runs f against the embedded store and DynamoDB Local.
func backends(t *testing.T, f func(t *testing.T, st func(testing.TB) store.Store)) {
	t.Run("embedded", func(t *testing.T) { f(t, func(testing.TB) store.Store { return nil }) })
	t.Run("dynamodb", func(t *testing.T) { f(t, dynamoStore) })
}

func (e *env) deposit(accountID, currency string, amount int64) {
	e.T.Helper()
	_, _, err := e.led.PostDeposit(context.Background(), accountID, prepaid.Deposit{Currency: currency, Amount: amount, Method: prepaid.MethodManual})
	require.NoError(e.T, err)
}

func (e *env) balance(accountID, currency string) int64 {
	e.T.Helper()
	b, err := e.led.Balance(context.Background(), accountID, currency)
	require.NoError(e.T, err)
	return b.Available
}

func (e *env) key() string { return fmt.Sprintf("key-%d-%d", time.Now().UnixNano(), e.n.Add(1)) }

// order posts an order with a fresh key.
func (e *env) order(body any) *apitest.Resp {
	e.T.Helper()
	return e.Do("POST", "/orders", body, "Idempotency-Key", e.key())
}

// drain runs the fulfilment consumer over whatever the queue holds now.
func (e *env) drain() int {
	e.T.Helper()
	p := &app.Poller{Queue: e.Deps.Queue, Name: queue.Fulfilment, Handler: app.SQSLambda(e.svc.Consume), Wait: time.Millisecond}
	total := 0
	for {
		res, err := p.Once(context.Background())
		require.NoError(e.T, err)
		if res.Received == 0 {
			return total
		}
		total += res.Received
	}
}

func (e *env) get(id string) map[string]any {
	e.T.Helper()
	r := e.Do("GET", "/orders/"+id, nil)
	require.Equal(e.T, 200, r.Status, string(r.Body))
	return r.Map(e.T)
}

// count returns how many orders the account has, via the list.
func (e *env) count() int {
	e.T.Helper()
	n, cursor := 0, ""
	for {
		path := "/orders?limit=100"
		if cursor != "" {
			path += "&cursor=" + cursor
		}
		r := e.Do("GET", path, nil)
		require.Equal(e.T, 200, r.Status, string(r.Body))
		var page struct {
			Data       []map[string]any `json:"data"`
			HasMore    bool             `json:"has_more"`
			NextCursor string           `json:"next_cursor"`
		}
		r.JSON(e.T, &page)
		n += len(page.Data)
		if !page.HasMore {
			return n
		}
		cursor = page.NextCursor
	}
}

func errParam(t testing.TB, r *apitest.Resp) (code, param string) {
	t.Helper()
	e := r.Err(t)
	require.NotNil(t, e, string(r.Body))
	p, _ := e["param"].(string)
	return e["code"].(string), p
}

func catalogRepo(e *env) *catalog.Repo { return catalog.NewRepo(e.Deps.Store) }
