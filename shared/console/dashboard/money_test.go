package dashboard_test

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/paygate/paygate/shared/pay/balance"
	"github.com/paygate/paygate/shared/pay/beneficiaries"
	"github.com/paygate/paygate/shared/pay/disputes"
	"github.com/paygate/paygate/shared/pay/invoices"
	"github.com/paygate/paygate/shared/pay/transactions"

	"github.com/paygate/paygate/shared/sandbox/bank"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/console/dashboard"
	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/domain/kzid"
	"github.com/paygate/paygate/shared/domain/payments"
	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// The money pages (payouts, beneficiaries with their payment orders and
// distributions, invoices, disputes): each checked against the API of its
// group, served beside the dashboard as deployed.

// newMoneyEnv serves the dashboard beside the transactions, balance and
// payouts, beneficiaries, invoices and disputes APIs.
func newMoneyEnv(t testing.TB, b backend) *env {
	t.Helper()
	e := &env{}
	clock := &apitest.Clock{}
	dash := func(d *app.Deps) (httpapi.Group, error) {
		s, err := dashboard.FromDeps(d)
		if err != nil {
			return httpapi.Group{}, err
		}
		e.dash = s.WithArgon(testArgon)
		return e.dash.Group(), nil
	}
	e.Env = apitest.NewWith(t, apitest.Options{Store: b.store(t, clock), Clock: clock}, dash,
		transactions.BuildTransactions, balance.BuildMerchantBalance, beneficiaries.BuildBeneficiaries, invoices.BuildInvoices, disputes.BuildDisputes)
	return e
}

// call is an API call with key (the env's when ""), under a fresh
// Idempotency-Key for a POST; it must answer want.
func (e *env) call(key, method, path string, body any, want int) map[string]any {
	e.T.Helper()
	if key == "" {
		key = e.Key
	}
	var r *apitest.Resp
	if method == "POST" {
		r = e.DoKey(key, method, path, body, "Idempotency-Key", "k-"+ids.New())
	} else {
		r = e.DoKey(key, method, path, body)
	}
	require.Equal(e.T, want, r.Status, "%s %s: %s", method, path, r.Body)
	return r.Map(e.T)
}

// money is one account's records of every money group, made through the
// APIs.
type money struct {
	account, key                                              string
	card, payout, beneficiary, order, distribution            string
	invoice, dispute, disputedPayment, fundedPayment, benName string
}

var ibanPaid = kzid.IBAN(bank.Code, "0000000000001")

// captured is a 100.00 EUR payment of the account, captured through the API
// (its amount available at once under the sandbox's settlement policy).
func (e *env) captured(account, key, ref string) string {
	e.T.Helper()
	id := e.seed(account, ref, payments.Authorized)
	e.call(key, "POST", "/v1/transactions/"+id+"/capture", nil, 200)
	return id
}

func (e *env) moneyOf(account, key string) money {
	e.T.Helper()
	m := money{account: account, key: key, benName: "Aigerim Sarsenova"}
	m.fundedPayment = e.captured(account, key, "order-funds")
	m.card = e.call(key, "POST", "/v1/payouts/cards", map[string]any{"number": "4000056655665556", "expiry_month": 3,
		"expiry_year": 2030, "holder_name": "J. Smith"}, 201)["id"].(string)
	m.payout = e.call(key, "POST", "/v1/payouts", map[string]any{"amount": map[string]any{"value": 1000, "currency": "EUR"},
		"payout_card_id": m.card, "reference": "payout-api"}, 201)["id"].(string)
	m.beneficiary = e.call(key, "POST", "/v1/merchants/beneficiaries", map[string]any{"name": m.benName, "type": "person",
		"iin": "900101300017", "iban": ibanPaid, "bic": "CASPKZKA", "kbe": "19"}, 201)["id"].(string)
	m.distribution = e.call(key, "POST", "/v1/distributions", map[string]any{"reference": "dist-1", "lines": []any{
		map[string]any{"beneficiary_id": m.beneficiary, "amount": map[string]any{"value": 3000, "currency": "EUR"}}}}, 201)["id"].(string)
	m.order = e.call(key, "POST", "/v1/merchants/settlement-payment-orders", map[string]any{"beneficiary_id": m.beneficiary,
		"amount": map[string]any{"value": 500, "currency": "EUR"}, "purpose_code": "119", "description": "Payout for May deliveries",
		"request_id": "req-" + ids.New()}, 201)["id"].(string)
	m.invoice = e.call(key, "POST", "/v1/invoices", map[string]any{"amount": map[string]any{"value": 500000, "currency": "KZT"},
		"payer": map[string]any{"phone": "+77011234567"}, "description": "Order 42: two bags of coffee", "order_reference": "order-42"}, 201)["id"].(string)
	m.disputedPayment = e.captured(account, key, "order-disputed")
	m.dispute = e.call(key, "POST", "/test-helpers/transactions/"+m.disputedPayment+"/dispute", nil, 201)["id"].(string)
	return m
}

func (m money) pages() []string {
	return []string{"/dashboard/payouts", "/dashboard/payouts/" + m.payout, "/dashboard/beneficiaries",
		"/dashboard/beneficiaries/" + m.beneficiary, "/dashboard/payment-orders", "/dashboard/payment-orders/" + m.order,
		"/dashboard/distributions", "/dashboard/distributions/" + m.distribution, "/dashboard/invoices",
		"/dashboard/invoices/" + m.invoice, "/dashboard/disputes", "/dashboard/disputes/" + m.dispute}
}

// keyOf is the idempotency key of the form that posts to action.
func keyOf(t testing.TB, p *page, action string) string {
	t.Helper()
	i := strings.Index(p.Body, `action="`+action+`"`)
	require.GreaterOrEqual(t, i, 0, "no form to %s", action)
	m := keyRe.FindStringSubmatch(p.Body[i:])
	require.NotNil(t, m)
	return m[1]
}

func TestMoneyPagesRenderForAnOwner(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		m := e.moneyOf(e.Account.ID, "")
		c := e.client()
		c.signIn(e.user("", dashboard.Owner))
		want := map[string][]string{
			"/dashboard/payouts":                         {m.payout, "payout-api", "visa •••• 5556", `id="create-payout"`, "pending"},
			"/dashboard/payouts/" + m.payout:             {"10.00 EUR", "reserved from the available balance", "payout-api"},
			"/dashboard/beneficiaries":                   {m.beneficiary, m.benName, `id="create-beneficiary"`},
			"/dashboard/beneficiaries/" + m.beneficiary:  {"25.00 EUR", "5.00 EUR", m.order, `id="transfer"`, `id="save-beneficiary"`},
			"/dashboard/payment-orders":                  {m.order, m.benName},
			"/dashboard/payment-orders/" + m.order:       {"Payout for May deliveries", "5.00 EUR", ibanPaid},
			"/dashboard/distributions":                   {m.distribution, "dist-1", "1 / 1 credited"},
			"/dashboard/distributions/" + m.distribution: {m.beneficiary, "30.00 EUR"},
			"/dashboard/invoices":                        {m.invoice, "order-42", `id="create-invoice"`},
			"/dashboard/invoices/" + m.invoice:           {"5,000.00 KZT", "Order 42: two bags of coffee", `id="cancel-invoice"`},
			"/dashboard/disputes":                        {m.dispute, "order-disputed", "needs_response"},
			"/dashboard/disputes/" + m.dispute:           {"100.00 EUR", "Opened (general)", `id="accept-dispute"`, `id="save-evidence"`},
		}
		for _, path := range m.pages() {
			p := c.get(path)
			require.Equal(t, 200, p.Status, "%s: %s", path, p.Body)
			for _, s := range want[path] {
				assert.Contains(t, p.Body, s, path)
			}
		}
		// The filters: a status narrows, an unknown one is a 400 page.
		assert.NotContains(t, c.get("/dashboard/payouts?status=paid").Body, m.payout)
		assert.Contains(t, c.get("/dashboard/disputes?status=needs_response").Body, m.dispute)
		assert.NotContains(t, c.get("/dashboard/invoices?status=paid").Body, m.invoice)
		for _, path := range []string{"/dashboard/payouts", "/dashboard/beneficiaries", "/dashboard/payment-orders",
			"/dashboard/distributions", "/dashboard/invoices", "/dashboard/disputes"} {
			assert.Equal(t, 400, c.get(path+"?status=nope").Status, path)
			assert.Equal(t, 400, c.get(path+"?cursor=nope").Status, path)
		}
		// The menu names each group.
		home := c.get("/dashboard").Body
		for _, s := range []string{`href="/dashboard/payouts"`, `href="/dashboard/beneficiaries"`, `href="/dashboard/invoices"`, `href="/dashboard/disputes"`} {
			assert.Contains(t, home, s)
		}
	})
}

func TestMoneyRecordsOfAnotherAccountAre404(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		other, otherKey := e.NewAccount(accounts.Test)
		theirs := e.moneyOf(other.ID, otherKey)
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Owner))
		for _, path := range theirs.pages() {
			if strings.Count(path, "/") < 3 {
				p := c.get(path)
				require.Equal(t, 200, p.Status, path)
				for _, id := range []string{theirs.payout, theirs.beneficiary, theirs.order, theirs.distribution, theirs.invoice, theirs.dispute} {
					assert.NotContains(t, p.Body, id, path)
				}
				continue
			}
			p := c.get(path)
			assert.Equal(t, 404, p.Status, path)
			assert.NotContains(t, p.Body, theirs.benName, path)
		}
		form := func(extra ...string) url.Values {
			v := url.Values{"csrf": {csrf}, "idempotency_key": {freshKey()}}
			for i := 0; i < len(extra); i += 2 {
				v.Set(extra[i], extra[i+1])
			}
			return v
		}
		for path, f := range map[string]url.Values{
			"/dashboard/beneficiaries/" + theirs.beneficiary:               form("name", "Taken over"),
			"/dashboard/beneficiaries/" + theirs.beneficiary + "/transfer": form("amount", "1.00", "currency", "EUR"),
			"/dashboard/invoices/" + theirs.invoice + "/cancel":            form(),
			"/dashboard/disputes/" + theirs.dispute + "/accept":            form(),
			"/dashboard/disputes/" + theirs.dispute + "/evidence":          form("description", "ours"),
			"/dashboard/disputes/" + theirs.dispute + "/submit":            form(),
		} {
			r := c.post(path, f)
			assert.Equal(t, 404, r.Status, path)
		}
		// A payout to their card is refused as a missing card.
		r := c.post("/dashboard/payouts", form("payout_card_id", theirs.card, "amount", "1.00", "currency", "EUR", "reference", "x"))
		assert.Equal(t, 404, r.Status)
		// Nothing of theirs changed.
		assert.Equal(t, theirs.benName, e.call(otherKey, "GET", "/v1/merchants/beneficiaries/"+theirs.beneficiary, nil, 200)["name"])
		assert.Equal(t, "created", e.call(otherKey, "GET", "/v1/invoices/"+theirs.invoice, nil, 200)["status"])
		d := e.call(otherKey, "GET", "/v1/disputes/"+theirs.dispute, nil, 200)
		assert.Equal(t, "needs_response", d["status"])
		assert.Empty(t, d["evidence"].(map[string]any)["description"])
		assert.Len(t, e.call(otherKey, "GET", "/v1/payouts", nil, 200)["data"], 1)
		assert.Empty(t, e.call("", "GET", "/v1/payouts", nil, 200)["data"])
	})
}

func TestViewerSeesNoMoneyButtonsAndIsRefusedThePosts(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		m := e.moneyOf(e.Account.ID, "")
		c := e.client()
		csrf := c.signIn(e.user("", dashboard.Viewer))
		for _, path := range m.pages() {
			p := c.get(path)
			require.Equal(t, 200, p.Status, path)
			assert.NotContains(t, p.Body, `method="post" action="/dashboard/`+strings.Split(path, "/")[2], path)
			for _, id := range []string{"create-payout", "create-beneficiary", "save-beneficiary", "transfer", "create-invoice",
				"cancel-invoice", "accept-dispute", "save-evidence", "submit-evidence"} {
				assert.NotContains(t, p.Body, `id="`+id+`"`, path)
			}
		}
		f := url.Values{"csrf": {csrf}, "idempotency_key": {"dash_v1"}, "amount": {"1.00"}, "currency": {"EUR"},
			"payout_card_id": {m.card}, "reference": {"viewer"}, "name": {"Viewer"}, "description": {"viewer"}}
		for _, path := range []string{"/dashboard/payouts", "/dashboard/beneficiaries", "/dashboard/beneficiaries/" + m.beneficiary,
			"/dashboard/beneficiaries/" + m.beneficiary + "/transfer", "/dashboard/invoices", "/dashboard/invoices/" + m.invoice + "/cancel",
			"/dashboard/disputes/" + m.dispute + "/accept", "/dashboard/disputes/" + m.dispute + "/evidence",
			"/dashboard/disputes/" + m.dispute + "/submit"} {
			assert.Equal(t, 403, c.post(path, f).Status, path)
		}
		assert.Len(t, e.call("", "GET", "/v1/payouts", nil, 200)["data"], 1)
		assert.Len(t, e.call("", "GET", "/v1/merchants/beneficiaries", nil, 200)["data"], 1)
		assert.Equal(t, m.benName, e.call("", "GET", "/v1/merchants/beneficiaries/"+m.beneficiary, nil, 200)["name"])
		assert.Equal(t, "created", e.call("", "GET", "/v1/invoices/"+m.invoice, nil, 200)["status"])
		assert.Equal(t, "needs_response", e.call("", "GET", "/v1/disputes/"+m.dispute, nil, 200)["status"])
	})
}

func TestMoneyPagesEscapeUserInput(t *testing.T) {
	e := newMoneyEnv(t, embedded)
	c := e.client()
	c.signIn(e.user("", dashboard.Owner))
	const evil = `<script>alert("x")</script>`
	const shown = `&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;`
	p := c.get("/dashboard/beneficiaries")
	r := c.post("/dashboard/beneficiaries", url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "name": {evil},
		"type": {"person"}, "identifier": {"900101300017"}, "iban": {ibanPaid}, "bic": {"CASPKZKA"}, "kbe": {"19"}})
	require.Equal(t, 303, r.Status, r.Body)
	ben := r.Header.Get("Location")
	p = c.get("/dashboard/invoices")
	r = c.post("/dashboard/invoices", url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "amount": {"12.50"},
		"currency": {"KZT"}, "payer_type": {"phone"}, "payer": {"+77011234567"}, "description": {evil}, "order_reference": {evil}})
	require.Equal(t, 303, r.Status, r.Body)
	inv := r.Header.Get("Location")
	for _, path := range []string{ben, "/dashboard/beneficiaries", inv, "/dashboard/invoices"} {
		p := c.get(path)
		require.Equal(t, 200, p.Status, path)
		assert.NotContains(t, p.Body, `<script>alert`, path)
		assert.Contains(t, p.Body, shown, path)
	}
	// A refused form draws what was typed again, escaped.
	p = c.get("/dashboard/beneficiaries")
	r = c.post("/dashboard/beneficiaries", url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "name": {evil},
		"type": {"person"}, "identifier": {"1"}})
	require.Equal(t, 400, r.Status)
	assert.NotContains(t, r.Body, `<script>alert`)
	assert.Contains(t, r.Body, shown)
}

func TestPayoutFromThePageTwiceMovesMoneyOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		e.captured(e.Account.ID, "", "order-funds")
		card := e.call("", "POST", "/v1/payouts/cards", map[string]any{"number": "4000056655665556", "expiry_month": 3,
			"expiry_year": 2030, "holder_name": "J. Smith"}, 201)["id"].(string)
		available := func() (avail, reserved float64) {
			for _, row := range e.call("", "GET", "/v1/balance", nil, 200)["data"].([]any) {
				if r := row.(map[string]any); r["currency"] == "EUR" {
					return r["available"].(float64), r["reserved"].(float64)
				}
			}
			return 0, 0
		}
		before, _ := available()
		require.Positive(t, before)
		c := e.client()
		c.signIn(e.user("", dashboard.Developer))
		p := c.get("/dashboard/payouts")
		form := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/payouts")}, "payout_card_id": {card},
			"amount": {"12.34"}, "currency": {"EUR"}, "reference": {"to my card"}}
		r := c.post("/dashboard/payouts", form)
		require.Equal(t, 303, r.Status, r.Body)
		id := strings.TrimPrefix(r.Header.Get("Location"), "/dashboard/payouts/")
		require.NotEmpty(t, id)
		// The same form again (a double click, a reload), and eight at once:
		// nothing more.
		assert.Equal(t, 303, c.post("/dashboard/payouts", form).Status)
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = c.post("/dashboard/payouts", form).Status
			}()
		}
		wg.Wait()
		for _, s := range statuses {
			assert.Contains(t, []int{303, 409}, s)
		}
		list := e.call("", "GET", "/v1/payouts", nil, 200)["data"].([]any)
		require.Len(t, list, 1)
		po := list[0].(map[string]any)
		assert.Equal(t, id, po["id"])
		assert.EqualValues(t, 1234, po["amount"].(map[string]any)["value"])
		after, reserved := available()
		assert.EqualValues(t, before-1234, after)
		assert.EqualValues(t, 1234, reserved)
		// The same key with another amount is refused, and moves nothing.
		form.Set("amount", "1.00")
		assert.Equal(t, 422, c.post("/dashboard/payouts", form).Status)
		// More than is available: a 400 page on the form, nothing reserved.
		p = c.get("/dashboard/payouts")
		big := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/payouts")}, "payout_card_id": {card},
			"amount": {"1000000.00"}, "currency": {"EUR"}, "reference": {"too much"}}
		r = c.post("/dashboard/payouts", big)
		assert.Equal(t, 400, r.Status)
		assert.Contains(t, r.Body, `id="err-amount"`)
		assert.Contains(t, r.Body, `value="too much"`)
		again, _ := available()
		assert.EqualValues(t, before-1234, again)
		// The payout's page, and its audit entry.
		pp := c.get("/dashboard/payouts/" + id)
		assert.Contains(t, pp.Body, "12.34 EUR")
		assert.Contains(t, pp.Body, "to my card")
		assertAudited(t, e, "payout.create", id)
	})
}

func assertAudited(t *testing.T, e *env, action, target string) {
	t.Helper()
	entries, _, err := e.dash.AuditLog(context.Background(), e.Account.ID, 100, "")
	require.NoError(t, err)
	n := 0
	for _, a := range entries {
		if a.Action == action && a.Target == target {
			n++
		}
	}
	assert.Equal(t, 1, n, "audit entries %s %s in %+v", action, target, entries)
}

func TestBeneficiaryFormsShowTheFieldsErrorsAndTransferOnce(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		e.captured(e.Account.ID, "", "order-funds")
		c := e.client()
		c.signIn(e.user("", dashboard.Owner))
		p := c.get("/dashboard/beneficiaries")
		base := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "name": {"Aigerim Sarsenova"}, "type": {"person"},
			"identifier": {"900101300018"}, "iban": {ibanPaid}, "bic": {"CASPKZKA"}, "kbe": {"19"}, "email": {"a@example.kz"}}
		// A wrong IIN check digit: the kzid message beside the field, what
		// was typed kept, nothing stored.
		r := c.post("/dashboard/beneficiaries", base)
		require.Equal(t, 400, r.Status)
		assert.Contains(t, r.Body, `id="err-identifier"`)
		assert.Contains(t, r.Body, `aria-describedby="err-identifier"`)
		assert.Contains(t, r.Body, `value="900101300018"`)
		assert.Contains(t, r.Body, `value="Aigerim Sarsenova"`)
		assert.Empty(t, e.call("", "GET", "/v1/merchants/beneficiaries", nil, 200)["data"])
		for field, bad := range map[string]string{"iban": "KZ00999X", "bic": "NOPE", "kbe": "17", "email": "not an address"} {
			f := url.Values{}
			for k, v := range base {
				f[k] = v
			}
			f.Set("identifier", "900101300017")
			f.Set(field, bad)
			f.Set("idempotency_key", freshKey())
			r := c.post("/dashboard/beneficiaries", f)
			require.Equal(t, 400, r.Status, field)
			assert.Contains(t, r.Body, `id="err-`+field+`"`, field)
		}
		base.Set("identifier", "900101300017")
		base.Set("idempotency_key", freshKey())
		r = c.post("/dashboard/beneficiaries", base)
		require.Equal(t, 303, r.Status, r.Body)
		id := strings.TrimPrefix(r.Header.Get("Location"), "/dashboard/beneficiaries/")
		assert.Equal(t, 303, c.post("/dashboard/beneficiaries", base).Status, "sent again: replayed")
		assert.Len(t, e.call("", "GET", "/v1/merchants/beneficiaries", nil, 200)["data"], 1)
		assertAudited(t, e, "beneficiary.create", id)
		// Edit: a bad IBAN is shown on the edit form; a good change lands.
		p = c.get("/dashboard/beneficiaries/" + id)
		edit := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/beneficiaries/"+id)}, "name": {"Aigerim S."},
			"iban": {"KZ12"}, "bic": {"CASPKZKA"}, "kbe": {"19"}, "email": {"a@example.kz"}, "status": {"active"}}
		r = c.post("/dashboard/beneficiaries/"+id, edit)
		require.Equal(t, 400, r.Status)
		assert.Contains(t, r.Body, `id="err-iban"`)
		edit.Set("iban", ibanPaid)
		edit.Set("status", "disabled")
		edit.Set("idempotency_key", freshKey())
		require.Equal(t, 303, c.post("/dashboard/beneficiaries/"+id, edit).Status)
		got := e.call("", "GET", "/v1/merchants/beneficiaries/"+id, nil, 200)
		assert.Equal(t, "Aigerim S.", got["name"])
		assert.Equal(t, "disabled", got["status"])
		assertAudited(t, e, "beneficiary.update", id)
		// Credit it (a distribution needs it active), then transfer from its
		// page, twice with the same form: moved once.
		edit.Set("status", "active")
		edit.Set("idempotency_key", freshKey())
		require.Equal(t, 303, c.post("/dashboard/beneficiaries/"+id, edit).Status)
		e.call("", "POST", "/v1/distributions", map[string]any{"reference": "dist-1", "lines": []any{
			map[string]any{"beneficiary_id": id, "amount": map[string]any{"value": 3000, "currency": "EUR"}}}}, 201)
		p = c.get("/dashboard/beneficiaries/" + id)
		tf := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/beneficiaries/"+id+"/transfer")},
			"amount": {"10.00"}, "currency": {"EUR"}}
		require.Equal(t, 303, c.post("/dashboard/beneficiaries/"+id+"/transfer", tf).Status)
		require.Equal(t, 303, c.post("/dashboard/beneficiaries/"+id+"/transfer", tf).Status)
		bals := e.call("", "GET", "/v1/merchants/beneficiaries/"+id, nil, 200)["balances"].([]any)
		assert.EqualValues(t, 2000, bals[0].(map[string]any)["available"])
		assertAudited(t, e, "beneficiary.transfer", id)
		// More than it holds: a 400 page, nothing moved.
		tf.Set("amount", "500.00")
		tf.Set("idempotency_key", freshKey())
		r = c.post("/dashboard/beneficiaries/"+id+"/transfer", tf)
		assert.Equal(t, 400, r.Status)
		assert.Contains(t, r.Body, `id="err-t-amount"`)
		bals = e.call("", "GET", "/v1/merchants/beneficiaries/"+id, nil, 200)["balances"].([]any)
		assert.EqualValues(t, 2000, bals[0].(map[string]any)["available"])
	})
}

func TestInvoiceCreateAndCancelFromThePages(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		c := e.client()
		c.signIn(e.user("", dashboard.Developer))
		p := c.get("/dashboard/invoices")
		f := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {p.idemKey(t)}, "amount": {"5000"}, "currency": {"KZT"},
			"payer_type": {"iin"}, "payer": {"900101300018"}, "description": {"Two bags of coffee"}, "order_reference": {"order-7"}, "expires_in": {"48"}}
		r := c.post("/dashboard/invoices", f)
		require.Equal(t, 400, r.Status, "a wrong IIN check digit")
		assert.Contains(t, r.Body, `id="err-payer"`)
		f.Set("payer", "900101300017")
		r = c.post("/dashboard/invoices", f)
		require.Equal(t, 303, r.Status, r.Body)
		id := strings.TrimPrefix(r.Header.Get("Location"), "/dashboard/invoices/")
		e.Clock.Advance(1e9)
		assert.Equal(t, 303, c.post("/dashboard/invoices", f).Status, "sent again a second later: replayed")
		require.Len(t, e.call("", "GET", "/v1/invoices", nil, 200)["data"], 1)
		inv := e.call("", "GET", "/v1/invoices/"+id, nil, 200)
		assert.EqualValues(t, 500000, inv["amount"].(map[string]any)["value"])
		assert.Equal(t, "900101300017", inv["payer"].(map[string]any)["iin"])
		assertAudited(t, e, "invoice.create", id)
		p = c.get("/dashboard/invoices/" + id)
		cf := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/invoices/"+id+"/cancel")}}
		require.Equal(t, 303, c.post("/dashboard/invoices/"+id+"/cancel", cf).Status)
		require.Equal(t, 303, c.post("/dashboard/invoices/"+id+"/cancel", cf).Status, "replayed")
		assert.Equal(t, "cancelled", e.call("", "GET", "/v1/invoices/"+id, nil, 200)["status"])
		assertAudited(t, e, "invoice.cancel", id)
		p = c.get("/dashboard/invoices/" + id)
		assert.NotContains(t, p.Body, `id="cancel-invoice"`)
		assert.Contains(t, p.Body, "Cancelled")
		cf.Set("idempotency_key", freshKey())
		assert.Equal(t, 409, c.post("/dashboard/invoices/"+id+"/cancel", cf).Status)
	})
}

func TestDisputeAcceptedFromThePageShowsInTheAPI(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		pay := e.captured(e.Account.ID, "", "order-d1")
		id := e.call("", "POST", "/test-helpers/transactions/"+pay+"/dispute", nil, 201)["id"].(string)
		c := e.client()
		c.signIn(e.user("", dashboard.Owner))
		p := c.get("/dashboard/disputes/" + id)
		require.Contains(t, p.Body, `id="accept-dispute"`)
		af := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/disputes/"+id+"/accept")}}
		require.Equal(t, 303, c.post("/dashboard/disputes/"+id+"/accept", af).Status)
		require.Equal(t, 303, c.post("/dashboard/disputes/"+id+"/accept", af).Status, "replayed")
		d := e.call("", "GET", "/v1/disputes/"+id, nil, 200)
		assert.Equal(t, "lost", d["status"])
		assert.Equal(t, "accepted", d["closed_reason"])
		assertAudited(t, e, "dispute.accept", id)
		p = c.get("/dashboard/disputes/" + id)
		assert.NotContains(t, p.Body, `id="accept-dispute"`)
		assert.Contains(t, p.Body, "Closed: lost (accepted)")
		af.Set("idempotency_key", freshKey())
		assert.Equal(t, 409, c.post("/dashboard/disputes/"+id+"/accept", af).Status)

		// Another: evidence, then submitted for review.
		pay2 := e.captured(e.Account.ID, "", "order-d2")
		id2 := e.call("", "POST", "/test-helpers/transactions/"+pay2+"/dispute", nil, 201)["id"].(string)
		p = c.get("/dashboard/disputes/" + id2)
		assert.NotContains(t, p.Body, `id="submit-evidence"`, "nothing to submit yet")
		ef := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/disputes/"+id2+"/evidence")},
			"description": {"Delivered on 3 May; signed by the cardholder."}}
		require.Equal(t, 303, c.post("/dashboard/disputes/"+id2+"/evidence", ef).Status)
		p = c.get("/dashboard/disputes/" + id2)
		sf := url.Values{"csrf": {p.csrf(t)}, "idempotency_key": {keyOf(t, p, "/dashboard/disputes/"+id2+"/submit")}}
		require.Equal(t, 303, c.post("/dashboard/disputes/"+id2+"/submit", sf).Status)
		d = e.call("", "GET", "/v1/disputes/"+id2, nil, 200)
		assert.Equal(t, "under_review", d["status"])
		assert.Equal(t, "Delivered on 3 May; signed by the cardholder.", d["evidence"].(map[string]any)["description"])
		assertAudited(t, e, "dispute.evidence", id2)
		assertAudited(t, e, "dispute.submit", id2)
		p = c.get("/dashboard/disputes/" + id2)
		assert.Contains(t, p.Body, "Evidence submitted")
		assert.NotContains(t, p.Body, `id="accept-dispute"`)
	})
}

// freshKey is a form's idempotency key never sent before.
func freshKey() string { return "dash_" + strings.ReplaceAll(ids.New(), "-", "") }

// TestMoneyListsPage: a money list's next-page link carries its cursor and
// its filter as a URL (the next page is the next, not the first again) and
// the pages together show every record once; on both stores.
func TestMoneyListsPage(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newMoneyEnv(t, b)
		made := map[string]bool{}
		for i := range 30 {
			id := e.call("", "POST", "/v1/invoices", map[string]any{"amount": map[string]any{"value": 1000 + i, "currency": "KZT"},
				"payer": map[string]any{"phone": "+77011234567"}, "description": fmt.Sprintf("invoice %d", i), "order_reference": fmt.Sprintf("order-%d", i)}, 201)["id"].(string)
			made[id] = true
		}
		c := e.client()
		c.signIn(e.user("", dashboard.Owner))
		next := regexp.MustCompile(`href="/dashboard/invoices\?([^"]+)">Next page`)
		seen := map[string]int{}
		path := "/dashboard/invoices?status=created"
		for pages := 0; path != ""; pages++ {
			require.Less(t, pages, 5, "the pages never end")
			p := c.get(path)
			require.Equal(t, 200, p.Status, p.Body)
			for id := range made {
				if strings.Contains(p.Body, `href="/dashboard/invoices/`+id+`"`) {
					seen[id]++
				}
			}
			path = ""
			if m := next.FindStringSubmatch(p.Body); m != nil {
				q, err := url.ParseQuery(html.UnescapeString(m[1]))
				require.NoError(t, err)
				assert.Equal(t, "created", q.Get("status"), "the filter goes on")
				require.NotEmpty(t, q.Get("cursor"))
				path = "/dashboard/invoices?" + html.UnescapeString(m[1])
			}
		}
		assert.Len(t, seen, len(made))
		for id, n := range seen {
			assert.Equal(t, 1, n, "invoice %s shown on %d pages", id, n)
		}
	})
}
