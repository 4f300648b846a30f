package disputes

import (
	"strings"
	"time"

	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/store"
)

// Since is the version that added disputes (spec §9): older versions get a
// 400 naming it on every route of the group.
const Since = "2023-09-01"

// DisputesGroup is the DisputesFunction: read, list, accept, answer and
// submit disputes, and the sandbox's helper that opens one.
var DisputesGroup = registry.Group{
	Function: "DisputesFunction", Dir: "disputes", OpenAPI: "paths-disputes.json", MoneyPath: true, Since: Since,
	Routes: []registry.Route{
		{Method: "GET", Path: "/v1/disputes", Auth: httpapi.AuthSecret},
		{Method: "GET", Path: "/v1/disputes/{id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/disputes/{id}/accept", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/v1/disputes/{id}/evidence", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline, MaxBody: EvidenceMaxBody},
		{Method: "GET", Path: "/v1/disputes/{id}/evidence/{document_id}", Auth: httpapi.AuthSecret},
		{Method: "POST", Path: "/v1/disputes/{id}/submit", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline},
		{Method: "POST", Path: "/test-helpers/transactions/{id}/dispute", Auth: httpapi.AuthSecret, Idempotency: httpapi.IdemInline, TestOnly: true},
	},
	Tables: []registry.Table{
		{Name: store.TableAccounts, Actions: []string{"GetItem"}},
		{Name: store.TableIdempotency, Actions: []string{"GetItem", "UpdateItem"}},
		// Disputes, their payments and evidence chunks (GetItem), the list
		// (Query), their writes (UpdateItem), the due entry a status change
		// removes and the chunks of a refused evidence call (DeleteItem).
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		// The hold, release or loss (shared/domain/ledger): the available and owed
		// balances read (Query), entries and balances written (UpdateItem),
		// the debtors index entry a release that repays it all removes
		// (DeleteItem).
		{Name: store.TableLedger, Actions: []string{"Query", "UpdateItem", "DeleteItem"}},
	},
}

// SweeperGroup is the DisputeSweeperFunction: every SweepInterval it closes
// the disputes whose due_by passed without a response (lost) and applies
// the sandbox issuer's decision to those whose review ended, then repays
// negative balances from available.
var SweeperGroup = registry.Group{
	Function: "DisputeSweeperFunction", Dir: "dispute-sweeper", Every: SweepInterval, Timeout: 30 * time.Second,
	Tables: []registry.Table{
		{Name: store.TablePayments, Actions: []string{"GetItem", "Query", "UpdateItem", "DeleteItem"}},
		{Name: store.TableEvents, Actions: []string{"UpdateItem"}},
		{Name: store.TableLedger, Actions: []string{"Query", "UpdateItem", "DeleteItem"}},
	},
}

// Area is the disputes: their records, evidence chunks and due index in the
// payments table beside the payments they dispute.
var Area = registry.Area{
	Name:   "disputes",
	Groups: []registry.Group{DisputesGroup, SweeperGroup},
	Keys: []registry.Key{
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(disputePK("x"), "x"), What: "disputes"},
		{Table: store.TablePayments, Prefix: strings.TrimSuffix(docPK("x", "y"), "x#y"), What: "dispute evidence chunks"},
		{Table: store.TablePayments, Prefix: dueIndex.Prefix, What: "the dispute due index shards"},
		{Table: store.TablePayments, Prefix: dueIndex.Legacy.Prefix, What: "the dispute due index shards written before the one due-time layout (read, never written)"},
	},
}
