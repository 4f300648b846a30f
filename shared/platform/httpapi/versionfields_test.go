package httpapi

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/version"
)

type versionedBody struct {
	Amount int64         `json:"amount"`
	Later  *bool         `json:"later"`
	Inner  *versionedSub `json:"inner"`
}

type versionedSub struct {
	Name  string `json:"name"`
	Later string `json:"later"`
}

func init() {
	version.AddField(version.Field{Version: "2023-09-01", Request: reflect.TypeFor[versionedBody](), Name: "later"})
	version.AddField(version.Field{Version: "2024-01-15", Request: reflect.TypeFor[versionedBody](), Name: "inner.later"})
}

// TestFieldsAddedInAVersionAreUnknownBefore: Decode refuses a field its
// request's version predates with the unknown-field 400 naming it, and
// takes it from its version on; other fields, and the same names elsewhere,
// are untouched.
func TestFieldsAddedInAVersionAreUnknownBefore(t *testing.T) {
	decode := func(v, body string) error {
		var b versionedBody
		return (&Request{Body: []byte(body), Version: v}).Decode(&b)
	}
	for _, c := range []struct {
		version, body string
		param         string // "" when accepted
	}{
		{"2023-06-01", `{"amount": 1, "later": true}`, "later"},
		{"2023-06-01", `{"amount": 1, "later": false}`, "later"},
		{"2023-09-01", `{"amount": 1, "later": true}`, ""},
		{"2024-01-15", `{"amount": 1, "later": true}`, ""},
		{"2023-06-01", `{"amount": 1}`, ""},
		{"2023-09-01", `{"inner": {"name": "x", "later": "y"}}`, "inner.later"},
		{"2023-09-01", `{"inner": {"name": "x"}}`, ""},
		{"2024-01-15", `{"inner": {"name": "x", "later": "y"}}`, ""},
		{"2023-06-01", `{"inner": {"later": "y"}, "later": true}`, "later"},
	} {
		err := decode(c.version, c.body)
		if c.param == "" {
			assert.NoError(t, err, "%s %s", c.version, c.body)
			continue
		}
		require.Error(t, err, "%s %s", c.version, c.body)
		e := apierr.As(err)
		assert.Equal(t, apierr.Invalid, e.Kind)
		assert.Equal(t, "parameter_unknown", e.Code.Name(), "the same code as any unknown field")
		assert.Equal(t, c.param, e.Param)
		assert.Contains(t, e.Message, "exists from version")
	}
	// A strict-decoding error still comes first.
	e := apierr.As(decode("2023-06-01", `{"amount": 1.5, "later": true}`))
	assert.Equal(t, "amount", e.Param)
}
