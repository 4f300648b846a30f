package openapi

import (
	"encoding/json"
	"slices"
	"sort"
)

// Test-only helpers: nothing outside the tests calls these.

// Fragment returns one fragment's paths: path -> lower-case methods.
func Fragment(name string) (map[string][]string, error) {
	var frag struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := readJSON("spec/"+name, &frag); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for p, ops := range frag.Paths {
		for m := range ops {
			if slices.Contains(httpMethods, m) {
				out[p] = append(out[p], m)
			}
		}
		sort.Strings(out[p])
	}
	return out, nil
}
