package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/shared/sandbox/walletprovider"

	"github.com/paygate/paygate/infra/invoke/sample"
	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/pay/wallet"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/boltqueue"
)

// walletCase is issue 12's load row: an authorisation in the sandbox wallet
// (a unique Idempotency-Key per request makes each one a new transaction).
func walletCase(runID int64, key string) loadCase {
	return loadCase{
		name: "POST /v1/wallet/authorize", path: "/v1/wallet/authorize", want: http.StatusOK, unit: "authorisations/s",
		minRatio: fastRatio, maxP99: fastP99,
		headers: secretHeaders(key, runID, "bench-wallet"),
		body: func(i int) []byte {
			return fmt.Appendf(nil, `{"amount":150000,"phoneNumber":%q,"iin":"900101300017","orderReference":"bench-%d-%d","currency":"KZT"}`,
				walletprovider.PhoneApprove, runID, i)
		},
		check: func(b []byte) error {
			var v struct {
				ID     string `json:"walletTransactionId"`
				Status string `json:"walletTransactionStatus"`
			}
			if err := json.Unmarshal(b, &v); err != nil || v.ID == "" || v.Status != "NEW" {
				return fmt.Errorf("not a NEW wallet transaction: %s", b)
			}
			return nil
		},
	}
}

// countingQueue counts the SQS calls a function makes through the queue port.
type countingQueue struct {
	queue.Queue
	mu     sync.Mutex
	counts map[string]int
}

func (q *countingQueue) add(op string) {
	q.mu.Lock()
	q.counts[op]++
	q.mu.Unlock()
}

func (q *countingQueue) Send(ctx context.Context, name string, body []byte, delay time.Duration) (string, error) {
	q.add("SendMessage")
	return q.Queue.Send(ctx, name, body, delay)
}

func (q *countingQueue) ChangeVisibility(ctx context.Context, name, receipt string, d time.Duration) error {
	q.add("ChangeMessageVisibility")
	return q.Queue.ChangeVisibility(ctx, name, receipt, d)
}

func (q *countingQueue) take() map[string]int {
	q.mu.Lock()
	defer q.mu.Unlock()
	c := q.counts
	q.counts = map[string]int{}
	return c
}

type walletCalls struct{ authorize, replay, confirm, duplicate map[string]int }

// walletDynamoRows reports the DynamoDB and SQS calls of an authorisation and
// of its confirmation on DynamoDB Local (shared/pay/wallet/calls_test.go asserts
// the same counts). The event source's own ReceiveMessage/DeleteMessage per
// batch are SQS's, not the function's, and are left out.
func walletDynamoRows(ctx context.Context) ([]row, error) {
	endpoint := os.Getenv("DYNAMODB_ENDPOINT")
	if endpoint == "" {
		return []row{{name: "DynamoDB calls per wallet authorisation", value: "skipped: DYNAMODB_ENDPOINT unset", target: "-", ok: "-"}}, nil
	}
	c, err := measureWalletCalls(ctx, endpoint)
	if err != nil {
		return nil, err
	}
	reads := func(m map[string]int) int {
		return m["GetItem"] + m["Query"] + m["BatchGetItem"] + m["TransactGetItems"]
	}
	return []row{
		{name: "calls: POST /v1/wallet/authorize, new", value: formatCounts(c.authorize),
			target: "one write call, two reads (key + idempotency), one SendMessage, no Scan",
			ok:     verdict(writeCalls(c.authorize) == 1 && reads(c.authorize) == 2 && c.authorize["SendMessage"] == 1 && total(c.authorize) == 4)},
		{name: "calls: POST /v1/wallet/authorize, replayed", value: formatCounts(c.replay),
			target: "no write, no SendMessage", ok: verdict(writeCalls(c.replay) == 0 && c.replay["SendMessage"] == 0 && c.replay["Scan"] == 0)},
		{name: "calls: confirmation message (NEW -> PROCESSING -> SUCCESS)", value: formatCounts(c.confirm),
			target: "one read, one write call per status change (2)", ok: verdict(reads(c.confirm) == 1 && writeCalls(c.confirm) == 2 && total(c.confirm) == 3)},
		{name: "calls: the same confirmation delivered again", value: formatCounts(c.duplicate),
			target: "one read, no write", ok: verdict(reads(c.duplicate) == 1 && total(c.duplicate) == 1)},
	}, nil
}

func measureWalletCalls(ctx context.Context, endpoint string) (walletCalls, error) {
	var out walletCalls
	counter := dynamostore.NewCallCounter()
	d, _, cleanup, err := dynamoDeps(ctx, endpoint, counter.Option())
	if err != nil {
		return out, err
	}
	defer cleanup()
	dir, err := os.MkdirTemp("", "paygate-bench-wallet-")
	if err != nil {
		return out, err
	}
	defer os.RemoveAll(dir)
	bq, err := boltqueue.Open(filepath.Join(dir, "queue.db"), d.Clock)
	if err != nil {
		return out, err
	}
	defer bq.Close()
	q := &countingQueue{Queue: bq, counts: map[string]int{}}
	d.Queue = q
	if _, err := sample.EnsureAccount(ctx, d.Accounts, d.Keys); err != nil {
		return out, err
	}
	g, err := wallet.BuildWallet(d)
	if err != nil {
		return out, err
	}
	consume, err := wallet.BuildWalletConfirmations(d)
	if err != nil {
		return out, err
	}
	srv := httptest.NewServer(d.Server(g))
	defer srv.Close()
	c := walletCase(time.Now().UnixNano(), sample.Key)
	post := func(i int) (map[string]int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+c.path, bytes.NewReader(c.body(i)))
		if err != nil {
			return nil, "", err
		}
		req.Header = c.headers(i)
		counter.Reset()
		q.take()
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		counts := merge(counter.Counts(), q.take())
		if resp.StatusCode != c.want {
			return nil, "", fmt.Errorf("POST /v1/wallet/authorize answered %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
		}
		var v struct {
			ID string `json:"walletTransactionId"`
		}
		_ = json.Unmarshal(b, &v)
		return counts, v.ID, c.check(b)
	}
	if _, _, err = post(0); err != nil { // warm
		return out, err
	}
	var id string
	if out.authorize, id, err = post(1); err != nil {
		return out, err
	}
	if out.replay, _, err = post(1); err != nil {
		return out, err
	}
	k, err := d.Keys.Authenticate(ctx, sample.Key)
	if err != nil {
		return out, err
	}
	msg, _ := json.Marshal(wallet.Message{AccountID: k.AccountID, ID: id})
	batch := []queue.Message{{ID: "bench", Body: msg, ReceiveCount: 1}}
	deliver := func() (map[string]int, error) {
		counter.Reset()
		q.take()
		var err error
		if again := consume(ctx, batch); len(again) > 0 {
			err = fmt.Errorf("the confirmation consumer reported the message failed")
		}
		return merge(counter.Counts(), q.take()), err
	}
	if out.confirm, err = deliver(); err != nil {
		return out, err
	}
	out.duplicate, err = deliver()
	return out, err
}

func merge(a, b map[string]int) map[string]int {
	for k, v := range b {
		a[k] += v
	}
	return a
}
