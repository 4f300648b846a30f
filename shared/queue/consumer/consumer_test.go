package consumer

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/ids"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// hides records the visibility each receipt was given.
type hides struct {
	queue.Queue
	got  map[string]time.Duration
	fail bool
}

func (h *hides) ChangeVisibility(_ context.Context, q, receipt string, d time.Duration) error {
	if q != queue.Payouts {
		return errors.New("wrong queue " + q)
	}
	if h.fail {
		return errors.New("queue unavailable")
	}
	h.got[receipt] = d
	return nil
}

// TestRecordStepsEachMessage: each message's record is stepped once; a
// decided record's message is deleted, an undecided one stays hidden for
// when to ask again (whole seconds, rounded up), a failed step for
// RetryAfterError; malformed messages and messages naming no record are
// dropped loudly, never retried.
func TestRecordStepsEachMessage(t *testing.T) {
	acct, done, later, failing, gone := ids.New(), ids.New(), ids.New(), ids.New(), ids.New()
	var log bytes.Buffer
	h := &hides{got: map[string]time.Duration{}}
	var stepped []string
	r := Record{Queue: queue.Payouts, Q: h, Log: slog.New(slog.NewTextHandler(&log, nil)), What: "payout", IDField: "payout_id",
		Step: func(_ context.Context, account, id string) (time.Duration, error) {
			require.Equal(t, acct, account)
			stepped = append(stepped, id)
			switch id {
			case later:
				return 4200 * time.Millisecond, nil
			case failing:
				return 0, apierr.Kindf(apierr.Unavailable, "store down")
			case gone:
				return 0, apierr.NotFoundf("no such payout")
			}
			return 0, nil
		}}
	msg := func(mid, body string) events.SQSMessage {
		return events.SQSMessage{MessageId: mid, ReceiptHandle: "r-" + mid, Body: body}
	}
	body := func(id string) string { return `{"account_id":"` + acct + `","payout_id":"` + id + `"}` }
	resp, err := app.SQSLambda(r.Consume)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{
		msg("1", body(done)), msg("2", body(later)), msg("3", body(failing)), msg("4", body(gone)),
		msg("5", `not json`), msg("6", `{"account_id":"`+acct+`","payout_id":"not-an-id"}`), msg("7", `{"payout_id":"`+done+`"}`),
	}})
	require.NoError(t, err)
	assert.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "2"}, {ItemIdentifier: "3"}}, resp.BatchItemFailures)
	assert.Equal(t, []string{done, later, failing, gone}, stepped, "malformed messages are never stepped")
	assert.Equal(t, map[string]time.Duration{"r-2": 5 * time.Second, "r-3": RetryAfterError + time.Second}, h.got)
	assert.Contains(t, log.String(), "payout message malformed; dropped")
	assert.Contains(t, log.String(), "payout message names no payout; dropped")
	assert.Contains(t, log.String(), "payout step failed; will retry")

	// A visibility that cannot be set still keeps the message: the queue's
	// own timeout then brings it back.
	h.fail = true
	resp, err = app.SQSLambda(r.Consume)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{msg("8", body(later))}})
	require.NoError(t, err)
	assert.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "8"}}, resp.BatchItemFailures)
	assert.Contains(t, log.String(), "payout backoff not set")
}

func TestEachReportsOnlyTheFailures(t *testing.T) {
	var seen []string
	h := queue.Each(func(_ context.Context, m queue.Message) bool {
		seen = append(seen, m.ID)
		return m.ID != "b"
	})
	resp, err := app.SQSLambda(h)(context.Background(), events.SQSEvent{Records: []events.SQSMessage{{MessageId: "a"}, {MessageId: "b"}, {MessageId: "c"}}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c"}, seen)
	assert.Equal(t, []events.SQSBatchItemFailure{{ItemIdentifier: "b"}}, resp.BatchItemFailures)
	assert.Empty(t, h(context.Background(), nil))
}
