package balance

import (
	"context"
	"time"
)

// Test-only helpers: nothing outside the tests calls these.

// Process pays one pending payout through the processor and records its
// answer (the payouts consumer's step: remittance.Flow.Step). A payout
// already decided is left as it is. It returns again > 0 when the processor
// did not answer and the payout should be tried again after that long.
// Errors: NotFound (no such payout), Unavailable, store.CodeBusy.
func (s *Service) Process(ctx context.Context, accountID, id string) (again time.Duration, err error) {
	return s.flow.Step(ctx, accountID, id)
}
