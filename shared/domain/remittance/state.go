package remittance

import (
	"fmt"
	"time"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// Status is a remittance kind's typed status: its values and transitions
// are listed beside it in its package.
type Status[S any] interface {
	~string
	CanTransition(to S) bool
}

// State is what every remittance's view ends with, in this order (embedded
// last, so the view's JSON keeps its order): its status and failure reason,
// its mode and metadata, and its times. Its life changes it (Decide).
type State[S Status[S]] struct {
	Status        S                 `json:"status"`
	FailureReason string            `json:"failure_reason,omitempty"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	PaidAt        *time.Time        `json:"paid_at,omitempty"`
	FailedAt      *time.Time        `json:"failed_at,omitempty"`
}

// Made is when the remittance was made (its open index entry's time).
func (s *State[S]) Made() time.Time { return s.CreatedAt }

// Decide sets the payer's final answer at now: paid (status paid), or
// failed (status failed, with the refusal's reason). Errors: Internal when
// the status cannot become the outcome (a decided record: Open said it was
// not).
func (s *State[S]) Decide(res Result, paid, failed S, now time.Time) error {
	to := failed
	if res.Paid {
		to = paid
	}
	if !s.Status.CanTransition(to) {
		return apierr.Wrap("remittance.Decide", apierr.Internal, fmt.Errorf("%s -> %s is no transition", s.Status, to))
	}
	s.Status, s.UpdatedAt = to, now
	if res.Paid {
		s.PaidAt = &now
	} else {
		s.FailedAt, s.FailureReason = &now, res.Reason
	}
	return nil
}

// Kept is what a remittance's stored record keeps beside its view (embed
// it): its account, the payer calls that got no answer, and the version it
// was read at.
type Kept struct {
	AccountID string `json:"account_id"`
	Attempts  int    `json:"attempts"` // payer calls that got no answer
	version   int64
}

// Unanswered counts one more payer call without an answer and returns the
// count.
func (k *Kept) Unanswered() int {
	k.Attempts++
	return k.Attempts
}

// Version is the version the record was read at (0: new).
func (k *Kept) Version() int64 { return k.version }

// Read notes the version the record was read at.
func (k *Kept) Read(version int64) { k.version = version }
