package main

import (
	"path/filepath"
	"strings"

	"github.com/paygate/paygate/infra/samtemplate"
)

// function is what the benchmarks need of a template function.
type function struct {
	LogicalID string
	CodeURI   string
	Env       map[string]string // literal variables only
}

func templateFunctions(root string) ([]function, error) {
	t, err := samtemplate.Load(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	var out []function
	for _, f := range t.Functions() {
		out = append(out, function{LogicalID: f.LogicalID, CodeURI: filepath.ToSlash(f.CodeURI), Env: literalEnv(f.Env)})
	}
	return out, nil
}

func findFunction(fns []function, id string) (function, bool) {
	for _, f := range fns {
		if f.LogicalID == id {
			return f, true
		}
	}
	return function{}, false
}

// literalEnv drops the variables set by intrinsics ("!Ref X"): their values
// only exist in a deployed stack.
func literalEnv(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		if !strings.HasPrefix(v, "!") {
			out[k] = v
		}
	}
	return out
}
