package main

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// distributionAndSettlement: a paid invoice funds the merchant's KZT
// balance; a 500-line distribution credits a beneficiary, retried with one
// key; then settlement payment orders pay the beneficiary out in a burst,
// more than it holds, each retried with its own key. Checked: the
// distribution is made once (500 lines credited, the merchant debited
// once); every acknowledged payment order is paid once (one payment_order
// and one payment_order_paid entry); the beneficiary holds the
// distribution less what was paid, nothing reserved.
func distributionAndSettlement(ctx context.Context, r *run) result {
	lines := r.scale(50, 500)
	const perLine = 60000 // KZT minor units
	res := result{workload: "a 500-line distribution, settlement payment orders"}
	c := r.client()
	key := func(s string) string { return fmt.Sprintf("chaos-%d-%s", r.seed, s) }

	inv := c.do(ctx, "", http.MethodPost, "/v1/invoices", map[string]any{"amount": map[string]any{"value": 2 * lines * perLine, "currency": "KZT"},
		"payer": map[string]any{"phone": "+77011234567"}, "description": "chaos", "order_reference": key("invoice")}, key("invoice"))
	invID, _ := inv.Body["id"].(string)
	paid := c.do(ctx, "", http.MethodPost, "/test-helpers/invoices/"+invID+"/pay", map[string]any{}, key("invoice-pay"))
	if invID == "" || !paid.Definitive || (paid.Status != 200 && errField(paid.Body, "code") != "invoice_already_paid") {
		res.fail("setup", fmt.Sprintf("the invoice was not paid: %d %v %s", paid.Status, paid.Body, paid.Err))
		return res
	}
	// One line per beneficiary (a distribution names each once): lines
	// beneficiaries, made by workers, each with its own key.
	bens := make([]string, lines)
	var bwg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		bwg.Add(1)
		go func() {
			defer bwg.Done()
			for i := range next {
				b := c.do(ctx, "", http.MethodPost, "/v1/merchants/beneficiaries", map[string]any{"name": fmt.Sprintf("Chaos Beneficiary %d", i),
					"type": "person", "iin": testIIN(i), "iban": testIBAN(i), "bic": "CASPKZKA", "kbe": "19"}, key(fmt.Sprintf("beneficiary-%d", i)))
				bens[i], _ = b.Body["id"].(string)
			}
		}()
	}
	for i := range lines {
		next <- i
	}
	close(next)
	bwg.Wait()
	ls := make([]map[string]any, lines)
	for i, b := range bens {
		if b == "" {
			res.fail("setup", fmt.Sprintf("beneficiary %d was not made", i))
			return res
		}
		ls[i] = map[string]any{"beneficiary_id": b, "amount": map[string]any{"value": perLine, "currency": "KZT"}}
	}
	benID := bens[0]
	dist := c.do(ctx, "POST /v1/distributions", http.MethodPost, "/v1/distributions",
		map[string]any{"reference": key("distribution"), "lines": ls}, key("distribution"))
	if !dist.Definitive || dist.Status != 201 {
		res.fail("the distribution is made", fmt.Sprintf("%d %v %s", dist.Status, dist.Body, dist.Err))
		return res
	}
	res.acked++
	distID, _ := dist.Body["id"].(string)
	r.remember(distID)
	for _, b := range dist.Bodies {
		if b["id"] != distID {
			res.fail("every retry the same answer", fmt.Sprintf("distribution %v and %s", b["id"], distID))
		}
	}

	// Pay the first beneficiary out: eight orders of a sixth of what it holds.
	const n = 8
	amount := int64(perLine / 6)
	type op struct {
		key string
		ans answer
	}
	ops := make([]op, n)
	var wg sync.WaitGroup
	for i := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := &ops[i]
			o.key = key(fmt.Sprintf("payment-order-%d", i))
			o.ans = c.do(ctx, "POST /v1/merchants/settlement-payment-orders", http.MethodPost, "/v1/merchants/settlement-payment-orders",
				map[string]any{"beneficiary_id": benID, "amount": map[string]any{"value": amount, "currency": "KZT"},
					"purpose_code": "119", "description": "chaos", "request_id": o.key}, o.key)
		}()
	}
	wg.Wait()
	res.retries, res.longest = c.retryCount(), c.longest()
	res.p99 = map[string]time.Duration{}
	for _, route := range []string{"POST /v1/distributions", "POST /v1/merchants/settlement-payment-orders"} {
		res.p99[route] = c.p99(route)
	}

	r.quiesce(ctx)
	d := c.get(ctx, "/v1/distributions/"+distID)
	if credited, _ := d.Body["credited_lines"].(float64); int(credited) != lines {
		res.fail("the distribution is credited whole", fmt.Sprintf("%v of %d lines: %v", d.Body["credited_lines"], lines, d.Body["status"]))
	}
	var paidOut, waiting int64
	for _, o := range ops {
		switch {
		case o.ans.Definitive && o.ans.Status == 201:
			res.acked++
			id, _ := o.ans.Body["id"].(string)
			r.remember(id)
			p := r.settled(ctx, c, "/v1/merchants/settlement-payment-orders/"+id, r.remittancePatience(), "created", "sending")
			if (p.Body["status"] == "created" || p.Body["status"] == "sending") && r.Bounded {
				res.unknown++ // waiting for the re-queue: late, not lost
				waiting += amount
				continue
			}
			if p.Body["status"] != "paid" {
				res.fail("payment orders are paid", fmt.Sprintf("%s is %v", id, p.Body["status"]))
				continue
			}
			paidOut += amount
			for typ, want := range map[string]int{"payment_order": 1, "payment_order_paid": 1} {
				if got := r.entriesOf(ctx, c, typ, id); got != want {
					res.fail("paid once", fmt.Sprintf("%s has %d %s entries", id, got, typ))
					if got > want {
						res.duplicated++
					}
				}
			}
		case o.ans.Definitive && errField(o.ans.Body, "code") == "insufficient_balance":
		case o.ans.Definitive:
			res.fail("definitive answers", fmt.Sprintf("%s: %d %v", o.key, o.ans.Status, o.ans.Body))
		default:
			res.unknown++
		}
	}
	b := c.get(ctx, "/v1/merchants/beneficiaries/"+benID)
	var available, reserved int64
	for _, bal := range asMaps(b.Body["balances"]) {
		if bal["currency"] == "KZT" {
			a, _ := bal["available"].(float64)
			rs, _ := bal["reserved"].(float64)
			available, reserved = int64(a), int64(rs)
		}
	}
	if reserved != waiting {
		res.fail("only the payment orders still waiting stay reserved", fmt.Sprintf("%d reserved, %d waiting", reserved, waiting))
	}
	if res.unknown == int(waiting/amount) && available+reserved != perLine-paidOut {
		res.fail("the beneficiary holds its line less the payments", fmt.Sprintf("credited %d, paid %d, holds %d, reserved %d", perLine, paidOut, available, reserved))
	}
	return res
}

// testIIN is the i-th of a series of valid IINs (born 1990-01-01, a man,
// serial i, the official weighted mod 11 check digit).
func testIIN(i int) string {
	// Serials 2i and 2i+1 are i's alone; one in 121 has no check digit.
	for serial := 2 * i; serial < 2*i+2; serial++ {
		d := fmt.Sprintf("9001013%04d", serial)
		if c, ok := iinCheck(d); ok {
			return d + fmt.Sprint(c)
		}
	}
	return fmt.Sprintf("9001014%04d", i) // the century digit for women: checked as it comes
}

func iinCheck(d string) (int, bool) {
	for _, w := range [][]int{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4, 5, 6, 7, 8, 9, 10, 11, 1, 2}} {
		sum := 0
		for k, ch := range d {
			sum += int(ch-'0') * w[k]
		}
		if c := sum % 11; c != 10 {
			return c, true
		}
	}
	return 0, false
}

// testIBAN is a valid Kazakh IBAN at the sandbox bank (999), account i:
// one the bank pays.
func testIBAN(i int) string {
	bban := fmt.Sprintf("999%013d", 1000+i)
	n := new(big.Int)
	n.SetString(bban+"2035"+"00", 10) // K=20, Z=35, check digits 00
	check := 98 - new(big.Int).Mod(n, big.NewInt(97)).Int64()
	return fmt.Sprintf("KZ%02d%s", check, bban)
}

// asMaps is a JSON array of objects (or an object of objects) as maps.
func asMaps(v any) []map[string]any {
	var out []map[string]any
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	case map[string]any:
		for cur, e := range x {
			if m, ok := e.(map[string]any); ok {
				m["currency"] = cur
				out = append(out, m)
			}
		}
	}
	return out
}
