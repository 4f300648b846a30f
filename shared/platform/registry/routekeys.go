package registry

import (
	"sort"
	"strings"
)

// DefaultRoute is API Gateway's catch-all route key: a request no other route
// matches goes to the group with CatchAll set, which answers the documented
// 404 error body (API Gateway's own would be {"message":"Not Found"}).
const DefaultRoute = "$default"

// RouteKeys derives the HTTP API route keys of template.yaml from the
// declared routes, per function. Each route is covered by the shortest path
// prefix that no other group's route shares: "ANY <prefix>/{proxy+}" when the
// route goes on below it, "ANY <path>" when the prefix is the whole path, and
// "<METHOD> <path>" only when a route of another group can match the very
// same requests. A path parameter is taken to overlap any segment, so a key is
// chosen only if no concrete request of another group's routes can match it. This keeps SAM's one
// Lambda permission per route key to a few per group instead of one per
// route (CloudFormation's 500-resource limit), while a path or method the
// group does not declare still reaches only that group, whose router answers
// the documented 404 or 405.
func RouteKeys(groups []Group) map[string][]string {
	type owned struct {
		fn   string
		segs []string
	}
	var all []owned
	for _, g := range groups {
		for _, r := range g.Routes {
			all = append(all, owned{g.Function, segments(r.Path)})
		}
	}
	out := map[string][]string{}
	for _, g := range groups {
		seen := map[string]bool{}
		add := func(k string) {
			if !seen[k] {
				seen[k] = true
				out[g.Function] = append(out[g.Function], k)
			}
		}
		if g.CatchAll {
			add(DefaultRoute)
		}
		for _, r := range g.Routes {
			segs := segments(r.Path)
			key := r.Method + " " + r.Path // another group has this very path
			for k := 1; k <= len(segs); k++ {
				shared := false
				for _, o := range all {
					// A proxy key (k < len) takes the requests with more
					// segments than its prefix; an exact key those with as many.
					reach := len(o.segs) > k
					if k == len(segs) {
						reach = len(o.segs) == k
					}
					if o.fn != g.Function && reach && overlap(segs[:k], o.segs[:k]) {
						shared = true
						break
					}
				}
				if shared {
					continue
				}
				key = "ANY /" + strings.Join(segs[:k], "/")
				if k < len(segs) {
					key += "/{proxy+}"
				}
				break
			}
			add(key)
		}
		sort.Strings(out[g.Function])
	}
	return out
}

func segments(path string) []string { return strings.Split(strings.Trim(path, "/"), "/") }

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// overlap reports whether two segment lists of one length can match one
// request: equal literals, or a parameter on either side.
func overlap(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] && !isParam(a[i]) && !isParam(b[i]) {
			return false
		}
	}
	return true
}
