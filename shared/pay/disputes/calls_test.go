package disputes

import (
	"testing"
	"time"

	"github.com/paygate/paygate/shared/sandbox/issuer"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dueindex"
)

// TestCallsPerDisputeRequest counts DynamoDB calls on DynamoDB Local (the
// figures doc.go states). Open: GetItem of the API key, of the
// Idempotency-Key and of the payment, a Query of the currency's balances,
// one TransactWriteItems. Accept: GetItem x 4 (key, Idempotency-Key,
// dispute, payment), one TransactWriteItems. Evidence with a document of
// two chunks: GetItem x 3 (key, Idempotency-Key, dispute), one
// TransactWriteItems of the chunks, one of the dispute. Submit: GetItem x 4
// and one per chunk (the sandbox reads the evidence), one
// TransactWriteItems. A replay: the two key reads. A read: the key and the
// dispute. The sweeper closing one dispute won: a Query per due shard and
// per debtors shard, GetItem x 2 (dispute, payment), a Query (balances),
// one TransactWriteItems.
func TestCallsPerDisputeRequest(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	var st store.Store
	e := newEnv(t, backend{"dynamodb", func(_ testing.TB, now func() time.Time) store.Store {
		st = dynamostore.New(client, dynamotest.Tables(t, client), now)
		return st
	}})
	tx := e.payment("", 10000, 10000)
	e.tx(tx) // warm

	counter.Reset()
	r := e.Do("POST", "/test-helpers/transactions/"+tx+"/dispute", nil, "Idempotency-Key", "counted-open")
	require.Equal(t, 201, r.Status, "%s", r.Body)
	require.Equal(t, map[string]int{"GetItem": 3, "Query": 1, "TransactWriteItems": 1}, counter.Counts(), "open")
	id := r.Map(t)["id"].(string)

	counter.Reset()
	r = e.Do("POST", "/test-helpers/transactions/"+tx+"/dispute", nil, "Idempotency-Key", "counted-open")
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "replayed open")

	counter.Reset()
	e.get(id)
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "get")

	counter.Reset()
	r = e.Do("POST", "/v1/disputes/"+id+"/evidence", map[string]any{"description": issuer.WinningEvidence,
		"documents": []any{doc("a.pdf", "application/pdf", sized(ChunkSize+1, 'a'))}}, "Idempotency-Key", "counted-evidence")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 2}, counter.Counts(), "evidence")

	counter.Reset()
	r = e.Do("POST", "/v1/disputes/"+id+"/submit", nil, "Idempotency-Key", "counted-submit")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, map[string]int{"GetItem": 4 + 2, "TransactWriteItems": 1}, counter.Counts(), "submit")

	e.Clock.Advance(issuer.Review)
	counter.Reset()
	require.Equal(t, 1, e.sweep())
	// A Query per due-index shard, and per shard of its earlier layout.
	require.Equal(t, map[string]int{"Query": 2*dueindex.Shards + 1 + ledger.OwedShards, "GetItem": 2, "TransactWriteItems": 1}, counter.Counts(), "sweep")

	other := e.open(e.payment("", 1000, 1000), nil)["id"].(string)
	counter.Reset()
	r = e.Do("POST", "/v1/disputes/"+other+"/accept", nil, "Idempotency-Key", "counted-accept")
	require.Equal(t, 200, r.Status, "%s", r.Body)
	require.Equal(t, map[string]int{"GetItem": 4, "TransactWriteItems": 1}, counter.Counts(), "accept")
}
