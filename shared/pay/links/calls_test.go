package links_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/pay/dropin"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/apitest"
)

// TestCallsPerLinkAndPage counts DynamoDB calls on DynamoDB Local (the
// figures doc.go and the benchmark state):
//
//   - create a link: GetItem (API key), GetItem (the merchant's name), one
//     TransactWriteItems (link, copy, indexes, counters); with an
//     Idempotency-Key one GetItem more (the key's record joins the
//     transaction); a replay: the two key reads;
//   - serve its page: one GetItem (the link); the Drop-in's files: none;
//   - the page's session: GetItem (link) and one TransactWriteItems (the new
//     session with the link naming it) the first time; GetItem (link) and
//     GetItem (session) after;
//   - setup: the same two reads; a payment: the two reads and one
//     TransactWriteItems (payment, indexes, events, session, link paid),
//     and the first payment of the account in the instance a read of its
//     card connector (kept 30 s).
func TestCallsPerLinkAndPage(t *testing.T) {
	counter := dynamostore.NewCallCounter()
	client := dynamotest.Client(t, counter.Option())
	st := dynamostore.New(client, dynamotest.Tables(t, client), nil)
	e := newEnv(t, backend{"dynamodb", func(testing.TB, *apitest.Clock) store.Store { return st }})
	e.get(e.create(nil)["id"].(string)) // warm

	counted := func(what string, want map[string]int, f func() *apitest.Resp, status int) *apitest.Resp {
		t.Helper()
		counter.Reset()
		r := f()
		require.Equal(t, status, r.Status, "%s: %s", what, r.Body)
		require.Equal(t, want, counter.Counts(), what)
		return r
	}
	r := counted("create", map[string]int{"GetItem": 2, "TransactWriteItems": 1}, func() *apitest.Resp {
		return e.Do("POST", "/v1/payment-links", linkBody(nil))
	}, 201)
	id := r.Map(t)["id"].(string)
	counted("create with a key", map[string]int{"GetItem": 3, "TransactWriteItems": 1}, func() *apitest.Resp {
		return e.Do("POST", "/v1/payment-links", linkBody(nil), "Idempotency-Key", "counted")
	}, 201)
	counted("replayed create", map[string]int{"GetItem": 2}, func() *apitest.Resp {
		return e.Do("POST", "/v1/payment-links", linkBody(nil), "Idempotency-Key", "counted")
	}, 201)
	counted("page", map[string]int{"GetItem": 1}, func() *apitest.Resp { return e.page("GET", "/pay/"+id, nil) }, 200)
	counted("Drop-in file", map[string]int{}, func() *apitest.Resp {
		return e.page("GET", "/dropin/"+dropin.Version+"/dropin.js", nil)
	}, 200)
	var s session
	counted("first session", map[string]int{"GetItem": 1, "TransactWriteItems": 1}, func() *apitest.Resp {
		r := e.page("POST", "/pay/"+id+"/session", nil)
		r.JSON(t, &s)
		return r
	}, 200)
	counted("the session again", map[string]int{"GetItem": 2}, func() *apitest.Resp { return e.page("POST", "/pay/"+id+"/session", nil) }, 200)
	counted("setup", map[string]int{"GetItem": 2}, func() *apitest.Resp {
		return e.page("POST", "/pay/"+id+"/sessions/"+s.ID+"/setup", map[string]any{"sessionData": s.SessionData})
	}, 200)
	// The page's first card payment of the account also reads the
	// account's connector for its mode (kept 30 s: connect.Directory).
	counted("payment", map[string]int{"GetItem": 3, "TransactWriteItems": 1}, func() *apitest.Resp {
		return e.pay(id, s, "4111111111111111")
	}, 200)
	counted("get", map[string]int{"GetItem": 2}, func() *apitest.Resp { return e.Do("GET", "/v1/payment-links/"+id, nil) }, 200)
}
