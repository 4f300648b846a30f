// Package supplier is the port to the suppliers that deliver gate orders
// (voucher codes, transfers, top-ups). Vendors must be idempotent by
// Request.OrderID: asking again about one order never delivers twice and
// answers the same. The supplier of test orders is the wiring's choice
// (shared/sandbox/gatesupplier).
package supplier

import (
	"context"
	"fmt"
)

// Status is a vendor's answer about one order.
type Status string

const (
	Completed Status = "completed" // delivered; Content holds the deliverable
	Failed    Status = "failed"    // will never be delivered; Reason says why
	Pending   Status = "pending"   // still working; ask again later
)

// Product is what a vendor needs to know about the ordered product.
type Product struct {
	ID       int64
	Slug     string
	Type     string // redeem_card | direct_transfer | direct_top_up
	Currency string
}

// Request asks a vendor to deliver one order.
type Request struct {
	OrderID         string // the vendor's idempotency key
	Product         Product
	Quantity        int64
	Amount          int64 // the charge in minor units (the top-up amount for top-ups)
	CustomerAccount map[string]string
	ExternalRef     string
}

// Result is the vendor's answer.
type Result struct {
	Status        Status
	VendorOrderID string
	Content       map[string]string // voucher_code, pin, serial, receipt...
	Reason        string            // why it failed (snake_case)
}

// Supplier delivers orders. An error means "no answer" (network, outage): the
// caller retries later with the same OrderID.
type Supplier interface {
	Fulfil(ctx context.Context, req Request) (Result, error)
}

// TestSupplier fulfils test orders. It also says what an order would
// deliver, for the test helper that forces a completion without asking it.
type TestSupplier interface {
	Supplier
	Deliverable(req Request) map[string]string
}

// Validate checks a result is usable, so a misbehaving adapter cannot write a
// completed order without a deliverable or a failure without a reason.
func (r Result) Validate() error {
	switch r.Status {
	case Completed:
		if len(r.Content) == 0 {
			return fmt.Errorf("vendor: completed without content")
		}
	case Failed:
		if r.Reason == "" {
			return fmt.Errorf("vendor: failed without a reason")
		}
	case Pending:
	default:
		return fmt.Errorf("vendor: unknown status %q", r.Status)
	}
	return nil
}
