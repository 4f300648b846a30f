// Package version implements dated API versions the way Stripe does: the code
// always builds the current representation, and each dated Change knows how to
// turn it back into the representation of the version before it. A response
// for an older version gets every newer change applied, newest first.
package version

import (
	"slices"
	"sort"
	"strings"
)

// Header is the request header that pins a version; responses echo it.
const Header = "Service-Version"

// Current is the newest version; new accounts default to it.
const Current = "2024-01-15"

// Ctx tells a change what it is transforming.
type Ctx struct {
	Kind   string // resource kind ("payment", "order", "error", "event", ...)
	Status int    // HTTP status of the response (0 for webhook payloads)
}

// Change is one breaking change, introduced in Version. Down rewrites obj (a
// decoded JSON object of the current shape) into the shape of the previous
// version, in place or by returning a new value. Kinds limits the change to
// some resource kinds; empty means every resource.
type Change struct {
	Version     string
	Description string
	Kinds       []string
	Down        func(c Ctx, obj map[string]any) map[string]any
}

// Released is the list of versions, newest first, each with its changes.
// Versions are supported for at least 12 months after they are deprecated.
var released = []string{"2024-01-15", "2023-09-01", "2023-06-01"}

var changes []Change

// Register adds a change. Packages register their changes from init so the
// change lives next to the resource it concerns.
func Register(c Change) {
	if !Known(c.Version) {
		panic("version: change registered for unknown version " + c.Version)
	}
	changes = append(changes, c)
	// Newest first, stable within a version.
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].Version > changes[j].Version })
}

// Changes returns the registered changes, newest first (for docs and tests).
func Changes() []Change { return slices.Clone(changes) }

// Versions returns the released versions, newest first.
func Versions() []string { return slices.Clone(released) }

// Known reports whether v is a released version.
func Known(v string) bool { return slices.Contains(released, v) }

// List is the known versions for error messages.
func List() string { return strings.Join(released, ", ") }

// Apply turns obj, in the current shape, into the shape of version v. It is a
// no-op for the current version.
func Apply(v string, c Ctx, obj map[string]any) map[string]any {
	if v == Current || obj == nil {
		return obj
	}
	for _, ch := range changes {
		if ch.Version <= v {
			break // changes are newest first; the rest are already in v
		}
		if len(ch.Kinds) > 0 && !slices.Contains(ch.Kinds, c.Kind) {
			continue
		}
		obj = ch.Down(c, obj)
	}
	return obj
}

// NeedsTransform reports whether any change applies between v and current,
// so callers can skip a decode/encode round trip on the hot path.
func NeedsTransform(v string) bool {
	return v != Current && len(changes) > 0 && changes[0].Version > v
}
