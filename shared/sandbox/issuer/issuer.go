// Package issuer is the sandbox card issuer's dispute desk, the adapter of
// the port domain/disputedesk that test keys' disputes reach: evidence (the
// description or any document) holding WinningEvidence wins, LosingEvidence
// loses; neither, or both, loses (the issuer keeps the cardholder's claim
// unless convinced). The decision is applied Review after submission.
package issuer

import (
	"bytes"
	"context"
	"strings"
	"time"

	"github.com/paygate/paygate/shared/domain/disputedesk"
)

// The sandbox's evidence markers.
const (
	WinningEvidence = "winning_evidence"
	LosingEvidence  = "losing_evidence"
)

// Review is how long the sandbox issuer reviews submitted evidence before
// its decision is applied (by the disputes sweeper's next run after it).
const Review = 15 * time.Second

// Sandbox is the sandbox issuer.
type Sandbox struct{}

var _ disputedesk.Desk = Sandbox{}

// New is the sandbox issuer.
func New() Sandbox { return Sandbox{} }

// Submit reads the evidence and decides at once.
func (Sandbox) Submit(_ context.Context, ev disputedesk.Evidence, now time.Time) (disputedesk.Decision, error) {
	win, lose := strings.Contains(ev.Description, WinningEvidence), strings.Contains(ev.Description, LosingEvidence)
	if ev.Documents != nil {
		for data, err := range ev.Documents {
			if err != nil {
				return disputedesk.Decision{}, err
			}
			win = win || bytes.Contains(data, []byte(WinningEvidence))
			lose = lose || bytes.Contains(data, []byte(LosingEvidence))
		}
	}
	return disputedesk.Decision{Won: win && !lose, ReviewEnds: now.Add(Review)}, nil
}
