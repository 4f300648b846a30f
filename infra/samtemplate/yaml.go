package samtemplate

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// decode turns a YAML node into plain Go values (map[string]any, []any,
// string, int, bool, float64, nil). CloudFormation short-form tags (!Ref,
// !GetAtt, !Sub, ...) become their long form ({"Ref": x}, {"Fn::GetAtt":
// [id, attr]}, ...), so code reading the result sees one shape whichever form
// the template author used.
func decode(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return decode(n.Content[0])
	case yaml.AliasNode:
		return decode(n.Alias)
	}
	v, err := decodePlain(n)
	if err != nil {
		return nil, err
	}
	if name, ok := intrinsicTag(n.Tag); ok {
		return intrinsicFromTag(name, v), nil
	}
	return v, nil
}

func decodePlain(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if _, dup := m[k]; dup {
				// CloudFormation rejects duplicate keys; a copied block that
				// kept its logical id would otherwise silently replace another.
				return nil, fmt.Errorf("line %d: duplicate key %q", n.Content[i].Line, k)
			}
			v, err := decode(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := decode(c)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		if _, custom := intrinsicTag(n.Tag); custom {
			return n.Value, nil // the tag's argument is always taken as written
		}
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, fmt.Errorf("line %d: %w", n.Line, err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("line %d: unsupported YAML node kind %d", n.Line, n.Kind)
}

// intrinsicTag maps a short-form tag to its long-form key: !Ref -> Ref,
// !Condition -> Condition, !Sub -> Fn::Sub. Standard YAML tags (!!str...) are
// not intrinsics.
func intrinsicTag(tag string) (string, bool) {
	if !strings.HasPrefix(tag, "!") || strings.HasPrefix(tag, "!!") || tag == "!" {
		return "", false
	}
	name := tag[1:]
	if name == "Ref" || name == "Condition" {
		return name, true
	}
	return "Fn::" + name, true
}

func intrinsicFromTag(name string, v any) map[string]any {
	if s, ok := v.(string); ok && name == "Fn::GetAtt" {
		// !GetAtt Table.Arn is the short form of [Table, Arn].
		if id, attr, found := strings.Cut(s, "."); found {
			return map[string]any{name: []any{id, attr}}
		}
	}
	return map[string]any{name: v}
}
