package beneficiaries

import (
	"context"
	"time"
)

// Test-only helpers: nothing outside the tests calls these.

// Process sends one created order to the bank and records its answer (the
// payment orders consumer's step: remittance.Flow.Step). An order already
// decided is left as it is. It returns again > 0 when the bank has not
// decided yet and the order should be asked about again after that long.
// Errors: NotFound (no such order), Unavailable, store.CodeBusy.
func (s *Service) Process(ctx context.Context, accountID, id string) (again time.Duration, err error) {
	return s.flow.Step(ctx, accountID, id)
}
