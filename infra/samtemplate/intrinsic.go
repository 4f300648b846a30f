package samtemplate

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// intrinsic reports whether v is a one-key map naming an intrinsic function
// (Ref, Condition or Fn::*), and returns its name and argument.
func intrinsic(v any) (name string, arg any, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) != 1 {
		return "", nil, false
	}
	for k, a := range m {
		if k == "Ref" || k == "Condition" || strings.HasPrefix(k, "Fn::") {
			return k, a, true
		}
	}
	return "", nil, false
}

// Raw renders a value the way a template author writes it: literals as
// themselves, intrinsics in short form ("!Ref AccountsTable",
// "!GetAtt AccountsTable.Arn", "!Sub paygate-${Environment}-x"); anything
// else as JSON.
func Raw(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case bool, int, int64, float64:
		return fmt.Sprint(x)
	}
	if name, arg, ok := intrinsic(v); ok {
		short := "!" + strings.TrimPrefix(name, "Fn::")
		if parts, isList := arg.([]any); isList && name == "Fn::GetAtt" && len(parts) == 2 {
			return fmt.Sprintf("%s %s.%s", short, Raw(parts[0]), Raw(parts[1]))
		}
		if s, isStr := arg.(string); isStr {
			return short + " " + s
		}
		return short + " " + jsonString(arg)
	}
	return jsonString(v)
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// RefTarget is the logical id a value points at through !Ref or !GetAtt
// ("" if it is neither), e.g. !GetAtt FulfilmentQueue.Arn -> FulfilmentQueue.
func RefTarget(v any) string {
	name, arg, ok := intrinsic(v)
	if !ok {
		return ""
	}
	switch name {
	case "Ref":
		s, _ := arg.(string)
		return s
	case "Fn::GetAtt":
		if parts, isList := arg.([]any); isList && len(parts) > 0 {
			s, _ := parts[0].(string)
			return s
		}
		if s, isStr := arg.(string); isStr { // the short form's "Id.Attr"
			id, _, _ := strings.Cut(s, ".")
			return id
		}
	}
	return ""
}

var subVar = regexp.MustCompile(`\$\{([A-Za-z0-9:]+)(?:\.[A-Za-z0-9.]+)?\}`)

// refs collects, sorted and unique, every name that v refers to through Ref,
// GetAtt or a ${Name} / ${Name.Attr} inside Sub, at any depth. Pseudo
// parameters (AWS::Region...) are included; callers filter by what they know.
func refs(v any) []string {
	seen := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		if id := RefTarget(v); id != "" {
			seen[id] = true
			return
		}
		if name, arg, ok := intrinsic(v); ok && name == "Fn::Sub" {
			str := arg
			if parts, isList := arg.([]any); isList && len(parts) > 0 {
				str = parts[0]
				for _, p := range parts[1:] {
					walk(p)
				}
			}
			if s, isStr := str.(string); isStr {
				for _, m := range subVar.FindAllStringSubmatch(s, -1) {
					seen[m[1]] = true
				}
			}
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}
