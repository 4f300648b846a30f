// Package gatesupplier is the sandbox supplier of the Gate API: the
// deterministic vendor every test order goes to (the wiring hands it to
// orders as its test supplier), with the magic values that make it fail or
// wait. It is one adapter of the port shared/domain/supplier.
package gatesupplier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	"github.com/paygate/paygate/shared/domain/supplier"
)

var _ supplier.TestSupplier = (*Sandbox)(nil)

// Sandbox is the deterministic vendor of test mode. Its rules, checked in this
// order (documented in the OpenAPI description and docs/gate.md):
//
//	any customer_account value ending in "0000"  -> failed, reason invalid_account
//	product slug containing "out-of-stock"       -> failed, reason out_of_stock
//	external_ref containing "fail"               -> failed, reason vendor_declined
//	external_ref containing "pending"            -> pending for the first PendingPolls
//	                                                polls of the order, then completed
//	anything else                                -> completed at once
//
// The deliverable depends on the product type: redeem_card gets voucher_code,
// pin and serial per unit (units after the first are suffixed _2, _3, ...);
// direct_transfer and direct_top_up get a receipt. Every answer carries
// vendor_order_id. All values derive from the order id, so asking again about
// one order answers the same (only the pending countdown moves).
type Sandbox struct {
	// PendingPolls is how many polls a "pending" order stays pending; 0 means 2.
	PendingPolls int

	mu    sync.Mutex
	polls map[string]int
}

// maxTracked bounds the pending countdowns kept in memory; past it they are
// forgotten, which only makes some pending orders wait a little longer.
const maxTracked = 100_000

// New returns the sandbox vendor.
func New() *Sandbox { return &Sandbox{} }

// Fulfil answers per the sandbox rules.
func (s *Sandbox) Fulfil(ctx context.Context, req supplier.Request) (supplier.Result, error) {
	if err := ctx.Err(); err != nil {
		return supplier.Result{}, err
	}
	res := supplier.Result{VendorOrderID: VendorOrderID(req.OrderID)}
	if reason := sandboxFailure(req); reason != "" {
		res.Status, res.Reason = supplier.Failed, reason
		return res, nil
	}
	if strings.Contains(req.ExternalRef, "pending") && s.poll(req.OrderID) <= s.pendingPolls() {
		res.Status = supplier.Pending
		return res, nil
	}
	res.Status = supplier.Completed
	res.Content = s.Deliverable(req)
	return res, nil
}

func sandboxFailure(req supplier.Request) string {
	for _, v := range req.CustomerAccount {
		if strings.HasSuffix(v, "0000") {
			return "invalid_account"
		}
	}
	switch {
	case strings.Contains(req.Product.Slug, "out-of-stock"):
		return "out_of_stock"
	case strings.Contains(req.ExternalRef, "fail"):
		return "vendor_declined"
	}
	return ""
}

func (s *Sandbox) pendingPolls() int {
	if s.PendingPolls <= 0 {
		return 2
	}
	return s.PendingPolls
}

// poll counts the polls of one order (1 on the first).
func (s *Sandbox) poll(orderID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.polls == nil || len(s.polls) >= maxTracked {
		s.polls = map[string]int{}
	}
	s.polls[orderID]++
	return s.polls[orderID]
}

// VendorOrderID is the sandbox's id for an order: stable per order id.
func VendorOrderID(orderID string) string { return "sbx_" + digest(orderID, "vendor")[:24] }

// Deliverable is the sandbox content of a completed order: what Fulfil
// delivers, and what the test helper that forces a completion records
// (supplier.TestSupplier).
func (*Sandbox) Deliverable(req supplier.Request) map[string]string {
	c := map[string]string{"vendor_order_id": VendorOrderID(req.OrderID)}
	switch req.Product.Type {
	case "redeem_card":
		n := req.Quantity
		if n < 1 {
			n = 1
		}
		for i := int64(1); i <= n; i++ {
			suffix := ""
			if i > 1 {
				suffix = "_" + strconv.FormatInt(i, 10)
			}
			d := strings.ToUpper(digest(req.OrderID, "unit"+strconv.FormatInt(i, 10)))
			c["voucher_code"+suffix] = "SBX-" + d[0:4] + "-" + d[4:8] + "-" + d[8:12] + "-" + d[12:16]
			c["pin"+suffix] = digits(d[16:24])
			c["serial"+suffix] = "SN" + d[24:36]
		}
	case "direct_top_up":
		c["receipt"] = "TOP-" + strings.ToUpper(digest(req.OrderID, "receipt")[:16])
	default:
		c["receipt"] = "TRF-" + strings.ToUpper(digest(req.OrderID, "receipt")[:16])
	}
	return c
}

func digest(orderID, salt string) string {
	h := sha256.Sum256([]byte("paygate-sandbox:" + salt + ":" + orderID))
	return hex.EncodeToString(h[:])
}

// digits maps hex characters to decimal digits, for PINs.
func digits(hexs string) string {
	b := []byte(hexs)
	for i, c := range b {
		if c >= 'A' {
			c = c - 'A' + 10
		} else {
			c -= '0'
		}
		b[i] = '0' + c%10
	}
	return string(b)
}
