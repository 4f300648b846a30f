package version

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

type inner struct {
	Deep bool `json:"deep"`
}

type Embedded struct {
	Promoted string `json:"promoted"`
}

type sampleRequest struct {
	Embedded
	Plain  string `json:"plain"`
	Newer  *bool  `json:"newer"`
	Nested *inner `json:"nested"`
}

// The sample's fields are added once per test binary, as the service's own
// are at init, so the test holds under go test -count=2.
var _ = func() bool {
	typ := reflect.TypeFor[sampleRequest]()
	AddField(Field{Version: "2023-09-01", Request: typ, Name: "newer"})
	AddField(Field{Version: "2024-01-15", Request: typ, Name: "nested.deep"})
	AddField(Field{Version: "2023-09-01", Request: typ, Name: "promoted"})
	return true
}()

func TestFieldsAddedInAVersion(t *testing.T) {
	typ := reflect.TypeFor[sampleRequest]()

	names := func(fs []Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	assert.ElementsMatch(t, []string{"newer", "nested.deep", "promoted"}, names(Absent("2023-06-01", typ)))
	assert.ElementsMatch(t, []string{"nested.deep"}, names(Absent("2023-09-01", typ)))
	assert.ElementsMatch(t, []string{"nested.deep"}, names(Absent("2023-09-01", reflect.PointerTo(typ))), "a pointer is its struct")
	assert.Empty(t, Absent(Current, typ))
	assert.Empty(t, Absent("", typ), "no version is the current one")
	assert.Empty(t, Absent("2023-06-01", reflect.TypeFor[inner]()), "other types are untouched")

	assert.Panics(t, func() { AddField(Field{Version: "2023-09-02", Request: typ, Name: "newer"}) }, "an unknown version")
	assert.Panics(t, func() { AddField(Field{Version: "2023-09-01", Request: typ, Name: "nope"}) }, "no such field")
	assert.Panics(t, func() { AddField(Field{Version: "2023-09-01", Request: typ, Name: "plain.deep"}) }, "not an object")
	assert.Panics(t, func() { AddField(Field{Version: "2023-09-01", Request: reflect.TypeFor[string](), Name: "x"}) }, "not a struct")
}
