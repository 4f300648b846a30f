package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// ordersOnOneBalance: clients race orders of one product on the sandbox's
// one Gate balance, more than it covers, each order retried with its own
// key until a definitive answer. Checked: every acknowledged order exists
// once; no key made two orders; every answer to a key named one order; the
// balance is its start less the orders that exist; and the history of
// orders and the final balance read is linearizable on a balance register
// (porcupine), so no order was taken on money another had already spent.
func ordersOnOneBalance(ctx context.Context, r *run) result {
	// Product 131 costs 10.00 USD a unit; the bounded run orders 4 units
	// at a time so that fewer orders exhaust the balance.
	qty := r.scale(4, 1)
	price := int64(1000 * qty)
	res := result{workload: "orders on one balance"}
	c := r.client()
	start := r.balance(ctx, c)
	if start < 0 {
		res.fail("setup", "the balance could not be read")
		return res
	}
	n := int(start/price) + r.scale(6, 30) // more orders than the balance covers
	type op struct {
		key       string
		call, ret int64
		ans       answer
	}
	ops := make([]op, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := range r.scale(4, 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := &ops[i]
				o.key = fmt.Sprintf("chaos-%d-order-%d-%d", r.seed, w, i)
				o.call = time.Now().UnixNano()
				o.ans = c.do(ctx, "POST /orders", http.MethodPost, "/orders",
					map[string]any{"product_id": 131, "quantity": qty, "external_ref": o.key}, o.key)
				o.ret = time.Now().UnixNano()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	res.retries, res.longest = c.retryCount(), c.longest()
	res.p99 = map[string]time.Duration{"POST /orders": c.p99("POST /orders")}

	// What the service holds, once every consumer has caught up.
	r.quiesce(ctx)
	var history []porcupine.Operation
	var charged int64
	for i, o := range ops {
		list := c.get(ctx, "/orders?external_ref="+o.key)
		if !list.Definitive || list.Status != 200 {
			res.fail("read back", fmt.Sprintf("orders of %s could not be listed: %d %v %s", o.key, list.Status, list.Body, list.Err))
			continue
		}
		found := items(list.Body)
		if len(found) > 1 {
			res.duplicated++
			res.fail("one order per key", fmt.Sprintf("%s made %d orders", o.key, len(found)))
		}
		for _, f := range found {
			id, _ := f["id"].(string)
			r.remember(id)
			if f["status"] != "failed" {
				charged += price
			}
		}
		out := orderOut{}
		switch {
		case o.ans.Definitive && o.ans.Status == 201 || o.ans.Definitive && o.ans.Status == 200:
			res.acked++
			out.ok = true
			id, _ := o.ans.Body["id"].(string)
			if len(found) == 0 {
				res.lost++
				res.fail("acknowledged orders exist", o.key+" was acknowledged as "+id+" and is not listed")
			} else if found[0]["id"] != id {
				res.fail("one order per key", fmt.Sprintf("%s answered %s, holds %v", o.key, id, found[0]["id"]))
			}
			for _, b := range o.ans.Bodies {
				if b["id"] != id {
					res.fail("every retry the same answer", fmt.Sprintf("%s answered %v and %s", o.key, b["id"], id))
				}
			}
		case o.ans.Definitive && errField(o.ans.Body, "code") == "insufficient_balance":
			out.refused = true
			if len(found) > 0 {
				res.fail("a refusal stores nothing", o.key+" was refused and holds an order")
			}
		case o.ans.Definitive:
			res.fail("definitive answers", fmt.Sprintf("%s: %d %v", o.key, o.ans.Status, o.ans.Body))
			continue
		default:
			res.unknown++ // the client gave up: the order may or may not exist
		}
		history = append(history, porcupine.Operation{ClientId: i, Input: orderIn{price: price}, Call: o.call, Output: out, Return: o.ret})
	}
	end := r.balance(ctx, c)
	if end != start-charged {
		res.fail("balance = start - orders", fmt.Sprintf("start %d, orders %d, balance %d", start, charged, end))
	}
	now := time.Now().UnixNano()
	history = append(history, porcupine.Operation{ClientId: n, Input: orderIn{read: true}, Call: now, Output: orderOut{balance: end}, Return: now + 1})
	res.verdict("linearizable (porcupine)", porcupine.CheckOperationsTimeout(balanceModel(start), history, time.Minute))
	return res
}

type orderIn struct {
	price int64
	read  bool
}

type orderOut struct {
	ok, refused bool
	balance     int64 // of a read
}

// balanceModel is the Gate balance as a register orders draw on: an order
// is taken only when the balance covers it and refused only when it does
// not; an order whose outcome the client never learnt may have been taken
// or not (the model tries both).
func balanceModel(start int64) porcupine.Model {
	m := &porcupine.NondeterministicModel{
		Init: func() []any { return []any{start} },
		Step: func(state, input, output any) []any {
			b, in, out := state.(int64), input.(orderIn), output.(orderOut)
			switch {
			case in.read:
				if out.balance == b {
					return []any{b}
				}
			case out.ok:
				if b >= in.price {
					return []any{b - in.price}
				}
			case out.refused:
				if b < in.price {
					return []any{b}
				}
			default:
				if b >= in.price {
					return []any{b, b - in.price}
				}
				return []any{b}
			}
			return nil
		},
		Equal: func(a, b any) bool { return a == b },
		DescribeOperation: func(input, output any) string {
			return fmt.Sprintf("%+v -> %+v", input, output)
		},
	}
	return m.ToModel()
}

// items is a list answer's data.
func items(body map[string]any) []map[string]any {
	var out []map[string]any
	data, _ := body["data"].([]any)
	for _, d := range data {
		if m, ok := d.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}
