package checkout

import (
	"slices"
	"time"
)

// result is the session as the merchant reads it at now. A payment is
// Pending only while the session waits for it: once the session expired (or
// ended otherwise) a payment still waiting can never complete it, so it is
// not listed (payments lists authorised and pending ones, as Adyen's does),
// even before a details call records its refusal.
func (s *Session) result(now time.Time) SessionResult {
	status := s.StatusAt(now)
	ps := s.Payments
	if status != StatusPaymentPending {
		ps = slices.DeleteFunc(slices.Clone(ps), func(e ResultPayment) bool { return e.ResultCode == "Pending" })
	}
	return SessionResult{ID: s.ID, Status: status, Reference: s.Reference, Payments: nonNil(ps)}
}

func nonNil(p []ResultPayment) []ResultPayment {
	if p == nil {
		return []ResultPayment{}
	}
	return p
}
