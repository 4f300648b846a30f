package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/paygate/paygate/infra/samtemplate"
)

// function is what the invoker needs of a template function.
type function struct {
	LogicalID string
	File      string            // the template file declaring it (template.yaml or a nested stack's)
	CodeURI   string            // package directory, relative to template.yaml
	Env       map[string]string // literal environment variables only
	Timeout   time.Duration
	MemoryMB  int
	Routes    []string // HTTP API route keys, e.g. "GET /health"
}

// lookup finds logicalID among the functions of the template at path.
func lookup(path, logicalID string) (function, error) {
	fns, err := functions(path)
	if err != nil {
		return function{}, err
	}
	var known []string
	for _, f := range fns {
		if f.LogicalID == logicalID {
			return f, nil
		}
		known = append(known, f.LogicalID)
	}
	sort.Strings(known)
	return function{}, fmt.Errorf("no function %q in %s; known: %s", logicalID, path, strings.Join(known, ", "))
}

// functions lists the template's functions.
func functions(path string) ([]function, error) {
	t, err := samtemplate.Load(path)
	if err != nil {
		return nil, err
	}
	var out []function
	for _, f := range t.Functions() {
		fn := function{
			LogicalID: f.LogicalID, File: f.File, CodeURI: filepath.ToSlash(f.CodeURI), Env: literalEnv(f.Env),
			Timeout: time.Duration(f.Timeout) * time.Second, MemoryMB: f.MemorySize,
		}
		for _, r := range f.Routes {
			fn.Routes = append(fn.Routes, r.String())
		}
		out = append(out, fn)
	}
	return out, nil
}

// literalEnv drops the variables set by intrinsics (samtemplate gives them
// as "!Ref X", "!Sub ..."): their values only exist in a deployed stack.
func literalEnv(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		if !strings.HasPrefix(v, "!") {
			out[k] = v
		}
	}
	return out
}
