package issuer

import (
	"context"
	"errors"
	"iter"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/disputedesk"
)

func docs(ds ...string) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		for _, d := range ds {
			if !yield([]byte(d), nil) {
				return
			}
		}
	}
}

func TestDecidesByTheMarkers(t *testing.T) {
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ev  disputedesk.Evidence
		won bool
	}{
		{disputedesk.Evidence{Description: "see " + WinningEvidence}, true},
		{disputedesk.Evidence{Description: "receipt", Documents: docs("a", "%PDF "+WinningEvidence)}, true},
		{disputedesk.Evidence{Description: WinningEvidence, Documents: docs(LosingEvidence)}, false},
		{disputedesk.Evidence{Description: "nothing decisive"}, false},
	} {
		d, err := New().Submit(context.Background(), c.ev, now)
		require.NoError(t, err)
		assert.Equal(t, c.won, d.Won, "%+v", c.ev.Description)
		assert.Equal(t, now.Add(Review), d.ReviewEnds)
	}
	broken := errors.New("chunk missing")
	_, err := New().Submit(context.Background(), disputedesk.Evidence{Documents: func(yield func([]byte, error) bool) { yield(nil, broken) }}, now)
	assert.ErrorIs(t, err, broken)
}
