package dashboard_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
)

// The money pages in headless Chromium: each page screenshotted and
// audited with axe-core (no serious or critical violation), a payout made
// and a dispute accepted in the browser and checked through the API, a
// beneficiary form refused with its field's error shown.

func newMoneyWeb(t *testing.T) *web {
	t.Helper()
	return newWebOn(t, func() *env { return newMoneyEnv(t, embedded) })
}

func TestBrowserMoneyPages(t *testing.T) {
	w := newMoneyWeb(t)
	m := w.moneyOf(w.Account.ID, "")
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Owner), password)
	shots := map[string]string{
		"/dashboard/payouts": "payouts", "/dashboard/payouts/" + m.payout: "payout",
		"/dashboard/beneficiaries": "beneficiaries", "/dashboard/beneficiaries/" + m.beneficiary: "beneficiary",
		"/dashboard/payment-orders": "payment-orders", "/dashboard/payment-orders/" + m.order: "payment-order",
		"/dashboard/distributions": "distributions", "/dashboard/distributions/" + m.distribution: "distribution",
		"/dashboard/invoices": "invoices", "/dashboard/invoices/" + m.invoice: "invoice",
		"/dashboard/disputes": "disputes", "/dashboard/disputes/" + m.dispute: "dispute",
	}
	for _, path := range m.pages() {
		w.open(t, tab, path)
		assert.NotEqual(t, "Not found", text(t, tab, "h1"), path)
		w.look(t, tab, shots[path])
	}

	// A payout from the page: the API shows it, and the amount reserved.
	w.open(t, tab, "/dashboard/payouts")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`form[action="/dashboard/payouts"] input[name=amount]`), "7.50"),
		chromedp.SendKeys(chromedp.CSS(`form[action="/dashboard/payouts"] input[name=reference]`), "weekly payout"))
	submit(t, tab, "#create-payout")
	assert.Contains(t, text(t, tab, "h1"), "7.50 EUR", "the payout's page")
	w.look(t, tab, "payout-created")
	payouts := w.call("", "GET", "/v1/payouts", nil, 200)["data"].([]any)
	require.Len(t, payouts, 2)
	assert.Equal(t, "weekly payout", payouts[0].(map[string]any)["reference"])

	// A beneficiary with a wrong IIN: the form says so beside the field.
	w.open(t, tab, "/dashboard/beneficiaries")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Dana Nurlanovna"),
		chromedp.SendKeys(chromedp.CSS(`input[name=identifier]`), "900101300018"),
		chromedp.SendKeys(chromedp.CSS(`input[name=iban]`), ibanPaid),
		chromedp.SendKeys(chromedp.CSS(`input[name=bic]`), "CASPKZKA"),
		chromedp.SendKeys(chromedp.CSS(`input[name=kbe]`), "19"))
	submit(t, tab, "#create-beneficiary")
	assert.NotEmpty(t, text(t, tab, "#err-identifier"))
	w.look(t, tab, "beneficiary-refused")

	// A dispute accepted in the browser is lost in the API's view.
	w.open(t, tab, "/dashboard/disputes/"+m.dispute)
	submit(t, tab, "#accept-dispute")
	assert.Equal(t, "lost", text(t, tab, "#dispute-status"))
	w.look(t, tab, "dispute-accepted")
	d := w.call("", "GET", "/v1/disputes/"+m.dispute, nil, 200)
	assert.Equal(t, "lost", d["status"])
	assert.Equal(t, "accepted", d["closed_reason"])

	// A viewer sees no payout form, and posting it anyway is 403.
	viewer := w.tab(t)
	w.signIn(t, viewer, w.user("", dashboard.Viewer), password)
	w.open(t, viewer, "/dashboard/payouts")
	n, err := chromedp.Run(viewer, chromedp.Evaluate[int](`document.querySelectorAll("#create-payout, form[method=post][action='/dashboard/payouts']").length`))
	require.NoError(t, err)
	assert.Zero(t, n)
	w.look(t, viewer, "payouts-viewer")
	status, err := chromedp.Run(viewer, chromedp.Evaluate[int](fmt.Sprintf(`(async () => {
		const page = await (await fetch("/dashboard/payouts")).text();
		const csrf = page.match(/name="csrf" value="([^"]+)"/)[1];
		const r = await fetch("/dashboard/payouts", {method: "POST", redirect: "manual",
			headers: {"Content-Type": "application/x-www-form-urlencoded"},
			body: new URLSearchParams({csrf, idempotency_key: "dash_viewer_payout", payout_card_id: %q, amount: "1.00", currency: "EUR", reference: "x"})});
		return r.status; })()`, m.card), chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.Equal(t, 403, status)
	assert.Len(t, w.call("", "GET", "/v1/payouts", nil, 200)["data"], 2)
}

// TestBrowserPayoutCardsAndCancel: a payout card saved on the payouts page
// (the number typed as people do, never shown again), a refused one with
// its field's error and an empty number field, a payout made to it and
// cancelled from its page after the confirmation (declined first: nothing
// happens), and the card deleted after its confirmation; each checked
// through the API, each page screenshotted and audited with axe-core.
func TestBrowserPayoutCardsAndCancel(t *testing.T) {
	w := newMoneyWeb(t)
	w.captured(w.Account.ID, "", "order-funds") // 100.00 EUR available
	tab := w.tab(t)
	w.signIn(t, tab, w.user("", dashboard.Owner), password)

	// Saved: the cards table shows its brand and last four digits only.
	w.open(t, tab, "/dashboard/payouts")
	w.look(t, tab, "payouts-no-card")
	fillCard(t, tab, "4000 0566 5566 5556", "3", "2030", "J. Smith")
	submit(t, tab, "#save-card")
	cards := w.call("", "GET", "/v1/payouts/cards", nil, 200)["data"].([]any)
	require.Len(t, cards, 1)
	card := cards[0].(map[string]any)["id"].(string)
	assert.Contains(t, text(t, tab, "#card-"+card), "visa •••• 5556")
	body := text(t, tab, "main")
	assert.NotContains(t, body, "0566")
	w.look(t, tab, "payout-card-saved")

	// Refused: an amex number; the error beside the field, the number not
	// drawn again, the rest kept.
	fillCard(t, tab, "3700 0000 0000 002", "3", "2030", "J. Smith")
	submit(t, tab, "#save-card")
	assert.Contains(t, text(t, tab, "#err-number"), "visa and mc")
	typed, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector("input[name=number]").value + "|" + document.querySelector("input[name=holder_name]").value`))
	require.NoError(t, err)
	assert.Equal(t, "|J. Smith", typed)
	w.look(t, tab, "payout-card-refused")
	assert.Len(t, w.call("", "GET", "/v1/payouts/cards", nil, 200)["data"], 1)

	// A payout to it, then its cancel: declined at the confirmation first.
	w.open(t, tab, "/dashboard/payouts")
	do(t, tab,
		chromedp.SendKeys(chromedp.CSS(`form[action="/dashboard/payouts"] input[name=amount]`), "25.00"),
		chromedp.SendKeys(chromedp.CSS(`form[action="/dashboard/payouts"] input[name=reference]`), "to cancel"))
	submit(t, tab, "#create-payout")
	assert.Equal(t, "pending", text(t, tab, "#payout-status"))
	w.look(t, tab, "payout-pending")
	asked, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => { let asked = "";
		window.confirm = (m) => { asked = m; return false; };
		document.querySelector("#cancel-payout").click(); return asked; })()`))
	require.NoError(t, err)
	assert.Equal(t, "Cancel this payout of 25.00 EUR? The amount goes back to the available balance.", asked)
	assert.Equal(t, "pending", text(t, tab, "#payout-status"), "declined: nothing sent")
	payouts := w.call("", "GET", "/v1/payouts", nil, 200)["data"].([]any)
	require.Len(t, payouts, 1)
	id := payouts[0].(map[string]any)["id"].(string)
	assert.Equal(t, "pending", payouts[0].(map[string]any)["status"])

	do(t, tab, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`))
	submit(t, tab, "#cancel-payout")
	assert.Equal(t, "cancelled", text(t, tab, "#payout-status"))
	assert.Contains(t, text(t, tab, "main"), "Cancelled: the amount went back to the available balance")
	w.look(t, tab, "payout-cancelled")
	assert.Equal(t, "cancelled", w.call("", "GET", "/v1/payouts/"+id, nil, 200)["status"])
	bal := w.call("", "GET", "/v1/balance", nil, 200)["data"].([]any)[0].(map[string]any)
	assert.EqualValues(t, 10000, bal["available"])
	assert.EqualValues(t, 0, bal["reserved"])

	// The card deleted after its confirmation.
	w.open(t, tab, "/dashboard/payouts")
	do(t, tab, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`))
	submit(t, tab, "#delete-card-"+card)
	assert.Contains(t, text(t, tab, "main"), "No payout cards.")
	w.look(t, tab, "payout-card-deleted")
	assert.Empty(t, w.call("", "GET", "/v1/payouts/cards", nil, 200)["data"])
}

// fillCard types a card into the save card form, replacing what is there.
func fillCard(t *testing.T, tab context.Context, number, month, year, holder string) {
	t.Helper()
	form := `form[action="/dashboard/payout-cards"] `
	do(t, tab,
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll('`+form+`input:not([type=hidden])').forEach(i => { i.value = ""; })`),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=number]`), number),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=expiry_month]`), month),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=expiry_year]`), year),
		chromedp.SendKeys(chromedp.CSS(form+`input[name=holder_name]`), holder))
}
