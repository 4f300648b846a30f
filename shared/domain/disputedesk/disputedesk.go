// Package disputedesk is the port to the card issuer's dispute desk: what
// the disputes area needs of the issuer that reviews a merchant's evidence
// and decides a chargeback. The sandbox issuer (shared/sandbox/issuer) is
// one adapter, chosen by the wiring for test keys; a live acquirer's
// dispute API is another.
package disputedesk

import (
	"context"
	"iter"
	"time"
)

// Evidence is what the merchant submitted: the description and the
// documents' bytes, read as the desk asks for them (a read error ends the
// sequence).
type Evidence struct {
	Description string
	Documents   iter.Seq2[[]byte, error]
}

// Decision is the issuer's: won or lost, applied when the review ends.
type Decision struct {
	Won        bool
	ReviewEnds time.Time
}

// Desk reviews submitted evidence.
type Desk interface {
	// Submit hands the evidence to the issuer at now and answers its
	// decision; an error is the evidence's (a document that cannot be
	// read), not a decision.
	Submit(ctx context.Context, ev Evidence, now time.Time) (Decision, error)
}
