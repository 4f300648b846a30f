package invoices

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/domain/ledger"
	"github.com/paygate/paygate/shared/store"
)

// TestCallsPerInvoice counts DynamoDB calls on DynamoDB Local (make bench
// shows the same rows). Creating an invoice: GetItem of the API key and of
// the Idempotency-Key, one TransactWriteItems (the key's record, the
// invoice, its expiry entry). Paying it: GetItem of the API key, of the
// Idempotency-Key and of the invoice, one TransactWriteItems (the key's
// record, the invoice, the expiry entry's removal, invoice.paid, the
// payment and settlement entries, two balances (bank, available: pending
// nets to zero in the sandbox): 8 items).
func TestCallsPerInvoice(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB) store.Store { return st }}, ledger.Policy{})
	e.invoice(invoiceBody(100)) // warm

	counter.Reset()
	r := e.Do("POST", "/v1/invoices", invoiceBody(5000), "Idempotency-Key", "counted-create")
	require.Equal(t, 201, r.Status, string(r.Body))
	id := r.Map(t)["id"].(string)
	require.Equal(t, map[string]int{"GetItem": 2, "TransactWriteItems": 1}, counter.Counts(), "create")

	counter.Reset()
	r = e.Do("POST", "/test-helpers/invoices/"+id+"/pay", nil, "Idempotency-Key", "counted-pay")
	require.Equal(t, 200, r.Status, string(r.Body))
	require.Equal(t, map[string]int{"GetItem": 3, "TransactWriteItems": 1}, counter.Counts(), "pay")

	counter.Reset()
	r = e.Do("POST", "/test-helpers/invoices/"+id+"/pay", nil, "Idempotency-Key", "counted-pay")
	require.Equal(t, "true", r.Header.Get("Idempotent-Replayed"))
	require.Equal(t, map[string]int{"GetItem": 2}, counter.Counts(), "replayed payment")
}
