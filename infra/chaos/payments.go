package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// cardPayments: clients authorise card payments for manual capture,
// capture part of each and refund part of the capture, every step retried
// with its own key until a definitive answer. Checked: each acknowledged
// payment exists once under its reference, with the capture and the
// refund applied once each; every answer to a key named one resource; and
// (with the other workloads, at the end) the merchant ledger re-derives.
func cardPayments(ctx context.Context, r *run) result {
	const amount, capture, refund = 1000, 600, 250
	res := result{workload: "card payments, captures, refunds"}
	c := r.client()
	n := r.scale(12, 40)
	type flow struct {
		ref             string
		pay, capt, refd answer
		payID           string
	}
	flows := make([]flow, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for range r.scale(4, 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := &flows[i]
				f.ref = fmt.Sprintf("chaos-%d-pay-%d", r.seed, i)
				f.pay = c.do(ctx, "POST /v2/payments", http.MethodPost, "/v2/payments", map[string]any{
					"amount": map[string]any{"value": amount, "currency": "EUR"}, "reference": f.ref,
					"returnUrl": "https://shop.example.com/return",
					"paymentMethod": map[string]any{"type": "scheme", "encryptedCardNumber": "test_4111111111111111",
						"encryptedExpiryMonth": "test_03", "encryptedExpiryYear": "test_2030", "encryptedSecurityCode": "test_737"},
					"additionalData": map[string]any{"manualCapture": "true"}}, f.ref+"-pay")
				if !f.pay.Definitive || f.pay.Status != 200 || f.pay.Body["resultCode"] != "Authorised" {
					continue
				}
				f.payID, _ = f.pay.Body["pspReference"].(string)
				f.capt = c.do(ctx, "POST /v1/transactions/{id}/capture", http.MethodPost, "/v1/transactions/"+f.payID+"/capture",
					map[string]any{"amount": capture, "final": true}, f.ref+"-capture")
				if !f.capt.Definitive || f.capt.Status != 200 {
					continue
				}
				f.refd = c.do(ctx, "POST /v1/transactions/{id}/refund", http.MethodPost, "/v1/transactions/"+f.payID+"/refund",
					map[string]any{"amount": refund, "reason": "requested_by_customer"}, f.ref+"-refund")
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	res.retries, res.longest = c.retryCount(), c.longest()
	res.p99 = map[string]time.Duration{}
	for _, route := range []string{"POST /v2/payments", "POST /v1/transactions/{id}/capture", "POST /v1/transactions/{id}/refund"} {
		res.p99[route] = c.p99(route)
	}

	r.quiesce(ctx)
	for _, f := range flows {
		list := c.get(ctx, "/v1/transactions/by-order-reference/"+f.ref)
		if !list.Definitive || list.Status != 200 {
			res.fail("read back", fmt.Sprintf("%s: %d %v %s", f.ref, list.Status, list.Body, list.Err))
			continue
		}
		var payments, refunds []map[string]any
		for _, tx := range items(list.Body) {
			id, _ := tx["id"].(string)
			r.remember(id)
			switch tx["type"] {
			case "payment":
				payments = append(payments, tx)
			case "refund":
				refunds = append(refunds, tx)
			}
		}
		if len(payments) > 1 || len(refunds) > 1 {
			res.duplicated++
			res.fail("one effect per key", fmt.Sprintf("%s holds %d payments and %d refunds", f.ref, len(payments), len(refunds)))
		}
		for _, a := range []answer{f.pay, f.capt, f.refd} {
			if !a.Definitive {
				if a.Attempts > 0 {
					res.unknown++
				}
				continue
			}
			res.acked++
			first := a.Bodies
			for _, b := range first {
				if id(b) != id(first[0]) {
					res.fail("every retry the same answer", fmt.Sprintf("%s: %s then %s", f.ref, id(first[0]), id(b)))
				}
			}
		}
		if f.pay.Definitive && f.pay.Status == 200 && len(payments) == 0 {
			res.lost++
			res.fail("acknowledged payments exist", f.ref+" was authorised and is not listed")
			continue
		}
		if len(payments) != 1 {
			continue
		}
		p := payments[0]
		wantCaptured, wantRefunded := 0.0, 0.0
		if f.capt.Definitive && f.capt.Status == 200 {
			wantCaptured = capture
		}
		if f.refd.Definitive && f.refd.Status/100 == 2 {
			wantRefunded = refund
		}
		// An unknown outcome may have been applied: it is not counted lost or
		// doubled, only bounded.
		got, _ := p["processed_amount"].(float64)
		gotRef, _ := p["refunded_amount"].(float64)
		if got != wantCaptured && (f.capt.Definitive || got != capture) {
			res.fail("captured once", fmt.Sprintf("%s captured %v, want %v", f.ref, got, wantCaptured))
			if got > wantCaptured {
				res.duplicated++
			} else {
				res.lost++
			}
		}
		if gotRef != wantRefunded && (f.refd.Definitive || gotRef != refund) {
			res.fail("refunded once", fmt.Sprintf("%s refunded %v, want %v", f.ref, gotRef, wantRefunded))
			if gotRef > wantRefunded {
				res.duplicated++
			} else {
				res.lost++
			}
		}
	}
	return res
}

// id names the resource an answer describes (our id or Adyen's pspReference).
func id(b map[string]any) string {
	for _, k := range []string{"id", "pspReference"} {
		if s, ok := b[k].(string); ok {
			return s
		}
	}
	return ""
}
