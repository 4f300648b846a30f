package orders

import "github.com/paygate/paygate/shared/platform/apierr"

// The Gate orders' codes.
var (
	CodeNotPending = apierr.Register(apierr.CodeInfo{Name: "order_not_pending", Kind: apierr.Conflict,
		Meaning: "The order has its outcome already (completed or failed); it cannot be forced again."})
	CodeProductInactive = apierr.Register(apierr.CodeInfo{Name: "product_inactive", Kind: apierr.Invalid, Param: "product_id",
		Meaning: "The product is not active and cannot be ordered."})
	CodeProductNotOrderable = apierr.Register(apierr.CodeInfo{Name: "product_not_orderable", Kind: apierr.Invalid, Param: "product_id",
		Meaning: "The product has no fixed price and is not a direct top-up: it cannot be ordered."})
	CodeProductNotFound = apierr.Register(apierr.CodeInfo{Name: "product_not_found", Kind: apierr.NotFound, Param: "product_id",
		Meaning: "No product of the catalog has this id."})
	// CodeBalanceBusy is the hot balance's answer: orders on one balance
	// queue for it (a lease) until the order's deadline, then give up.
	CodeBalanceBusy = apierr.Register(apierr.CodeInfo{Name: "balance_busy", Kind: apierr.Conflict,
		Meaning: "The Gate balance is being changed by many orders at once; retry with the same Idempotency-Key."})
)
