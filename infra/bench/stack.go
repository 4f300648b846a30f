package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/paygate/paygate/infra/samtemplate"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring"
)

// Stack size: CloudFormation refuses a stack of more than 500 resources.
// template.yaml is a parent stack (tables, queues, the HTTP API, the
// dashboard) and one nested stack per area under infra/stacks
// (docs/architecture.md, Stack size). These rows count the resources of each
// template after the SAM transform (the translator of the pinned SAM CLI,
// offline), as CloudFormation will see them, and the headroom of each to
// stackTarget. Every declared group is a function of one of the stacks, with
// every route key derived from its declaration (the first row), so the
// counts are those of every group deployed.

// stackTarget is the budget of each stack: room for it to double and still
// be far from CloudFormation's 500 (the one-stack template reached 392 of
// its 400 budget before the split).
const stackTarget = 200

type stackCount struct {
	Total int            `json:"total"`
	Types map[string]int `json:"types"`
}

func stackRows(ctx context.Context, root string) ([]row, error) {
	tpl, err := samtemplate.Load(filepath.Join(root, samtemplate.FileName))
	if err != nil {
		return nil, err
	}
	rows := []row{undeployedRow(tpl)}
	py, err := samPython(ctx, root)
	if err != nil {
		return rows, err
	}
	dir, err := os.MkdirTemp("", "paygate-stack-")
	if err != nil {
		return rows, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "stack.py")
	if err := os.WriteFile(script, []byte(stackPy), 0o644); err != nil {
		return rows, err
	}
	total := 0
	for _, st := range tpl.Stacks() {
		cmd := exec.CommandContext(ctx, py, script, st.Path)
		cmd.Env = append(os.Environ(), "AWS_DEFAULT_REGION=us-east-1", "AWS_REGION=us-east-1", "SAM_CLI_TELEMETRY=0")
		out, err := cmd.Output()
		if err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return rows, fmt.Errorf("SAM transform of %s: %s", st.Path, lastLine(string(ee.Stderr)))
			}
			return rows, err
		}
		var n stackCount
		if err := json.Unmarshal(out, &n); err != nil {
			return rows, err
		}
		total += n.Total
		rows = append(rows, stackRow(root, st, n))
	}
	rows = append(rows, row{name: fmt.Sprintf("stack resources: all %d stacks", len(tpl.Stacks())), value: fmt.Sprint(total), target: "-", ok: "-"})
	return rows, nil
}

// stackRow is one stack's count, its largest kinds and its headroom.
func stackRow(root string, st samtemplate.Stack, n stackCount) row {
	rel, err := filepath.Rel(root, st.Path)
	if err != nil {
		rel = st.Path
	}
	name := "stack resources: " + filepath.ToSlash(rel)
	if st.LogicalID != "" {
		name += " (" + st.LogicalID + ")"
	} else {
		name += " (parent)"
	}
	functions := n.Types["AWS::Lambda::Function"]
	value := fmt.Sprintf("%d (%d functions, %d Lambda permissions, %d routes; headroom %d)", n.Total, functions,
		n.Types["AWS::Lambda::Permission"], n.Types["AWS::ApiGatewayV2::Route"], stackTarget-n.Total)
	return row{name: name, value: value, target: fmt.Sprintf("<= %d", stackTarget), ok: verdict(n.Total <= stackTarget)}
}

// undeployedRow names the declared groups no stack deploys, and the route
// keys derived from their declarations (registry.RouteKeys) that no stack
// routes: none, so the counts are those of every group deployed.
func undeployedRow(tpl *samtemplate.Template) row {
	groups := registry.Groups(wiring.Areas())
	routed := map[string]bool{}
	for _, r := range tpl.Routes() {
		routed[r.Function+" "+r.String()] = true
	}
	var missing []string
	keys := 0
	for fn, ks := range registry.RouteKeys(groups) {
		for _, k := range ks {
			keys++
			if !routed[fn+" "+k] {
				missing = append(missing, fn+" "+k)
			}
		}
	}
	for _, g := range groups {
		if _, ok := tpl.Function(g.Function); !ok {
			missing = append(missing, g.Function)
		}
	}
	sort.Strings(missing)
	value := fmt.Sprintf("none (%d groups, %d route keys)", len(groups), keys)
	if len(missing) > 0 {
		value = strings.Join(missing, ", ")
	}
	return row{name: "stack resources: declared groups and route keys not in a stack", value: value, target: "none", ok: verdict(len(missing) == 0)}
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

// stackPy counts the resources of one template after the SAM transform
// (run in the SAM venv).
const stackPy = `# Counts the resources of a SAM template after the transform, as
# CloudFormation will see them (the 500-resource limit applies to that).
# Runs in the SAM CLI's venv (samtranslator ships with it), offline: a local
# CodeUri or nested stack Location becomes an S3 location as sam package
# makes it, and no managed policy is looked up (the templates name none).
#
#   python stack.py TEMPLATE
import collections
import json
import logging
import sys

from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

logging.disable(logging.WARNING)


class NoManagedPolicies:
    def load(self):
        return {}


def main():
    tpl = yaml_parse(open(sys.argv[1]).read())
    for r in tpl["Resources"].values():
        if r["Type"] == "AWS::Serverless::Function":
            r["Properties"]["CodeUri"] = "s3://bucket/key"
        if r["Type"] == "AWS::Serverless::Application" and isinstance(r["Properties"].get("Location"), str):
            r["Properties"]["Location"] = "https://bucket.s3.amazonaws.com/key"
    params = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}
    out = transform(tpl, params, NoManagedPolicies())
    types = collections.Counter(r["Type"] for r in out["Resources"].values())
    print(json.dumps({"total": len(out["Resources"]), "types": types}))


main()
`
