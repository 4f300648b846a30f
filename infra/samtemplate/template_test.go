package samtemplate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/shared/aws/dynamostore"
	"github.com/paygate/paygate/shared/aws/sqsqueue"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/queue"
	"github.com/paygate/paygate/shared/store"
)

// These tests hold the real template.yaml to the deployment rules and to the
// group declarations (shared/platform/registry, listed by shared/platform/wiring): the routes,
// event sources, CodeUri and policies each function must have are derived
// from its group's declaration, so adding a group is its package, its
// functions/ entry and its template.yaml block.

const templatePath = "../../" + FileName

func load(t *testing.T) *Template {
	t.Helper()
	tpl, err := Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func declared() map[string]registry.Group {
	out := map[string]registry.Group{}
	for _, g := range registry.Groups(wiring.Areas()) {
		out[g.Function] = g
	}
	return out
}

// Every function is a declared group and every group a function, with its
// CodeUri and the event source of its kind.
func TestFunctionsAreTheDeclaredGroups(t *testing.T) {
	tpl := load(t)
	groups := declared()
	var fns []string
	for _, f := range tpl.Functions() {
		fns = append(fns, f.LogicalID)
		g, ok := groups[f.LogicalID]
		if !ok {
			t.Errorf("%s is in template.yaml but no area declares it (shared/platform/registry)", f.LogicalID)
			continue
		}
		if f.CodeURI != "functions/"+g.Dir {
			t.Errorf("%s: CodeUri %q, want functions/%s", f.LogicalID, f.CodeURI, g.Dir)
		}
		var types []string
		for _, e := range f.Events {
			types = append(types, e.Type)
			switch {
			case e.Type == "SQS" && e.Source != queueID(g.Consumes):
				t.Errorf("%s consumes %s, its declaration %s", f.LogicalID, e.Source, queueID(g.Consumes))
			case e.Type == "Schedule" && Raw(e.Properties["Schedule"]) != rate(g.Every):
				t.Errorf("%s: Schedule %s, its declaration every %s", f.LogicalID, Raw(e.Properties["Schedule"]), g.Every)
			case e.Type == "DynamoDB" && e.Source != TableID(g.Streams):
				t.Errorf("%s consumes the stream of %s, its declaration %s", f.LogicalID, e.Source, TableID(g.Streams))
			}
		}
		types = slices.Compact(types)
		want := map[string][]string{"http": {"HttpApi"}, "sqs": {"SQS"}, "schedule": {"Schedule"}, "stream": {"DynamoDB"}}[g.Kind()]
		if !slices.Equal(types, want) {
			t.Errorf("%s: event types %v, want %v for a %s group", f.LogicalID, types, want, g.Kind())
		}
	}
	if want := SortedFunctions(registry.Groups(wiring.Areas())); !slices.Equal(fns, want) {
		t.Errorf("template functions %v, declared groups %v", fns, want)
	}
}

func rate(d time.Duration) string {
	if d%time.Hour == 0 {
		return fmt.Sprintf("rate(%d hour%s)", d/time.Hour, plural(d/time.Hour))
	}
	return fmt.Sprintf("rate(%d minute%s)", d/time.Minute, plural(d/time.Minute))
}

func plural(n time.Duration) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Each function's HttpApi route keys are exactly the ones derived from the
// declarations (registry.RouteKeys): a few per group, not one per route.
func TestRouteKeysAreDerived(t *testing.T) {
	want := registry.RouteKeys(registry.Groups(wiring.Areas()))
	for _, f := range load(t).Functions() {
		var got []string
		for _, r := range f.Routes {
			got = append(got, r.String())
		}
		slices.Sort(got)
		if !slices.Equal(got, want[f.LogicalID]) {
			t.Errorf("%s route keys = %v, want %v (derived from its declared routes; an AWS::ApiGatewayV2::Route each, in its stack under infra/stacks)", f.LogicalID, got, want[f.LogicalID])
		}
	}
}

// Resolving requests the way API Gateway does over the template's route
// keys, every declared route reaches its own group's function and no other;
// a path no group declares reaches the catch-all, which answers the
// documented 404.
func TestEveryDeclaredRouteReachesItsFunction(t *testing.T) {
	keys := map[string]string{}
	for _, r := range load(t).Routes() {
		keys[r.String()] = r.Function
	}
	var catchAll string
	for _, g := range registry.Groups(wiring.Areas()) {
		if g.CatchAll {
			catchAll = g.Function
		}
		for _, r := range g.Routes {
			for _, sample := range []string{"x1", "other"} {
				path := samplePath(r.Path, sample)
				fn, key, ok := Match(keys, r.Method, path)
				if !ok || fn != g.Function {
					t.Errorf("%s %s (declared by %s) reaches %q through %q", r.Method, path, g.Function, fn, key)
				}
			}
		}
	}
	for _, path := range []string{"/", "/nothing/here", "/v2", "/test-helpers/unknown/x"} {
		if fn, _, _ := Match(keys, "GET", path); fn != catchAll {
			t.Errorf("GET %s reaches %q, want the catch-all %s", path, fn, catchAll)
		}
	}
}

func samplePath(p, value string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") {
			segs[i] = value
		}
	}
	return strings.Join(segs, "/")
}

// Every function is granted exactly what its declaration lists: per table
// the DynamoDB actions it calls, per queue send or poll. Least privilege.
func TestLeastPrivilege(t *testing.T) {
	tpl := load(t)
	groups := declared()
	for _, f := range tpl.Functions() {
		g, ok := groups[f.LogicalID]
		if !ok {
			continue // TestFunctionsAreTheDeclaredGroups reports it
		}
		want := wantGrants(g)
		if !reflect.DeepEqual(f.Grants, want) {
			t.Errorf("%s grants = %+v, want %+v (its declaration)", f.LogicalID, f.Grants, want)
		}
		for _, gr := range f.Grants {
			for _, r := range gr.Resources {
				if _, ok := tpl.Resource(r); !ok {
					t.Errorf("%s: grant %s names %q, which is not a resource of the template", f.LogicalID, gr.Policy, r)
				}
			}
		}
	}
}

// wantGrants are the policies a group's function must carry, in order: per
// table the DynamoDB actions it calls, per queue send or poll, its other
// grants, and for a stream consumer the derived stream grants (read on its
// table's stream, send on its DLQ).
func wantGrants(g registry.Group) []Grant {
	var want []Grant
	for _, tb := range g.Tables {
		want = append(want, Grant{Policy: "Statement", Actions: TableActions(tb), Resources: []string{TableID(tb.Name)}})
	}
	for _, q := range g.Queues {
		want = append(want, Grant{Policy: "Statement", Actions: QueueActions(q.Access), Resources: []string{queueID(q.Name)}})
	}
	for _, gr := range g.Grants {
		want = append(want, Grant(gr))
	}
	for _, gr := range StreamGrants(g) {
		want = append(want, Grant(gr))
	}
	return want
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
		want[dynamostore.EnvVar(logical)] = "!Ref " + TableID(logical)
	}
	for _, q := range queue.Names {
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

func TestTables(t *testing.T) {
	tpl := load(t)
	var want []string
	for _, logical := range store.AllTables {
		want = append(want, TableID(logical))
	}
	slices.Sort(want)
	if got := tpl.Tables(); !slices.Equal(got, want) {
		t.Fatalf("Tables = %v, want one per store table: %v", got, want)
	}
	for _, logical := range store.AllTables {
		r, _ := tpl.Resource(TableID(logical))
		p := r.Properties
		check := func(what string, got any, want string) {
			t.Helper()
			if Raw(got) != want {
				t.Errorf("%s %s = %s, want %s", r.LogicalID, what, Raw(got), want)
			}
		}
		check("TableName", p["TableName"], "!Sub paygate-${Environment}-"+logical)
		check("BillingMode", p["BillingMode"], `!If ["ProvisionedTables","PROVISIONED","PAY_PER_REQUEST"]`) // TestEveryTableScalesWhenProvisioned
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
	streams := 0
	for _, g := range declared() {
		if g.Kind() == "stream" {
			streams++ // its own DLQ, checked by TestStreamConsumersReadTheirStream
		}
	}
	names := queue.Names
	if len(queues) != 2*len(names)+streams {
		t.Errorf("%d queues, want %v with a DLQ each, and a DLQ per stream consumer (%d)", len(queues), names, streams)
	}
	for _, name := range names {
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

// A consumer's template Timeout is its declaration's, which the local
// gateway runs it with; the Globals timeout is registry.DefaultTimeout.
func TestConsumerTimeoutsAreDeclared(t *testing.T) {
	tpl := load(t)
	if g, ok := intOf(tpl.GlobalFunction["Timeout"]); !ok || time.Duration(g)*time.Second != registry.DefaultTimeout {
		t.Errorf("Globals Timeout %v, want registry.DefaultTimeout (%s)", tpl.GlobalFunction["Timeout"], registry.DefaultTimeout)
	}
	groups := declared()
	for _, f := range tpl.Functions() {
		g, ok := groups[f.LogicalID]
		if !ok || g.Kind() == "http" {
			continue
		}
		if want := g.FunctionTimeout(); time.Duration(f.Timeout)*time.Second != want {
			t.Errorf("%s: Timeout %d s, its declaration %s", f.LogicalID, f.Timeout, want)
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

// queueID is a logical queue's resource: fulfilment -> FulfilmentQueue,
// wallet-confirmations -> WalletConfirmationsQueue, webhooks-dlq -> WebhooksDLQ.
func queueID(name string) string {
	suffix := "Queue"
	if base, ok := strings.CutSuffix(name, queue.DLQName("")); ok {
		name, suffix = base, "DLQ"
	}
	id := ""
	for _, part := range strings.Split(name, "-") {
		id += title(part)
	}
	return id + suffix
}

func title(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// TestSigningKeyPolicyReadsOneParameter holds the checkout functions' secret
// grant to least privilege: GetParameter on the one parameter and nothing
// else. No kms:Decrypt statement: the parameter is a SecureString under
// AWS's managed key for Parameter Store (aws/ssm), whose key policy lets the
// account's principals decrypt through SSM; the statement it had named every
// key of the account (key/*). The wallet secrets' policy is the same.
func TestSigningKeyPolicyReadsOneParameter(t *testing.T) {
	tpl := load(t)
	for id, param := range map[string]string{"SessionSigningSecretReadPolicy": "session-signing-secret", "WalletSecretsReadPolicy": "wallet-secrets"} {
		r, ok := tpl.Resource(id)
		if !ok || r.Type != "AWS::IAM::ManagedPolicy" {
			t.Fatalf("%s: %+v, want an AWS::IAM::ManagedPolicy", id, r)
		}
		doc := mapOf(r.Properties["PolicyDocument"])
		stmts, _ := doc["Statement"].([]any)
		if len(stmts) != 1 {
			t.Fatalf("%s: %d statements, want 1 (ssm:GetParameter)", id, len(stmts))
		}
		ssm := mapOf(stmts[0])
		if got := strs(ssm["Action"]); !slices.Equal(got, []string{"ssm:GetParameter"}) {
			t.Errorf("%s: actions = %v, want [ssm:GetParameter]", id, got)
		}
		if res := Raw(ssm["Resource"]); !strings.HasSuffix(res, ":parameter/paygate/${Environment}/"+param) {
			t.Errorf("%s: resource = %q, want the one %s parameter", id, res, param)
		}
	}
	for _, id := range []string{"CheckoutSessionsFunction", "CheckoutPaymentsFunction", "CheckoutClientFunction", "CheckoutTestHelpersFunction"} {
		f, ok := tpl.Function(id)
		if !ok {
			t.Fatalf("%s missing", id)
		}
		if _, set := f.Env["SESSION_SIGNING_SECRET"]; set {
			t.Errorf("%s: the secret itself is in the function's configuration", id)
		}
		if f.Env["SESSION_SIGNING_SECRET_PARAM"] == "" {
			t.Errorf("%s: no SESSION_SIGNING_SECRET_PARAM: it cannot find its signing keys", id)
		}
	}
}

// TestPreflightsReachTheDropinsFunction: a CORS preflight carries no key, so
// the client function decides it per session (shared/pay/checkout cors.go). The
// HTTP API must not answer preflights itself: no CorsConfiguration (API
// Gateway would answer every OPTIONS with a fixed origin list before any
// route), and the drop-in's OPTIONS reach CheckoutClientFunction.
func TestPreflightsReachTheDropinsFunction(t *testing.T) {
	tpl := load(t)
	apis := append(tpl.ResourcesOfType(TypeHTTPAPI), tpl.ResourcesOfType(TypeAPI)...)
	if len(apis) != 1 {
		t.Errorf("%d HTTP APIs, want 1", len(apis))
	}
	for _, api := range apis {
		if _, ok := api.Properties["CorsConfiguration"]; ok {
			t.Errorf("%s has a CorsConfiguration: preflights must reach the client function", api.LogicalID)
		}
		// An imported OpenAPI body replaces the API's routes: the nested
		// stacks' routes would go on the next update of the API.
		for _, body := range []string{"Body", "BodyS3Location", "DefinitionBody", "DefinitionUri"} {
			if _, ok := api.Properties[body]; ok {
				t.Errorf("%s has a %s: it would replace the routes of the nested stacks", api.LogicalID, body)
			}
		}
	}
	keys := map[string]string{}
	for _, r := range tpl.Routes() {
		keys[r.String()] = r.Function
	}
	for _, path := range []string{"/v2/client/sessions/CS1/setup", "/v2/client/sessions/CS1/payments/details"} {
		if fn, key, _ := Match(keys, "OPTIONS", path); fn != "CheckoutClientFunction" {
			t.Errorf("OPTIONS %s reaches %q through %q, want CheckoutClientFunction", path, fn, key)
		}
	}
}
