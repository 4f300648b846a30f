package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// payoutsInABurst: clients pay out of the merchant's EUR balance (filled by
// the card payments workload) at once, more than it holds, each payout
// retried with its own key. Checked: every acknowledged payout exists once
// and ends paid, paid once (one payout entry and one payout_paid entry in
// the ledger, whatever SQS redelivered); a refusal reserves nothing; the
// balance is its start less the payouts; nothing stays reserved.
func payoutsInABurst(ctx context.Context, r *run) result {
	res := result{workload: "payouts in a burst"}
	c := r.client()
	start, _ := r.eurBalance(ctx, c)
	if start <= 0 {
		res.fail("setup", fmt.Sprintf("no EUR balance to pay out (%d)", start))
		return res
	}
	card := c.do(ctx, "", http.MethodPost, "/v1/payouts/cards", map[string]any{"number": "4000056655665556",
		"expiry_month": 3, "expiry_year": 2030, "holder_name": "Chaos Payee"}, fmt.Sprintf("chaos-%d-payout-card", r.seed))
	cardID, _ := card.Body["id"].(string)
	if !card.Definitive || cardID == "" {
		res.fail("setup", fmt.Sprintf("the payout card was not saved: %d %v %s", card.Status, card.Body, card.Err))
		return res
	}
	n := r.scale(12, 40)
	amount := start / int64(n*2/3) // about two thirds of them fit
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
			o.key = fmt.Sprintf("chaos-%d-payout-%d", r.seed, i)
			o.ans = c.do(ctx, "POST /v1/payouts", http.MethodPost, "/v1/payouts", map[string]any{
				"amount": map[string]any{"value": amount, "currency": "EUR"}, "payout_card_id": cardID, "reference": o.key}, o.key)
		}()
	}
	wg.Wait()
	res.retries, res.longest = c.retryCount(), c.longest()
	res.p99 = map[string]time.Duration{"POST /v1/payouts": c.p99("POST /v1/payouts")}

	r.quiesce(ctx)
	var paid, waiting int64
	for _, o := range ops {
		switch {
		case o.ans.Definitive && o.ans.Status == 201:
			res.acked++
			id, _ := o.ans.Body["id"].(string)
			r.remember(id)
			for _, b := range o.ans.Bodies {
				if b["id"] != id {
					res.fail("every retry the same answer", fmt.Sprintf("%s answered %v and %s", o.key, b["id"], id))
				}
			}
			// A payout whose message died with the gateway (kill -9 between
			// the commit and the send, or in the consumer's hands) is sent
			// again by the settlement task: pending payouts older than
			// balance.RequeueAge, every SettleInterval (a minute each).
			began := time.Now()
			p := r.settled(ctx, c, "/v1/payouts/"+id, r.remittancePatience(), "pending", "in_transit")
			if d := time.Since(began); d > 10*time.Second {
				fmt.Fprintf(r.Log, "chaos: payout %s settled only after %s (%v)\n", id, d, p.Body)
			}
			switch {
			case !p.Definitive || p.Status != 200:
				res.lost++
				res.fail("acknowledged payouts exist", fmt.Sprintf("%s (%s): %d %s", o.key, id, p.Status, p.Err))
				continue
			case (p.Body["status"] == "pending" || p.Body["status"] == "in_transit") && r.Bounded:
				// Held, waiting for the settlement task's re-queue: late,
				// not lost (the bounded run does not wait the minutes).
				res.unknown++
				waiting += amount
				continue
			case p.Body["status"] != "paid":
				res.fail("payouts are paid", fmt.Sprintf("%s is %v", id, p.Body["status"]))
			default:
				paid += amount
			}
			for typ, want := range map[string]int{"payout": 1, "payout_paid": 1} {
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
	end, reserved := r.eurBalance(ctx, c)
	if reserved != waiting {
		res.fail("only the payouts still waiting stay reserved", fmt.Sprintf("%d reserved, %d waiting", reserved, waiting))
	}
	if end+reserved != start-paid && res.unknown == int(waiting/amount) {
		res.fail("balance = start - payouts", fmt.Sprintf("start %d, paid %d, available %d, reserved %d", start, paid, end, reserved))
	}
	return res
}

// eurBalance reads the merchant's EUR balance: available and reserved.
func (r *run) eurBalance(ctx context.Context, c *client) (available, reserved int64) {
	a := c.get(ctx, "/v1/balance")
	for _, b := range items(a.Body) {
		if b["currency"] == "EUR" {
			av, _ := b["available"].(float64)
			re, _ := b["reserved"].(float64)
			return int64(av), int64(re)
		}
	}
	return -1, -1
}

// remittancePatience is how long a payout or payment order may take to be
// paid: one whose message was lost (kill -9, a lost send or visibility
// change) is re-queued by the settlement task, pending for a minute and
// run every minute. The bounded run waits 30 s and counts the rest as
// waiting (and checks that their money is held).
func (r *run) remittancePatience() time.Duration {
	if r.Bounded {
		return 30 * time.Second
	}
	return 3 * time.Minute
}

// settled reads path until its status is none of pending (or patience
// ends).
func (r *run) settled(ctx context.Context, c *client, path string, patience time.Duration, pending ...string) answer {
	end := time.Now().Add(patience)
	for {
		a := c.get(ctx, path)
		still := false
		for _, p := range pending {
			still = still || a.Body["status"] == p
		}
		if !still || time.Now().After(end) || ctx.Err() != nil {
			return a
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// entriesOf counts the ledger entries of type typ whose source is id.
func (r *run) entriesOf(ctx context.Context, c *client, typ, id string) int {
	n := 0
	path := "/v1/balance/entries?limit=100&type=" + typ
	for {
		a := c.get(ctx, path)
		for _, e := range items(a.Body) {
			if src, ok := e["source"].(map[string]any); ok && src["id"] == id {
				n++
			}
		}
		next, _ := a.Body["next_cursor"].(string)
		if more, _ := a.Body["has_more"].(bool); !more || next == "" {
			return n
		}
		path = "/v1/balance/entries?limit=100&type=" + typ + "&cursor=" + url.QueryEscape(next)
	}
}
