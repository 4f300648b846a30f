// Package openapi holds the service's OpenAPI 3.1 document. It is kept as a
// base file plus one fragment per function group (spec/paths-*.json), merged
// once at load, so each group's paths and schemas live beside each other and
// teams adding groups do not edit one big file.
package openapi

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed spec/*.json
var files embed.FS

var (
	once   sync.Once
	merged []byte
	errDoc error
)

// Document returns the merged document of base.json and every fragment.
// Which group a fragment documents is declared with the group (its OpenAPI
// field, shared/platform/registry); the package test holds each fragment to exactly
// the routes of the groups naming it, and every fragment to some group. A
// broken fragment is a build-time bug the test catches, and Document panics
// rather than serve a partial contract.
func Document() []byte {
	once.Do(func() {
		var names []string
		if names, errDoc = Fragments(); errDoc == nil {
			merged, errDoc = Merge(append(names, ErrorCodes)...)
		}
	})
	if errDoc != nil {
		panic(errDoc)
	}
	return merged
}

// ErrorCodes is the fragment that holds the ErrorCode schema: the
// registered error codes, generated from the registry (shared/platform/wiring's
// TestErrorCodes keeps it current).
const ErrorCodes = "error-codes.json"

// Fragments lists the fragment files (paths-*.json), sorted.
func Fragments() ([]string, error) {
	names, err := fs.Glob(files, "spec/paths-*.json")
	for i, n := range names {
		names[i] = strings.TrimPrefix(n, "spec/")
	}
	sort.Strings(names)
	return names, err
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Merge merges base.json with the named fragments, in the order given; a
// path or schema defined twice is an error.
func Merge(names ...string) ([]byte, error) {
	var base map[string]any
	if err := readJSON("spec/base.json", &base); err != nil {
		return nil, err
	}
	paths := asMap(base, "paths")
	comps := asMap(base, "components")
	schemas := asMap(comps, "schemas")
	for _, name := range names {
		name = "spec/" + name
		var frag struct {
			Paths      map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := readJSON(name, &frag); err != nil {
			return nil, err
		}
		for p, v := range frag.Paths {
			if _, dup := paths[p]; dup {
				return nil, fmt.Errorf("openapi: path %s defined twice (%s)", p, name)
			}
			paths[p] = v
		}
		for s, v := range frag.Components.Schemas {
			if _, dup := schemas[s]; dup {
				return nil, fmt.Errorf("openapi: schema %s defined twice (%s)", s, name)
			}
			schemas[s] = v
		}
	}
	return json.Marshal(base)
}

func readJSON(name string, v any) error {
	b, err := files.ReadFile(name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("openapi: %s: %w", name, err)
	}
	return nil
}

func asMap(m map[string]any, key string) map[string]any {
	v, ok := m[key].(map[string]any)
	if !ok {
		v = map[string]any{}
		m[key] = v
	}
	return v
}
