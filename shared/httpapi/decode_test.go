package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/apierr"
)

type limitsItem struct {
	Description string `json:"description" maxlen:"10"`
	SKU         string `json:"sku"`
}

type limitsBase struct {
	Reference string `json:"reference" maxlen:"5"`
}

type limitsBody struct {
	limitsBase
	Name     *string           `json:"name"`
	Items    []limitsItem      `json:"items"`
	Tags     []string          `json:"tags" maxlen:"3"`
	Metadata map[string]string `json:"metadata" maxlen:"4" maxkey:"2"`
	Account  map[string]any    `json:"account"`
	Browser  json.RawMessage   `json:"browser" maxlen:"6"`
	Blob     []byte            `json:"blob"`
}

// TestDecodeStringLimits: every string of a body has a maximum (the
// default, or the field's maxlen tag), counted in characters; one over it is
// a 400 naming the field by its JSON path; exactly at it is fine.
func TestDecodeStringLimits(t *testing.T) {
	long := strings.Repeat("x", DefaultMaxString+1)
	cases := map[string]struct {
		body  string
		param string // "" when the body is fine
		limit int
	}{
		"all at their limits": {body: `{"reference":"12345","name":"` + long[1:] + `","items":[{"description":"0123456789","sku":"` + long[1:] + `"}],` +
			`"tags":["abc"],"metadata":{"kk":"abcd"},"account":{"a":["` + long[1:] + `"]},"browser":{"ua":"abcdef"},"blob":"` + strings.Repeat("QUJD", 200) + `"}`},
		"characters, not bytes":  {body: `{"reference":"ééééé","items":[{"description":"日本語日本語日本語日"}]}`},
		"embedded struct's tag":  {body: `{"reference":"123456"}`, param: "reference", limit: 5},
		"pointer, default":       {body: `{"name":"` + long + `"}`, param: "name", limit: DefaultMaxString},
		"slice of structs":       {body: `{"items":[{"description":"ok"},{"description":"01234567890"}]}`, param: "items[1].description", limit: 10},
		"nested default":         {body: `{"items":[{"sku":"` + long + `"}]}`, param: "items[0].sku", limit: DefaultMaxString},
		"slice of strings":       {body: `{"tags":["abc","abcd"]}`, param: "tags[1]", limit: 3},
		"map value":              {body: `{"metadata":{"a":"1","b":"12345"}}`, param: "metadata.b", limit: 4},
		"map key":                {body: `{"metadata":{"abc":"1"}}`, param: "metadata", limit: 2},
		"map key, default":       {body: `{"account":{"` + long + `":"1"}}`, param: "account", limit: DefaultMaxString},
		"any inside a map":       {body: `{"account":{"x":{"y":["` + long + `"]}}}`, param: "account.x.y[0]", limit: DefaultMaxString},
		"raw JSON":               {body: `{"browser":{"ua":"abcdefg"}}`, param: "browser.ua", limit: 6},
		"raw JSON string itself": {body: `{"browser":"abcdefg"}`, param: "browser", limit: 6},
	}
	for name, c := range cases {
		var v limitsBody
		err := DecodeStrict([]byte(c.body), &v)
		if c.param == "" {
			require.NoError(t, err, name)
			continue
		}
		e := apierr.As(err)
		require.NotNil(t, err, name)
		assert.Equal(t, apierr.Invalid, e.Kind, name)
		assert.Equal(t, "parameter_invalid", e.Code, name)
		assert.Equal(t, c.param, e.Param, name)
		assert.Contains(t, e.Message, c.param, name)
		assert.Contains(t, e.Message, " must be at most ", name)
		assert.Contains(t, e.Message, " "+itoa(c.limit)+" characters", name)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestDecodeBadMaxlenTagPanics(t *testing.T) {
	var v struct {
		A string `json:"a" maxlen:"zero"`
	}
	assert.Panics(t, func() { _ = DecodeStrict([]byte(`{"a":"x"}`), &v) })
}
