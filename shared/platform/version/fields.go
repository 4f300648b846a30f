package version

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Field is a request field added in a dated version (spec §9: 2023-09-01
// added off_session). The code reads the current request shape; a request
// served in an older version does not have the field, so sending it is the
// 400 parameter_unknown that any field the request does not know gets (the
// message names the version that added it). Fields are registered from init
// next to their request type, as Changes are next to their resource, and the
// platform's decoder (httpapi.Request.Decode) enforces them for every body:
// no handler compares versions. Responses need no entry for a new request
// field; a new response field is a Change.
type Field struct {
	Version     string       // the version that added it
	Request     reflect.Type // the request body's Go type (a struct)
	Name        string       // its JSON name; dotted for a field of a nested object ("recurring.off_session")
	Description string
}

var (
	fieldsMu sync.RWMutex
	fields   = map[reflect.Type][]Field{}
)

// AddField registers a request field added in f.Version. It panics on an
// unknown version, or a name that is not a JSON field of the request type
// (a registration that could never apply).
func AddField(f Field) {
	if !Known(f.Version) {
		panic("version: field registered for unknown version " + f.Version)
	}
	t := structType(f.Request)
	if t == nil || !hasJSONPath(t, strings.Split(f.Name, ".")) {
		panic(fmt.Sprintf("version: %v has no JSON field %q", f.Request, f.Name))
	}
	fieldsMu.Lock()
	defer fieldsMu.Unlock()
	fields[t] = append(fields[t], f)
}

// Absent lists the fields of request type t (a struct or a pointer to one)
// that version v does not have: those added after it. An empty v is the
// current version.
func Absent(v string, t reflect.Type) []Field {
	if v == "" {
		v = Current
	}
	fieldsMu.RLock()
	defer fieldsMu.RUnlock()
	var out []Field
	for _, f := range fields[structType(t)] {
		if f.Version > v {
			out = append(out, f)
		}
	}
	return out
}

func structType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	return t
}

// hasJSONPath reports whether struct t has the JSON field path (embedded
// structs' fields promoted, as encoding/json does).
func hasJSONPath(t reflect.Type, path []string) bool {
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" {
			if et := structType(sf.Type); et != nil && hasJSONPath(et, path) {
				return true
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if name != path[0] {
			continue
		}
		if len(path) == 1 {
			return true
		}
		if et := structType(sf.Type); et != nil {
			return hasJSONPath(et, path[1:])
		}
	}
	return false
}
