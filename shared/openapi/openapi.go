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
	"sync"
)

//go:embed spec/*.json
var files embed.FS

var (
	once   sync.Once
	merged []byte
	errDoc error
)

// Document returns the merged document. A broken fragment is a build-time
// bug; the package test catches it, and Document panics rather than serve a
// partial contract.
func Document() []byte {
	once.Do(func() { merged, errDoc = merge() })
	if errDoc != nil {
		panic(errDoc)
	}
	return merged
}

func merge() ([]byte, error) {
	var base map[string]any
	if err := readJSON("spec/base.json", &base); err != nil {
		return nil, err
	}
	paths := asMap(base, "paths")
	comps := asMap(base, "components")
	schemas := asMap(comps, "schemas")
	names, err := fs.Glob(files, "spec/paths-*.json")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, name := range names {
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
