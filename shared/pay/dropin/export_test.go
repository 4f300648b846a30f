package dropin

import (
	"slices"
	"strings"
)

// Test-only helpers: nothing outside the tests calls these.

// Versions lists the served versions.
func Versions() []string {
	once.Do(load)
	seen := map[string]bool{}
	var out []string
	for k := range files {
		v, _, _ := strings.Cut(k, "/")
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}
