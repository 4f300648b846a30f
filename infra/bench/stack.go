package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring"
)

// Stack size: CloudFormation refuses a stack of more than 500 resources, and
// SAM adds an AWS::Lambda::Permission per HttpApi event. These rows count the
// resources of the transformed template (the SAM translator of the pinned SAM
// CLI, offline) today, and of the template projected to every group of the
// spec, once with one event per route (the old structure) and once with the
// per-group route keys derived from the declarations (registry.RouteKeys,
// the structure template.yaml uses), both with the delivery rules every
// function of template.yaml follows (alias, alarm, and on the money paths a
// deployment preference and a latency alarm).

// stackTarget is the budget: CloudFormation's hard limit is 500, and 100
// are kept for what later issues add. It was 300 before the delivery issue
// gave every function a version, an alias and an alarm (docs/architecture.md, Stack size).
const stackTarget = 400

// projected are the spec's groups that are not built yet, with the routes
// their issues name (service-interface.md section 1.1 and 4.5, issues 9-16).
var projected = []registry.Group{
	group("DirectPaymentsFunction", "GET /v1/payments/direct/keys", "POST /v1/payments/direct"),
	group("WalletFunction", "POST /v1/wallet/authorize", "POST /v1/wallet/{id}/capture", "POST /v1/wallet/{id}/refund",
		"POST /v1/wallet/{id}/cancel", "GET /v1/wallet/transaction/{id}", "GET /v1/wallet/transactions",
		"POST /test-helpers/wallet/{id}/confirm", "POST /test-helpers/wallet/{id}/decline"),
	group("WalletSessionsFunction", "POST /v1/applepay/sessions", "POST /v1/applepay/decode", "POST /v1/googlepay/sessions",
		"POST /v1/googlepay/decode"),
	group("WebhookEndpointsFunction", "POST /v1/webhook-endpoints", "GET /v1/webhook-endpoints", "GET /v1/webhook-endpoints/{id}",
		"POST /v1/webhook-endpoints/{id}", "DELETE /v1/webhook-endpoints/{id}", "POST /v1/webhook-endpoints/{id}/roll-secret",
		"GET /v1/webhook-endpoints/{id}/deliveries"),
	group("EventsFunction", "GET /v1/events", "GET /v1/events/{id}", "POST /v1/events/{id}/resend"),
}

// specGroups is every declared group plus the projected ones; a projected
// group that is declared now (built in part) adds only the routes it does not
// declare yet, so no function or route is counted twice.
func specGroups() []registry.Group {
	all := registry.Groups(wiring.Areas())
	for _, pg := range projected {
		i := slices.IndexFunc(all, func(g registry.Group) bool { return g.Function == pg.Function })
		if i < 0 {
			all = append(all, pg)
			continue
		}
		g := all[i]
		g.Routes = slices.Clone(g.Routes)
		for _, r := range pg.Routes {
			if !slices.ContainsFunc(g.Routes, func(d registry.Route) bool { return d.Pattern() == r.Pattern() }) {
				g.Routes = append(g.Routes, r)
			}
		}
		all[i] = g
	}
	return all
}

func group(fn string, routes ...string) registry.Group {
	g := registry.Group{Function: fn}
	for _, r := range routes {
		m, p, _ := strings.Cut(r, " ")
		g.Routes = append(g.Routes, registry.Route{Method: m, Path: p})
	}
	return g
}

// projection is what stackPy adds to the template (see its comment).
type projection struct {
	Like              string              `json:"like"`
	Functions         map[string][]string `json:"functions"`
	Consumers         map[string]string   `json:"consumers"`
	Schedules         []string            `json:"schedules"`
	Tables            []string            `json:"tables"`
	Queues            []string            `json:"queues"`
	PerFunctionAlarms int                 `json:"per_function_alarms,omitempty"`
	Alias             bool                `json:"alias,omitempty"`
	Canary            []string            `json:"canary,omitempty"`
}

// fullSpec is every group of the spec with the route keys keys gives, and
// the other resources its issues add: the webhook publisher (events stream)
// and sender (webhooks queue), and a table per new area (customers and card
// tokens, payment links and disputes live in the payments table; invoices and
// beneficiaries in the ledger table; links, invoices and payment orders have
// their own expirers and queue, disputes their sweeper: all built).
func fullSpec(keys func([]registry.Group) map[string][]string) projection {
	all := specGroups()
	p := projection{
		Like: "MerchantsFunction", Functions: map[string][]string{},
		Consumers: map[string]string{"WebhookPublisherFunction": "EventsTable", "WebhookSenderFunction": "WebhooksQueue"},
		Schedules: []string{},
		Tables:    []string{},
		Queues:    []string{},
	}
	for fn, k := range keys(all) {
		p.Functions[fn] = k
	}
	return p
}

// perRoute is the old structure: one HttpApi event (one permission) per
// route, plus the catch-all.
func perRoute(groups []registry.Group) map[string][]string {
	out := map[string][]string{}
	for _, g := range groups {
		if g.CatchAll {
			out[g.Function] = append(out[g.Function], registry.DefaultRoute)
		}
		for _, r := range g.Routes {
			out[g.Function] = append(out[g.Function], r.Pattern())
		}
	}
	return out
}

// withDelivery adds the delivery issue's resources as template.yaml has
// them: every function behind an alias, one alarm per function (errors and
// throttles, one metric-math alarm), and on the money paths a deployment
// preference and a p99 latency alarm. Functions of the template already
// have theirs; the projected ones get copies.
func withDelivery(p projection) projection {
	p.Alias = true
	p.PerFunctionAlarms = 1
	// The declared groups say whether they are money paths (MoneyPath); the
	// projected ones that will move money are listed.
	for _, g := range registry.Groups(wiring.Areas()) {
		if g.MoneyPath {
			p.Canary = append(p.Canary, g.Function)
		}
	}
	for _, fn := range projectedMoneyPaths {
		if !slices.Contains(p.Canary, fn) {
			p.Canary = append(p.Canary, fn)
		}
	}
	return p
}

// projectedMoneyPaths are the groups not built yet whose requests will take
// or move money.
var projectedMoneyPaths = []string{"DirectPaymentsFunction"}

type stackCount struct {
	Total int            `json:"total"`
	Types map[string]int `json:"types"`
}

func stackRows(ctx context.Context, root string) ([]row, error) {
	py, err := samPython(ctx, root)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "paygate-stack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "stack.py")
	if err := os.WriteFile(script, []byte(stackPy), 0o644); err != nil {
		return nil, err
	}
	count := func(p *projection) (stackCount, error) {
		args := []string{script, filepath.Join(root, "template.yaml")}
		if p != nil {
			b, _ := json.Marshal(p)
			f := filepath.Join(dir, "projection.json")
			if err := os.WriteFile(f, b, 0o644); err != nil {
				return stackCount{}, err
			}
			args = append(args, f)
		}
		cmd := exec.CommandContext(ctx, py, args...)
		cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=us-east-1", "AWS_REGION=us-east-1", "SAM_CLI_TELEMETRY=0")
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return stackCount{}, fmt.Errorf("SAM transform: %s", lastLine(string(ee.Stderr)))
			}
			return stackCount{}, err
		}
		var c stackCount
		return c, json.Unmarshal(out, &c)
	}
	routes, groups := 0, len(specGroups())+extraFunctions()
	for _, g := range specGroups() {
		routes += len(g.Routes)
	}
	cases := []struct {
		name   string
		p      *projection
		target bool
	}{
		{"stack resources: template.yaml today", nil, true},
		{fmt.Sprintf("stack resources: full spec (%d functions, %d routes), one event per route", groups, routes), ptr(withDelivery(fullSpec(perRoute))), false},
		{"stack resources: full spec, per-group route keys (template.yaml's structure and delivery rules)", ptr(withDelivery(fullSpec(registry.RouteKeys))), true},
	}
	var rows []row
	for _, c := range cases {
		n, err := count(c.p)
		if err != nil {
			return rows, err
		}
		r := row{name: c.name, value: fmt.Sprintf("%d (%d Lambda permissions)", n.Total, n.Types["AWS::Lambda::Permission"]), target: "-", ok: "-"}
		if c.target {
			r.target, r.ok = fmt.Sprintf("< %d", stackTarget), verdict(n.Total < stackTarget)
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func ptr[T any](v T) *T { return &v }

// extraFunctions counts the projection's consumers and schedules that no
// group declares yet (the declared ones replace their template copies).
func extraFunctions() int {
	p := fullSpec(registry.RouteKeys)
	n := 0
	declared := map[string]bool{}
	for _, g := range specGroups() {
		declared[g.Function] = true
	}
	for fn := range p.Consumers {
		if !declared[fn] {
			n++
		}
	}
	for _, fn := range p.Schedules {
		if !declared[fn] {
			n++
		}
	}
	return n
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// samPython is the SAM CLI venv's python (the translator ships with the CLI),
// installed by infra/scripts/sam.sh when missing.
func samPython(ctx context.Context, root string) (string, error) {
	cache := os.Getenv("PAYGATE_CACHE")
	if cache == "" {
		cache = filepath.Join(root, ".cache")
	}
	py := filepath.Join(cache, "sam-venv", "bin", "python")
	install := exec.CommandContext(ctx, filepath.Join(root, "infra", "scripts", "sam.sh"), "--version")
	install.Stdout, install.Stderr = os.Stderr, os.Stderr
	if err := install.Run(); err != nil {
		return "", fmt.Errorf("install the SAM CLI: %w", err)
	}
	return py, nil
}

// stackPy counts the transformed template's resources (run in the SAM venv).
const stackPy = `# Counts the resources of template.yaml after the SAM transform, as
# CloudFormation will see them (the 500-resource limit applies to that).
# Runs in the SAM CLI's venv (samtranslator ships with it), offline: a local
# CodeUri becomes an S3 location as sam validate does, and no managed policy
# is looked up (the template names none).
#
#   python stack.py TEMPLATE [PROJECTION.json]
#
# A projection rewrites the template before the transform: "functions" maps a
# logical id to its HTTP API route keys (a new id is a copy of "like" with
# them), "consumers" adds queue or stream consumers and "schedules" scheduled
# functions, "tables" and "queues" add copies of a table and of a queue with
# its DLQ and alarm, "per_function_alarms" adds that many alarms per function
# (the first is its ErrorsAlarm, kept when the template has it),
# "alias" publishes every function through an alias, "canary" lists functions
# that get a CodeDeploy deployment preference and a LatencyAlarm.
import collections
import copy
import json
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse


class NoManagedPolicies:
    def load(self):
        return {}


def http_events(keys):
    events = {}
    for i, key in enumerate(keys):
        props = {"ApiId": {"Ref": "HttpApi"}}
        if key != "$default":
            method, path = key.split(" ", 1)
            props.update({"Method": method, "Path": path})
        events["Route%d" % i] = {"Type": "HttpApi", "Properties": props}
    return events


def project(tpl, p):
    res = tpl["Resources"]
    like = p.get("like", "MerchantsFunction")
    for fid, keys in p.get("functions", {}).items():
        if fid not in res:
            res[fid] = copy.deepcopy(res[like])
            res[fid]["Properties"]["FunctionName"] = {"Fn::Sub": "paygate-${Environment}-" + fid.lower()}
        props = res[fid]["Properties"]
        others = {k: v for k, v in props.get("Events", {}).items() if v.get("Type") != "HttpApi"}
        props["Events"] = {**others, **http_events(keys)}
    for fid, source in p.get("consumers", {}).items():
        res[fid] = copy.deepcopy(res[like])
        res[fid]["Properties"]["FunctionName"] = {"Fn::Sub": "paygate-${Environment}-" + fid.lower()}
        if source.endswith("Table"):
            ev = {"Type": "DynamoDB", "Properties": {"Stream": {"Fn::GetAtt": [source, "StreamArn"]}, "StartingPosition": "LATEST"}}
        else:
            ev = {"Type": "SQS", "Properties": {"Queue": {"Fn::GetAtt": [source, "Arn"]}}}
        res[fid]["Properties"]["Events"] = {"Source": ev}
    for fid in p.get("schedules", []):
        res[fid] = copy.deepcopy(res[like])
        res[fid]["Properties"]["FunctionName"] = {"Fn::Sub": "paygate-${Environment}-" + fid.lower()}
        res[fid]["Properties"]["Events"] = {"Every": {"Type": "Schedule", "Properties": {"Schedule": "rate(5 minutes)"}}}
    for name in p.get("tables", []):
        t = copy.deepcopy(res["AccountsTable"])
        t["Properties"]["TableName"] = {"Fn::Sub": "paygate-${Environment}-" + name}
        res[name.capitalize() + "Table"] = t
    for name in p.get("queues", []):
        base = name.capitalize()
        q, dlq, alarm = (copy.deepcopy(res[k]) for k in ("FulfilmentQueue", "FulfilmentDLQ", "FulfilmentDLQAlarm"))
        q["Properties"]["RedrivePolicy"]["deadLetterTargetArn"] = {"Fn::GetAtt": [base + "DLQ", "Arn"]}
        alarm["Properties"]["Dimensions"][0]["Value"] = {"Fn::GetAtt": [base + "DLQ", "QueueName"]}
        res[base + "Queue"], res[base + "DLQ"], res[base + "DLQAlarm"] = q, dlq, alarm
    functions = [k for k, v in res.items() if v["Type"] == "AWS::Serverless::Function"]
    if p.get("alias"):
        tpl["Globals"]["Function"]["AutoPublishAlias"] = "live"
    def alarm(fid, name):
        # a function that has its alarm in the template keeps it
        if fid[:-len("Function")] + name not in res:
            a = copy.deepcopy(res["FulfilmentDLQAlarm"])
            a["Properties"]["Dimensions"] = [{"Name": "FunctionName", "Value": {"Ref": fid}}]
            res[fid[:-len("Function")] + name] = a
    for fid in p.get("canary", []):
        if "DeploymentPreference" not in res[fid]["Properties"]:
            res[fid]["Properties"]["DeploymentPreference"] = {"Type": "AllAtOnce"}
        alarm(fid, "LatencyAlarm")
    for fid in functions:
        for i in range(p.get("per_function_alarms", 0)):
            alarm(fid, "ErrorsAlarm" if i == 0 else "Alarm%d" % i)


def main():
    tpl = yaml_parse(open(sys.argv[1]).read())
    if len(sys.argv) > 2:
        project(tpl, json.load(open(sys.argv[2])))
    for r in tpl["Resources"].values():
        if r["Type"] == "AWS::Serverless::Function":
            r["Properties"]["CodeUri"] = "s3://bucket/key"
    params = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}
    out = transform(tpl, params, NoManagedPolicies())
    types = collections.Counter(r["Type"] for r in out["Resources"].values())
    print(json.dumps({"total": len(out["Resources"]), "types": types}))


main()
`
