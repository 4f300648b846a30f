package checkout

import (
	"time"

	"github.com/paygate/paygate/shared/domain/cards"
	"github.com/paygate/paygate/shared/domain/payments"
)

// ApplyOutcome moves p, a new payment with no session (a charge of a card
// token by the Pay API's recurring payments, shared/pay/customers), by the
// sandbox processor's outcome, exactly as checkout moves its own payments:
// authorised (and, in automatic capture mode, captured in the same change,
// hence in the same write), refused or failed (keeping the refusal code),
// or waiting for the shopper at a 3-D Secure or redirect stage. While p
// waits it returns the stage's Adyen action, which POST /v2/payments/details
// (or, for a challenge, the sandbox's POST
// /test-helpers/payments/{id}/challenge) completes like any checkout
// action; a redirect returns to p.Flow.ReturnURL. requestID goes in
// the authorisation's history entry. Errors: Conflict
// payment_state_conflict, Internal.
func (svc *Service) ApplyOutcome(p *payments.Payment, out cards.Outcome, requestID string, now time.Time) (*Action, error) {
	if out.Result == cards.Authorised {
		if err := p.Authorise(requestID, now); err != nil {
			return nil, err
		}
		settle(p, "")
		return nil, nil
	}
	resp, err := svc.apply(p, nil, out, now)
	if err != nil {
		return nil, err
	}
	return resp.Action, nil
}
