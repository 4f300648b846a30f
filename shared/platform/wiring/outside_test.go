package wiring_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/banking"
	"github.com/paygate/paygate/shared/domain/cardpayouts"
	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/connectors"
	"github.com/paygate/paygate/shared/domain/disputedesk"
	"github.com/paygate/paygate/shared/domain/phonewallet"
	"github.com/paygate/paygate/shared/domain/supplier"
	"github.com/paygate/paygate/shared/gate/catalog"
	"github.com/paygate/paygate/shared/gate/prepaid"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/sandbox/bank"
	"github.com/paygate/paygate/shared/sandbox/cardprocessor"
	"github.com/paygate/paygate/shared/sandbox/gatesupplier"
	"github.com/paygate/paygate/shared/sandbox/issuer"
	"github.com/paygate/paygate/shared/sandbox/payoutprocessor"
	"github.com/paygate/paygate/shared/sandbox/walletprovider"
	"github.com/paygate/paygate/shared/store/boltstore"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestEveryOutsideCallGoesThroughAPort: the whole API (every HTTP group and
// queue consumer, as wiring builds them) runs with each outside system
// replaced by a counting adapter around its sandbox, and a merchant's and a
// reseller's day (a card payment, a payout, a payment order, a phone-wallet
// payment, a dispute, a Gate order) reaches every system through it, and
// only through it: each sandbox the test made answered exactly the calls its
// counting adapter passed on. With the import rule that only
// platform/connect picks a sandbox, no area reaches an outside system
// any other way.
func TestEveryOutsideCallGoesThroughAPort(t *testing.T) {
	clock := &apitest.Clock{}
	st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock.Now)
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })

	n := &calls{counts: map[string]int{}}
	payouts, banks := payoutprocessor.New(st, clock.Now), bank.New(st, clock.Now)
	set := connectors.Set{
		Cards:       countingCards{cardprocessor.New(), n},
		Payouts:     countingPayouts{payouts, n},
		Bank:        countingBank{banks, n},
		PhoneWallet: countingWallet{walletprovider.New(time.Nanosecond), n},
		DisputeDesk: countingDesk{issuer.New(), n},
		Supplier:    countingSupplier{gatesupplier.New(), n},
	}
	e := apitest.NewWith(t, apitest.Options{Store: st, Clock: clock, Connectors: set}, wiring.HTTP()...)
	post := func(path string, body any) map[string]any {
		t.Helper()
		r := e.Do("POST", path, body, "Idempotency-Key", path+time.Now().String())
		require.Less(t, r.Status, 300, "%s: %s", path, r.Body)
		return r.Map(t)
	}

	// A card payment (captured at once), then disputed with winning evidence.
	pay := post("/v2/payments", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"}, "reference": "order-1",
		"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
			"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03",
			"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}})
	require.Equal(t, "Authorised", pay["resultCode"])
	psp := pay["pspReference"].(string)
	dispute := post("/test-helpers/transactions/"+psp+"/dispute", nil)["id"].(string)
	// A second payment refunded in part through the Adyen face, and a
	// third, held for manual capture, captured in part; a fourth cancelled.
	pay2 := func(ref string, manual bool) string {
		body := map[string]any{"amount": map[string]any{"value": 2000, "currency": "EUR"}, "reference": ref,
			"returnUrl": "https://shop.example.com/return", "paymentMethod": map[string]any{"type": "scheme",
				"encryptedCardNumber": "test_4111111111111111", "encryptedExpiryMonth": "test_03",
				"encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"}}
		if manual {
			body["additionalData"] = map[string]any{"manualCapture": "true"}
		}
		return post("/v2/payments", body)["pspReference"].(string)
	}
	post("/v2/payments/"+pay2("order-3", false)+"/refunds", map[string]any{"merchantAccount": e.Account.MerchantAccount, "amount": map[string]any{"value": 500, "currency": "EUR"}})
	post("/v1/transactions/"+pay2("order-4", true)+"/capture", map[string]any{"amount": 1500})
	post("/v1/transactions/"+pay2("order-5", true)+"/cancel", nil)
	post("/v1/disputes/"+dispute+"/evidence", map[string]any{"description": issuer.WinningEvidence})
	post("/v1/disputes/"+dispute+"/submit", nil)

	// A bank invoice paid in the sandbox funds KZT; a payout to a card and a
	// payment order to a beneficiary draw on it.
	invoice := post("/v1/invoices", map[string]any{"amount": map[string]any{"value": 500000, "currency": "KZT"},
		"payer": map[string]any{"phone": "+77011234567"}, "description": "Order 1001", "order_reference": "order-1001"})["id"].(string)
	post("/test-helpers/invoices/"+invoice+"/pay", nil)
	card := post("/v1/payouts/cards", map[string]any{"number": "4000056655665556", "expiry_month": 3, "expiry_year": 2030,
		"holder_name": "J. Smith"})["id"].(string)
	post("/v1/payouts", map[string]any{"amount": map[string]any{"value": 1000, "currency": "KZT"}, "payout_card_id": card, "reference": "payout-1"})
	ben := post("/v1/merchants/beneficiaries", map[string]any{"name": "Aigerim Sarsenova", "type": "person", "iin": "900101300017",
		"iban": "KZ699990000000000001", "bic": "CASPKZKA", "kbe": "19"})["id"].(string)
	post("/v1/distributions", map[string]any{"reference": "payroll-1",
		"lines": []any{map[string]any{"beneficiary_id": ben, "amount": map[string]any{"value": 3000, "currency": "KZT"}}}})
	post("/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": ben,
		"amount": map[string]any{"value": 2000, "currency": "KZT"}, "purpose_code": "119", "description": "May", "request_id": "po-1"})

	// A phone-wallet payment the shopper approves.
	post("/v1/wallet/authorize", map[string]any{"amount": 1000, "phoneNumber": walletprovider.PhoneApprove, "iin": "900101300017",
		"orderReference": "order-2", "currency": "KZT"})

	// A reseller's Gate order, fulfilled by the supplier.
	require.NoError(t, catalog.NewRepo(st).Load(context.Background(), e.Account.ID, &catalog.File{ProductTypes: catalog.StandardTypes,
		Categories: []catalog.Category{{ID: 1, Name: "Games", Slug: "games"}},
		Products: []catalog.Product{{ID: 1, Name: "Steam 10", Slug: "steam-10", CategoryID: 1, ProductTypeID: 1,
			TypeCode: catalog.TypeRedeemCard, RegionCode: "GLOBAL", CurrencyCode: "USD", IsActive: true, Price: 1000}}}))
	_, _, err = prepaid.New(st, clock.Now).PostDeposit(context.Background(), e.Account.ID, prepaid.Deposit{Currency: "USD", Amount: 5000, Method: prepaid.MethodManual})
	require.NoError(t, err)
	post("/orders", map[string]any{"product_id": 1})

	// Every queue consumer, as the functions run them, until the queues
	// are empty; then the dispute's review ends and the sweeper applies it.
	drainAll(t, e.Deps)
	clock.Advance(issuer.Review)
	for _, task := range wiring.Periodic() {
		run, err := task.Build(e.Deps)
		require.NoError(t, err)
		require.NoError(t, run(context.Background()), task.Function)
	}

	for _, call := range []string{"cards.AuthoriseCard", "cards.Capture", "cards.Cancel", "cards.Refund", "payouts.Enrol", "payouts.Pay", "bank.Pay", "wallet.CheckCurrency",
		"wallet.Answer", "desk.Submit", "supplier.Fulfil"} {
		assert.Positive(t, n.get(call), "%s never went through its port", call)
	}
	assert.EqualValues(t, n.get("payouts.Pay"), payouts.Calls.Load(), "the payout sandbox answered only what its port passed on")
	assert.EqualValues(t, n.get("bank.Pay"), banks.Calls.Load(), "the bank sandbox answered only what its port passed on")
	assert.Equal(t, "won", e.Do("GET", "/v1/disputes/"+dispute, nil).Map(t)["status"])
}

// drainAll runs every queue consumer until no queue holds a message.
func drainAll(t *testing.T, d *app.Deps) {
	t.Helper()
	var pollers []*app.Poller
	for _, c := range wiring.SQS() {
		h, err := c.Build(d)
		require.NoError(t, err, c.Function)
		// The function's timeout, as Lambda gives it (the webhook sender
		// starts no attempt too close to its deadline).
		pollers = append(pollers, &app.Poller{Queue: d.Queue, Name: c.Queue, Handler: app.SQSLambda(h), Wait: time.Millisecond,
			Timeout: c.Timeout, Visibility: 6 * c.Timeout})
	}
	for range 20 {
		got := 0
		for _, p := range pollers {
			res, err := p.Once(context.Background())
			require.NoError(t, err)
			got += res.Received
		}
		if got == 0 {
			return
		}
	}
	t.Fatal("the queues never emptied")
}

// calls counts the calls each port passed on.
type calls struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *calls) add(name string) { c.mu.Lock(); c.counts[name]++; c.mu.Unlock() }

func (c *calls) get(name string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.counts[name] }

type countingCards struct {
	cards.Processor
	n *calls
}

func (c countingCards) AuthoriseCard(ctx context.Context, ch cards.Charge, card cards.Card) (cards.Outcome, error) {
	c.n.add("cards.AuthoriseCard")
	return c.Processor.AuthoriseCard(ctx, ch, card)
}

func (c countingCards) Capture(ctx context.Context, m cards.Modification) error {
	c.n.add("cards.Capture")
	return c.Processor.Capture(ctx, m)
}

func (c countingCards) Cancel(ctx context.Context, m cards.Modification) error {
	c.n.add("cards.Cancel")
	return c.Processor.Cancel(ctx, m)
}

func (c countingCards) Refund(ctx context.Context, m cards.Modification) error {
	c.n.add("cards.Refund")
	return c.Processor.Refund(ctx, m)
}

type countingPayouts struct {
	cardpayouts.Processor
	n *calls
}

func (c countingPayouts) Enrol(number string) cardpayouts.Reference {
	c.n.add("payouts.Enrol")
	return c.Processor.Enrol(number)
}

func (c countingPayouts) Pay(ctx context.Context, r cardpayouts.Request) (cardpayouts.Result, error) {
	c.n.add("payouts.Pay")
	return c.Processor.Pay(ctx, r)
}

type countingBank struct {
	banking.Bank
	n *calls
}

func (c countingBank) Pay(ctx context.Context, r banking.Request) (banking.Result, error) {
	c.n.add("bank.Pay")
	return c.Bank.Pay(ctx, r)
}

type countingWallet struct {
	phonewallet.Provider
	n *calls
}

func (c countingWallet) CheckCurrency(currency string) error {
	c.n.add("wallet.CheckCurrency")
	return c.Provider.CheckCurrency(currency)
}

func (c countingWallet) Answer(phone string, age time.Duration) (phonewallet.Answer, time.Duration) {
	c.n.add("wallet.Answer")
	return c.Provider.Answer(phone, age)
}

type countingDesk struct {
	disputedesk.Desk
	n *calls
}

func (c countingDesk) Submit(ctx context.Context, ev disputedesk.Evidence, now time.Time) (disputedesk.Decision, error) {
	c.n.add("desk.Submit")
	return c.Desk.Submit(ctx, ev, now)
}

type countingSupplier struct {
	supplier.TestSupplier
	n *calls
}

func (c countingSupplier) Fulfil(ctx context.Context, r supplier.Request) (supplier.Result, error) {
	c.n.add("supplier.Fulfil")
	return c.TestSupplier.Fulfil(ctx, r)
}
