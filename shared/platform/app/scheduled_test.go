package app

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScheduledHandler: the schedule's event is ignored, each invocation is
// one run, and a failed run fails the invocation.
func TestScheduledHandler(t *testing.T) {
	runs := 0
	fail := errors.New("run failed")
	h := ScheduledHandler(func(context.Context) error {
		runs++
		if runs == 2 {
			return fail
		}
		return nil
	})
	ev := json.RawMessage(`{"detail-type":"Scheduled Event","source":"aws.events","detail":{}}`)
	require.NoError(t, h(context.Background(), ev))
	require.ErrorIs(t, h(context.Background(), ev), fail)
	require.Equal(t, 2, runs)
}
