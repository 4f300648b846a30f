package wallet

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/app"
	"github.com/paygate/paygate/shared/queue"
)

// TestSandboxWallet: each documented test phone number leads to its
// outcome through the confirmation queue and its consumer, on both stores
// and both queues (embedded, moto's SQS).
func TestSandboxWallet(t *testing.T) {
	queues(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		approve := e.authorize(walletprovider.PhoneApprove, 1000)
		laterAt := time.Now() // before its message is sent: it is hidden until at least laterAt + approveDelayIn
		later := e.authorize(walletprovider.PhoneApproveLater, 1000)
		decline := e.authorize(walletprovider.PhoneDecline, 1000)
		noAnswer := e.authorize(walletprovider.PhoneNoAnswer, 1000)
		poor := e.authorize(walletprovider.PhoneInsufficient, 1000)
		waits := e.authorize(phoneWaits, 1000)
		e.drain()
		assert.Equal(t, "SUCCESS", e.status(approve))
		// Not confirmed at once: read before its delay has passed (on a
		// loaded machine the drain above may take longer than the delay,
		// and then the delayed confirmation may already have run).
		if st := e.status(later); time.Since(laterAt) < approveDelayIn {
			assert.Equal(t, "PROCESSING", st, "confirms after a few seconds")
		}
		assert.Equal(t, "FAILED", e.status(decline))
		assert.Equal(t, ReasonDeclined, e.get(decline)["failureReason"])
		assert.Equal(t, "FAILED", e.status(poor))
		assert.Equal(t, ReasonInsufficient, e.get(poor)["failureReason"])
		assert.Equal(t, "PROCESSING", e.status(noAnswer))
		assert.Equal(t, "PROCESSING", e.status(waits))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventSucceeded}, e.events(e.Account.ID, approve))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventFailed}, e.events(e.Account.ID, decline))

		// The delayed shopper's message comes back when the answer is due.
		deadline := time.Now().Add(15 * time.Second)
		for e.status(later) != "SUCCESS" && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			e.drain()
		}
		assert.Equal(t, "SUCCESS", e.status(later))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventSucceeded}, e.events(e.Account.ID, later))

		// The test helper answers for the shopper who waits.
		r := e.post("/test-helpers/wallet/"+waits+"/decline", map[string]any{"reason": "shopper_busy"})
		require.Equal(t, 200, r.Status, string(r.Body))
		assert.Equal(t, "shopper_busy", r.Map(t)["failureReason"])
		assert.Equal(t, "PROCESSING", e.status(noAnswer), "never answers")
		assert.Equal(t, 1, e.openEntries(), "only the unanswered one is open")
	})
}

// TestConfirmationDeliveredTwice: the same confirmation message delivered
// twice, one after the other and 10 times at once, changes the status once
// and writes each event once. Both stores, both queues.
func TestConfirmationDeliveredTwice(t *testing.T) {
	queues(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.authorize(walletprovider.PhoneApprove, 1000)
		msg, _ := json.Marshal(Message{AccountID: e.Account.ID, ID: id})
		_, err := e.Deps.Queue.Send(context.Background(), queue.WalletConfirmations, msg, 0)
		require.NoError(t, err, "a duplicate of the message authorize sent")
		// Both copies are handled (a step that failed under load comes back
		// once more: the outcome below is what must hold, not the count).
		assert.GreaterOrEqual(t, e.drain(), 2)
		assert.Equal(t, "SUCCESS", e.status(id))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventSucceeded}, e.events(e.Account.ID, id))

		// Concurrent deliveries: 10 consumers handle the same message at once.
		id = e.authorize(walletprovider.PhoneDecline, 1000)
		e.drainUntil(func() bool { return len(e.events(e.Account.ID, id)) == 3 })
		id2 := e.authorize(walletprovider.PhoneApprove, 1000)
		ev := events.SQSEvent{Records: []events.SQSMessage{{MessageId: "m1", Body: `{"account_id":"` + e.Account.ID + `","wallet_transaction_id":"` + id2 + `"}`}}}
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				resp, err := app.SQSLambda(e.svc.Consume)(context.Background(), ev)
				assert.NoError(t, err)
				assert.Empty(t, resp.BatchItemFailures)
			})
		}
		wg.Wait()
		assert.Equal(t, "SUCCESS", e.status(id2))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventSucceeded}, e.events(e.Account.ID, id2))
		e.drain() // authorize's own message, late: changes nothing
		assert.Equal(t, []string{EventCreated, EventProcessing, EventSucceeded}, e.events(e.Account.ID, id2))
		assert.Equal(t, []string{EventCreated, EventProcessing, EventFailed}, e.events(e.Account.ID, id))
	})
}

// TestConfirmationAfterCancel: a shopper's answer to a transaction the
// merchant cancelled changes nothing.
func TestConfirmationAfterCancel(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.authorize(walletprovider.PhoneApprove, 1000)
		require.Equal(t, 200, e.post("/v1/wallet/"+id+"/cancel", nil).Status)
		e.drain()
		assert.Equal(t, "CANCELLED", e.status(id))
		assert.Equal(t, []string{EventCreated, EventCancelled}, e.events(e.Account.ID, id))
	})
}

// TestMalformedConfirmationMessagesAreDropped: a message that can never
// succeed is acknowledged (not retried into the DLQ).
func TestMalformedConfirmationMessagesAreDropped(t *testing.T) {
	e := newEnv(t, backend{"embedded", embeddedStore, embeddedQueue})
	ev := events.SQSEvent{Records: []events.SQSMessage{
		{MessageId: "a", Body: "not json"},
		{MessageId: "b", Body: `{"account_id":"x","wallet_transaction_id":"not-a-uuid"}`},
		{MessageId: "c", Body: `{"account_id":"` + e.Account.ID + `","wallet_transaction_id":"0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42"}`},
	}}
	resp, err := app.SQSLambda(e.svc.Consume)(context.Background(), ev)
	require.NoError(t, err)
	assert.Empty(t, resp.BatchItemFailures)
}

// TestExpirerFailsUnconfirmedAfterFiveMinutes: a transaction the shopper
// never confirmed is FAILED (confirmation_timeout) by the scheduled run once
// 5 minutes have passed, and not before; once, with one event; the
// confirmed one is left alone. Both stores.
func TestExpirerFailsUnconfirmedAfterFiveMinutes(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.Clock.Set(time.Now().UTC())
		ctx := context.Background()
		never := e.authorize(walletprovider.PhoneNoAnswer, 1000)
		waits := e.authorize(phoneWaits, 1000)
		ok := e.authorize(walletprovider.PhoneApprove, 1000)
		e.drain()
		require.Equal(t, "SUCCESS", e.status(ok))

		e.Clock.Advance(RequeueAge + time.Second)
		res, err := e.svc.Expire(ctx)
		require.NoError(t, err)
		assert.Equal(t, ExpireResult{Requeued: 2}, res, "open ones past RequeueAge get their message again")
		e.drain()

		e.Clock.Advance(ConfirmTimeout - RequeueAge - 2*time.Second)
		res, err = e.svc.Expire(ctx)
		require.NoError(t, err)
		assert.Zero(t, res.Failed, "4 min 59 s: not yet")
		assert.Equal(t, "PROCESSING", e.status(never))

		e.Clock.Advance(2 * time.Second)
		res, err = e.svc.Expire(ctx)
		require.NoError(t, err)
		assert.Equal(t, 2, res.Failed)
		for _, id := range []string{never, waits} {
			m := e.get(id)
			assert.Equal(t, "FAILED", m["walletTransactionStatus"])
			assert.Equal(t, ReasonTimeout, m["failureReason"])
			assert.Equal(t, []string{EventCreated, EventProcessing, EventFailed}, e.events(e.Account.ID, id))
		}
		assert.Equal(t, "SUCCESS", e.status(ok))
		assert.Equal(t, 0, e.openEntries())
		res, err = e.svc.Expire(ctx)
		require.NoError(t, err)
		assert.Equal(t, ExpireResult{}, res, "a second run finds nothing")

		// A late answer, by the consumer or a test helper, changes nothing.
		e.drain()
		r := e.post("/test-helpers/wallet/"+waits+"/confirm", nil)
		assert.Equal(t, 409, r.Status)
		assert.Equal(t, []string{EventCreated, EventProcessing, EventFailed}, e.events(e.Account.ID, waits))
	})
}

// TestConsumerAppliesTheTimeoutToo: a message consumed after the timeout
// (the expirer has not run yet) fails the transaction rather than asking
// the shopper.
func TestConsumerAppliesTheTimeoutToo(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		e.Clock.Set(time.Now().UTC())
		id := e.authorize(walletprovider.PhoneApprove, 1000)
		e.Clock.Advance(ConfirmTimeout)
		e.drain()
		assert.Equal(t, "FAILED", e.status(id))
		assert.Equal(t, ReasonTimeout, e.get(id)["failureReason"])
		assert.Equal(t, 0, e.openEntries())
	})
}
