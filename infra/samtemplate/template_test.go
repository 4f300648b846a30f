package samtemplate

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/queue/sqsqueue"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/dynamostore"
)

// These tests hold the real template.yaml to the deployment rules. When you
// add a function, add its routes to wantRoutes and its grants to wantGrants.

const templatePath = "../../" + FileName

func load(t *testing.T) *Template {
	t.Helper()
	tpl, err := Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

// wantRoutes is every function's routes, exactly.
var wantRoutes = map[string][]string{
	"HealthFunction":    {"GET /health", "GET /openapi.json"},
	"MerchantsFunction": {"GET /v1/merchants/me"},
	"GateCatalogFunction": {
		"GET /agent/{agent_id}/product-categories", "GET /agent/{agent_id}/product-types", "GET /agent/{agent_id}/products",
		"GET /agent/{agent_id}/products/{productId}", "GET /product-categories", "GET /product-types", "GET /products",
		"GET /products/{productId}",
	},
	"GateBalanceFunction":      {"GET /balance", "GET /deposits", "POST /test-helpers/deposits"},
	"CheckoutSessionsFunction": {"POST /v2/sessions", "GET /v2/sessions/{id}"},
	"CheckoutPaymentsFunction": {"POST /v2/paymentMethods", "POST /v2/payments", "POST /v2/payments/details"},
	"CheckoutClientFunction": {
		"POST /v2/client/sessions/{id}/paymentMethods", "POST /v2/client/sessions/{id}/payments",
		"POST /v2/client/sessions/{id}/payments/details", "POST /v2/client/sessions/{id}/setup",
	},
	"CheckoutTestHelpersFunction": {"POST /test-helpers/payments/{id}/challenge"},
	"GateOrdersFunction": {
		"GET /orders", "POST /orders", "GET /orders/{orderId}",
		"POST /test-helpers/orders/{orderId}/complete", "POST /test-helpers/orders/{orderId}/fail",
	},
	"GateFulfilmentFunction":      nil,
	"GateOrderReconcilerFunction": nil,
}

// wantGrants is every function's permissions, exactly: least privilege.
var wantGrants = map[string][]Grant{
	"HealthFunction": nil,
	"MerchantsFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
	},
	"GateCatalogFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:Query"}, Resources: []string{"CatalogTable"}},
	},
	"GateBalanceFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"}, Resources: []string{"LedgerTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, Resources: []string{"IdempotencyTable"}},
	},
	"CheckoutSessionsFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, Resources: []string{"IdempotencyTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, Resources: []string{"SessionsTable"}},
	},
	"CheckoutPaymentsFunction": checkoutPaymentGrants,
	"CheckoutClientFunction":   checkoutPaymentGrants,
	"CheckoutTestHelpersFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}, Resources: []string{"SessionsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, Resources: []string{"PaymentsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:UpdateItem"}, Resources: []string{"EventsTable"}},
	},
	"GateOrdersFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, Resources: []string{"IdempotencyTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:ConditionCheckItem"}, Resources: []string{"CatalogTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem"}, Resources: []string{"LedgerTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, Resources: []string{"OrdersTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:UpdateItem"}, Resources: []string{"EventsTable"}},
		{Policy: "SQSSendMessagePolicy", Resources: []string{"FulfilmentQueue"}},
	},
	"GateFulfilmentFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, Resources: []string{"OrdersTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:UpdateItem"}, Resources: []string{"LedgerTable"}},
		{Policy: "Statement", Actions: []string{"dynamodb:UpdateItem"}, Resources: []string{"EventsTable"}},
		{Policy: "SQSPollerPolicy", Resources: []string{"FulfilmentQueue"}},
	},
	"GateOrderReconcilerFunction": {
		{Policy: "Statement", Actions: []string{"dynamodb:Query"}, Resources: []string{"OrdersTable"}},
		{Policy: "SQSSendMessagePolicy", Resources: []string{"FulfilmentQueue"}},
	},
}

// checkoutPaymentGrants are the advanced flow's and the drop-in's: both
// record payments, events and session changes in one transaction.
var checkoutPaymentGrants = []Grant{
	{Policy: "Statement", Actions: []string{"dynamodb:GetItem"}, Resources: []string{"AccountsTable"}},
	{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"}, Resources: []string{"IdempotencyTable"}},
	{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}, Resources: []string{"SessionsTable"}},
	{Policy: "Statement", Actions: []string{"dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:Query"}, Resources: []string{"PaymentsTable"}},
	{Policy: "Statement", Actions: []string{"dynamodb:UpdateItem"}, Resources: []string{"EventsTable"}},
}

func TestRoutesPerFunction(t *testing.T) {
	tpl := load(t)
	fns := tpl.Functions()
	if len(fns) != len(wantRoutes) {
		t.Errorf("template has %d functions, the test knows %d: add the new ones to wantRoutes", len(fns), len(wantRoutes))
	}
	for _, f := range fns {
		var got []string
		for _, r := range f.Routes {
			got = append(got, r.String())
		}
		if !slices.Equal(got, wantRoutes[f.LogicalID]) {
			t.Errorf("%s routes = %v, want %v", f.LogicalID, got, wantRoutes[f.LogicalID])
		}
	}
}

func TestRoutesUniqueSortedOnTheAPI(t *testing.T) {
	tpl := load(t)
	routes := tpl.Routes()
	if len(routes) == 0 {
		t.Fatal("no routes")
	}
	seen := map[string]string{}
	for i, r := range routes {
		if prev, dup := seen[r.String()]; dup {
			t.Errorf("%s is served by both %s and %s", r, prev, r.Function)
		}
		seen[r.String()] = r.Function
		if i > 0 && (routes[i-1].Path > r.Path || routes[i-1].Path == r.Path && routes[i-1].Method > r.Method) {
			t.Errorf("Routes not sorted at %d: %s after %s", i, r, routes[i-1])
		}
	}
	for _, f := range tpl.Functions() {
		for _, e := range f.Events {
			if e.Type == "HttpApi" && e.Source != "HttpApi" {
				t.Errorf("%s event %s: ApiId refers to %q, want the one HttpApi", f.LogicalID, e.Name, e.Source)
			}
		}
	}
}

func TestFunctionsBuildForLambdaArm64(t *testing.T) {
	tpl := load(t)
	codeURIs := map[string]string{}
	for _, f := range tpl.Functions() {
		if f.Runtime != "provided.al2023" || f.Handler != "bootstrap" || f.BuildMethod != "go1.x" {
			t.Errorf("%s: Runtime %q, Handler %q, BuildMethod %q; want provided.al2023, bootstrap, go1.x",
				f.LogicalID, f.Runtime, f.Handler, f.BuildMethod)
		}
		if !slices.Equal(f.Architectures, []string{"arm64"}) {
			t.Errorf("%s: Architectures %v, want [arm64]", f.LogicalID, f.Architectures)
		}
		dir, ok := strings.CutPrefix(f.CodeURI, "functions/")
		if !ok || dir == "" || strings.Contains(dir, "/") {
			t.Errorf("%s: CodeUri %q, want functions/<dir>", f.LogicalID, f.CodeURI)
		}
		if other, dup := codeURIs[f.CodeURI]; dup {
			t.Errorf("%s and %s share CodeUri %s", other, f.LogicalID, f.CodeURI)
		}
		codeURIs[f.CodeURI] = f.LogicalID
		if name := Raw(f.Properties["FunctionName"]); !strings.HasPrefix(name, "!Sub paygate-${Environment}-") {
			t.Errorf("%s: FunctionName %q does not carry the environment", f.LogicalID, name)
		}
	}
}

func TestFunctionEnvNamesEveryTableAndQueue(t *testing.T) {
	tpl := load(t)
	want := map[string]string{
		"ENVIRONMENT": "!Ref Environment",
		"LOG_LEVEL":   "!Ref LogLevel",
		"STORE":       "dynamodb",
	}
	for _, logical := range store.AllTables {
		want[dynamostore.EnvVar(logical)] = "!Ref " + tableID(logical)
	}
	for _, q := range []string{queue.Fulfilment, queue.Webhooks} {
		want[sqsqueue.EnvName(q)] = "!Ref " + queueID(q)
	}
	for _, f := range tpl.Functions() {
		for k, v := range want {
			if f.Env[k] != v {
				t.Errorf("%s: env %s = %q, want %q", f.LogicalID, k, f.Env[k], v)
			}
		}
	}
}

func TestLeastPrivilege(t *testing.T) {
	tpl := load(t)
	for _, f := range tpl.Functions() {
		want, known := wantGrants[f.LogicalID]
		if !known {
			t.Errorf("%s: add its expected grants to wantGrants", f.LogicalID)
			continue
		}
		if !reflect.DeepEqual(f.Grants, want) {
			t.Errorf("%s grants = %+v, want %+v", f.LogicalID, f.Grants, want)
		}
		for _, g := range f.Grants {
			for _, r := range g.Resources {
				if _, ok := tpl.Resource(r); !ok {
					t.Errorf("%s: grant %s names %q, which is not a resource of the template", f.LogicalID, g.Policy, r)
				}
			}
		}
	}
}

func TestTables(t *testing.T) {
	tpl := load(t)
	var want []string
	for _, logical := range store.AllTables {
		want = append(want, tableID(logical))
	}
	slices.Sort(want)
	if got := tpl.Tables(); !slices.Equal(got, want) {
		t.Fatalf("Tables = %v, want one per store table: %v", got, want)
	}
	for _, logical := range store.AllTables {
		r, _ := tpl.Resource(tableID(logical))
		p := r.Properties
		check := func(what string, got any, want string) {
			t.Helper()
			if Raw(got) != want {
				t.Errorf("%s %s = %s, want %s", r.LogicalID, what, Raw(got), want)
			}
		}
		check("TableName", p["TableName"], "!Sub paygate-${Environment}-"+logical)
		check("BillingMode", p["BillingMode"], "PAY_PER_REQUEST")
		check("KeySchema", p["KeySchema"], `[{"AttributeName":"pk","KeyType":"HASH"},{"AttributeName":"sk","KeyType":"RANGE"}]`)
		check("AttributeDefinitions", p["AttributeDefinitions"], `[{"AttributeName":"pk","AttributeType":"S"},{"AttributeName":"sk","AttributeType":"S"}]`)
		check("PITR", mapOf(p["PointInTimeRecoverySpecification"])["PointInTimeRecoveryEnabled"], "true")
		check("SSE", mapOf(p["SSESpecification"])["SSEEnabled"], "true")
		check("TTL", p["TimeToLiveSpecification"], `{"AttributeName":"ttl","Enabled":true}`)
		check("DeletionProtectionEnabled", p["DeletionProtectionEnabled"], `!If ["IsProd",true,false]`)
		stream := ""
		if logical == store.TableEvents {
			stream = `{"StreamViewType":"NEW_IMAGE"}`
		}
		check("StreamSpecification", p["StreamSpecification"], stream)
	}
	if got := Raw(tpl.Conditions["IsProd"]); got != `!Equals [{"Ref":"Environment"},"prod"]` {
		t.Errorf("IsProd = %s", got)
	}
}

func TestQueuesDeadLetterWithAlarm(t *testing.T) {
	tpl := load(t)
	queues := map[string]Queue{}
	for _, q := range tpl.Queues() {
		queues[q.LogicalID] = q
	}
	if len(queues) != 4 {
		t.Errorf("%d queues, want fulfilment and webhooks with a DLQ each", len(queues))
	}
	for _, name := range []string{queue.Fulfilment, queue.Webhooks} {
		q, ok := queues[queueID(name)]
		if !ok {
			t.Errorf("no queue %s", queueID(name))
			continue
		}
		dlq := queues[q.DeadLetter]
		if q.Name != "!Sub paygate-${Environment}-"+name || dlq.Name != "!Sub paygate-${Environment}-"+queue.DLQName(name) {
			t.Errorf("%s: names %q and DLQ %q", q.LogicalID, q.Name, dlq.Name)
		}
		if q.MaxReceiveCount != queue.MaxReceives {
			t.Errorf("%s: maxReceiveCount %d, want queue.MaxReceives (%d)", q.LogicalID, q.MaxReceiveCount, queue.MaxReceives)
		}
		if q.RetentionSeconds != 4*24*3600 || dlq.RetentionSeconds != 14*24*3600 {
			t.Errorf("%s: retention %d s, DLQ %d s; want 4 and 14 days", q.LogicalID, q.RetentionSeconds, dlq.RetentionSeconds)
		}
		if dlq.DeadLetter != "" {
			t.Errorf("%s: the DLQ itself dead-letters to %s", dlq.LogicalID, dlq.DeadLetter)
		}
		for _, id := range []string{q.LogicalID, dlq.LogicalID} {
			r, _ := tpl.Resource(id)
			if Raw(r.Properties["SqsManagedSseEnabled"]) != "true" {
				t.Errorf("%s: SqsManagedSseEnabled is not true", id)
			}
		}
		if !hasDepthAlarm(tpl, q.DeadLetter) {
			t.Errorf("%s: no alarm on ApproximateNumberOfMessagesVisible > 0", q.DeadLetter)
		}
	}
}

// An SQS consumer must finish a batch well within the visibility timeout, or
// the batch is handed out again while it still runs.
func TestQueueVisibilityCoversConsumers(t *testing.T) {
	tpl := load(t)
	queues := map[string]Queue{}
	for _, q := range tpl.Queues() {
		queues[q.LogicalID] = q
	}
	// A consumer added with the Globals timeout must already fit.
	globalTimeout, ok := intOf(tpl.GlobalFunction["Timeout"])
	if !ok {
		t.Fatal("Globals.Function.Timeout is not set")
	}
	for _, q := range queues {
		if q.DeadLetter != "" && q.VisibilityTimeout < 6*globalTimeout {
			t.Errorf("%s: VisibilityTimeout %d s < 6 x the Globals Timeout %d s", q.LogicalID, q.VisibilityTimeout, globalTimeout)
		}
	}
	for _, f := range tpl.Functions() {
		for _, e := range f.Events {
			if e.Type != "SQS" {
				continue
			}
			q, ok := queues[e.Source]
			if !ok {
				t.Errorf("%s event %s: queue %q not in the template", f.LogicalID, e.Name, e.Source)
				continue
			}
			if q.VisibilityTimeout < 6*f.Timeout {
				t.Errorf("%s: VisibilityTimeout %d s < 6 x %s Timeout %d s", q.LogicalID, q.VisibilityTimeout, f.LogicalID, f.Timeout)
			}
		}
	}
}

func hasDepthAlarm(tpl *Template, dlq string) bool {
	for _, a := range tpl.ResourcesOfType(TypeAlarm) {
		p := a.Properties
		dims, _ := p["Dimensions"].([]any)
		if len(dims) != 1 || Raw(mapOf(dims[0])["Name"]) != "QueueName" ||
			Raw(mapOf(dims[0])["Value"]) != "!GetAtt "+dlq+".QueueName" {
			continue
		}
		if Raw(p["Namespace"]) == "AWS/SQS" &&
			Raw(p["MetricName"]) == "ApproximateNumberOfMessagesVisible" &&
			Raw(p["ComparisonOperator"]) == "GreaterThanThreshold" &&
			Raw(p["Threshold"]) == "0" {
			return true
		}
	}
	return false
}

func TestCustomDomainTLS12(t *testing.T) {
	tpl := load(t)
	domains := tpl.ResourcesOfType("AWS::ApiGatewayV2::DomainName")
	if len(domains) != 1 {
		t.Fatalf("%d custom domains, want 1", len(domains))
	}
	d := domains[0]
	if d.Condition != "HasCustomDomain" {
		t.Errorf("%s: Condition %q, want HasCustomDomain", d.LogicalID, d.Condition)
	}
	confs, _ := d.Properties["DomainNameConfigurations"].([]any)
	if len(confs) == 0 {
		t.Errorf("%s: no DomainNameConfigurations", d.LogicalID)
	}
	for _, c := range confs {
		if got := Raw(mapOf(c)["SecurityPolicy"]); got != "TLS_1_2" {
			t.Errorf("%s: SecurityPolicy %q, want TLS_1_2", d.LogicalID, got)
		}
	}
	for _, m := range tpl.ResourcesOfType("AWS::ApiGatewayV2::ApiMapping") {
		if m.Condition != "HasCustomDomain" || RefTarget(m.Properties["DomainName"]) != d.LogicalID {
			t.Errorf("%s: Condition %q, DomainName %s", m.LogicalID, m.Condition, Raw(m.Properties["DomainName"]))
		}
	}
	for _, api := range tpl.ResourcesOfType(TypeHTTPAPI) {
		if dom, ok := api.Properties["Domain"]; ok && Raw(mapOf(dom)["SecurityPolicy"]) != "TLS_1_2" {
			t.Errorf("%s: Domain SecurityPolicy is not TLS_1_2", api.LogicalID)
		}
	}
	if _, ok := tpl.Outputs["ApiUrl"]; !ok {
		t.Error("no ApiUrl output")
	}
}

// tableID is the logical id of a store table: accounts -> AccountsTable.
func tableID(logical string) string { return title(logical) + "Table" }

// queueID is the logical id of a queue: fulfilment -> FulfilmentQueue.
func queueID(name string) string { return title(name) + "Queue" }

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }
