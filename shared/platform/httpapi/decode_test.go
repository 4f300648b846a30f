package httpapi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
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
		assert.Equal(t, "parameter_invalid", e.Code.Name(), name)
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

type strictAmount struct {
	Value    int64  `json:"value"`
	Currency string `json:"currency"`
}

type strictBody struct {
	ProductID *int64            `json:"product_id"`
	Amount    *strictAmount     `json:"amount"`
	Items     []strictAmount    `json:"items"`
	Reference string            `json:"reference"`
	Note      string            `json:"note" chars:"text"`
	Notes     map[string]string `json:"notes" chars:"text"`
	Metadata  map[string]string `json:"metadata"`
	Extra     map[string]any    `json:"extra"`
	Browser   json.RawMessage   `json:"browser"`
	Count     int32             `json:"count"`
	Flag      bool              `json:"flag"`
}

// TestDecodeStrictJSON: the decoder's JSON rules (decodeOptions), each with
// the code and param a client reads; the accepted forms next to them.
func TestDecodeStrictJSON(t *testing.T) {
	cases := map[string]struct {
		body, code, param string // code "" when the body is fine
	}{
		"exact names":                    {body: `{"product_id":131,"amount":{"value":1,"currency":"EUR"}}`},
		"case-variant name":              {body: `{"Product_ID":131}`, code: "parameter_unknown", param: "Product_ID"},
		"case-variant beside the real":   {body: `{"amount":{"value":100,"currency":"EUR"},"AMOUNT":{"value":1,"currency":"EUR"}}`, code: "parameter_unknown", param: "AMOUNT"},
		"case-variant nested":            {body: `{"items":[{"Value":1}]}`, code: "parameter_unknown", param: "items[0].Value"},
		"duplicate top-level name":       {body: `{"product_id":131,"product_id":101}`, code: "parameter_duplicate", param: "product_id"},
		"duplicate nested name":          {body: `{"amount":{"value":1,"value":2}}`, code: "parameter_duplicate", param: "amount.value"},
		"duplicate in a list item":       {body: `{"items":[{"value":1},{"value":1,"value":2}]}`, code: "parameter_duplicate", param: "items[1].value"},
		"duplicate map key":              {body: `{"metadata":{"a":"1","a":"2"}}`, code: "parameter_duplicate", param: "metadata.a"},
		"duplicate in free-form value":   {body: `{"extra":{"x":{"a":1,"a":2}}}`, code: "parameter_duplicate", param: "extra.x.a"},
		"duplicate in raw JSON":          {body: `{"browser":{"ua":"a","ua":"b"}}`, code: "parameter_duplicate", param: "browser.ua"},
		"null body":                      {body: `null`, code: "body_invalid"},
		"null object":                    {body: `{"amount":null}`, code: "parameter_invalid_type", param: "amount"},
		"null optional pointer":          {body: `{"product_id":null}`, code: "parameter_invalid_type", param: "product_id"},
		"null string":                    {body: `{"reference":null}`, code: "parameter_invalid_type", param: "reference"},
		"null number":                    {body: `{"count":null}`, code: "parameter_invalid_type", param: "count"},
		"null list":                      {body: `{"items":null}`, code: "parameter_invalid_type", param: "items"},
		"null list item":                 {body: `{"items":[null]}`, code: "parameter_invalid_type", param: "items[0]"},
		"null map value":                 {body: `{"metadata":{"a":null}}`, code: "parameter_invalid_type", param: "metadata.a"},
		"null raw JSON":                  {body: `{"browser":null}`, code: "parameter_invalid_type", param: "browser"},
		"null inside a free-form value":  {body: `{"extra":{"a":[1,null]}}`, code: "parameter_invalid_type", param: "extra.a[1]"},
		"null inside raw JSON":           {body: `{"browser":{"b":{"c":null}}}`, code: "parameter_invalid_type", param: "browser.b.c"},
		"null as a raw JSON item":        {body: `{"browser":[null]}`, code: "parameter_invalid_type", param: "browser[0]"},
		"integer":                        {body: `{"product_id":761}`},
		"integer with a fraction":        {body: `{"product_id":761.0}`, code: "parameter_invalid_type", param: "product_id"},
		"integer with an exponent":       {body: `{"product_id":7.61e2}`, code: "parameter_invalid_type", param: "product_id"},
		"nested integer with a fraction": {body: `{"items":[{"value":1.0}]}`, code: "parameter_invalid_type", param: "items[0].value"},
		"int64 maximum":                  {body: `{"product_id":9223372036854775807,"amount":{"value":-9223372036854775808}}`},
		"int64 maximum plus one":         {body: `{"product_id":9223372036854775808}`, code: "parameter_invalid", param: "product_id"},
		"int64 minimum minus one":        {body: `{"amount":{"value":-9223372036854775809}}`, code: "parameter_invalid", param: "amount.value"},
		"int32 field over its range":     {body: `{"count":2147483648}`, code: "parameter_invalid", param: "count"},
		"huge number":                    {body: `{"product_id":1e400}`, code: "parameter_invalid_type", param: "product_id"},
		"free-form integer":              {body: `{"extra":{"n":[-9223372036854775808,0,9223372036854775807]},"browser":{"colorDepth":24}}`},
		"free-form 761.0":                {body: `{"extra":{"n":761.0}}`, code: "parameter_invalid_type", param: "extra.n"},
		"raw JSON 7.61e2":                {body: `{"browser":{"colorDepth":7.61e2}}`, code: "parameter_invalid_type", param: "browser.colorDepth"},
		"raw JSON past int64":            {body: `{"browser":{"a":[9223372036854775808]}}`, code: "parameter_invalid", param: "browser.a[0]"},
		"free-form past int64":           {body: `{"extra":{"n":-9223372036854775809}}`, code: "parameter_invalid", param: "extra.n"},
		"string for a number":            {body: `{"product_id":"131"}`, code: "parameter_invalid_type", param: "product_id"},
		"number for a boolean":           {body: `{"flag":1}`, code: "parameter_invalid_type", param: "flag"},
		"not an object":                  {body: `[1]`, code: "body_invalid"},
		"trailing data":                  {body: `{"reference":"a"} {"reference":"b"}`, code: "body_invalid"},
		"trailing white space":           {body: "{\"reference\":\"a\"} \n\t"},
		"ends early":                     {body: `{"reference":"a"`, code: "body_invalid"},
		"invalid UTF-8 byte":             {body: "{\"reference\":\"a\xffb\"}", code: "parameter_invalid", param: "reference"},
		"overlong UTF-8":                 {body: "{\"reference\":\"\xc0\xaf\"}", code: "parameter_invalid", param: "reference"},
		"lone high surrogate":            {body: `{"reference":"\ud800"}`, code: "parameter_invalid", param: "reference"},
		"lone low surrogate":             {body: `{"items":[{"currency":"\udc00"}]}`, code: "parameter_invalid", param: "items[0].currency"},
		"surrogate pair is fine":         {body: `{"reference":"\ud83d\ude00"}`},
		"invalid UTF-8 in a key":         {body: "{\"metadata\":{\"\xff\":\"x\"}}", code: "parameter_invalid", param: "metadata"},
		"NUL escape":                     {body: `{"reference":"a\u0000b"}`, code: "parameter_invalid", param: "reference"},
		"C0 escape":                      {body: `{"reference":"a\u001bb"}`, code: "parameter_invalid", param: "reference"},
		"raw control byte":               {body: "{\"reference\":\"a\x01b\"}", code: "body_invalid"},
		"newline in a reference":         {body: `{"reference":"a\nb"}`, code: "parameter_invalid", param: "reference"},
		"NUL in a nested string":         {body: `{"items":[{"currency":"E\u0000R"}]}`, code: "parameter_invalid", param: "items[0].currency"},
		"NUL in a map key":               {body: `{"metadata":{"k\u0000":"v"}}`, code: "parameter_invalid", param: "metadata"},
		"NUL in a free-form value":       {body: `{"extra":{"a":["\u0000"]}}`, code: "parameter_invalid", param: "extra.a[0]"},
		"NUL in raw JSON":                {body: `{"browser":{"ua":"\u0000"}}`, code: "parameter_invalid", param: "browser.ua"},
		"NUL in a text field":            {body: `{"note":"a\u0000b"}`, code: "parameter_invalid", param: "note"},
		"tab and line breaks in text":    {body: `{"note":"a\tb\r\nc","notes":{"k":"line\nline"}}`},
		"bidi override in a reference":   {body: "{\"reference\":\"ref\u202Egnp.exe\"}", code: "parameter_invalid", param: "reference"},
		"bidi isolate escaped":           {body: `{"reference":"ref\u2066x\u2069"}`, code: "parameter_invalid", param: "reference"},
		"bidi override in a key":         {body: "{\"metadata\":{\"k\u202Ax\":\"v\"}}", code: "parameter_invalid", param: "metadata"},
		"bidi in a text field's key":     {body: "{\"notes\":{\"k\u202Ax\":\"v\"}}", code: "parameter_invalid", param: "notes"},
		"bidi in a text field":           {body: "{\"note\":\"\u202Bשלום\u202C 42\",\"notes\":{\"k\":\"\u2067x\u2069\"}}"},
		"other non-ASCII is fine":        {body: `{"reference":"Zürich-日本-\u200d-\u00a0"}`},
		"U+FFFD itself is fine":          {body: `{"reference":"\ufffd"}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var v strictBody
			err := DecodeStrict([]byte(c.body), &v)
			if c.code == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			e := apierr.As(err)
			assert.Equal(t, apierr.Invalid, e.Kind)
			assert.Equal(t, c.code, e.Code.Name(), e.Message)
			assert.Equal(t, c.param, e.Param, e.Message)
			if c.param != "" {
				assert.Contains(t, e.Message, c.param)
			}
		})
	}
}

// TestDecodeNamesTheCaseVariant: an unknown name that differs from a field
// only in case says which name was meant.
func TestDecodeNamesTheCaseVariant(t *testing.T) {
	var v strictBody
	e := apierr.As(DecodeStrict([]byte(`{"Reference":"x"}`), &v))
	assert.Equal(t, "Reference", e.Param)
	assert.Contains(t, e.Message, `did you mean "reference"`)
}

func TestDecodeBadCharsTagPanics(t *testing.T) {
	var v struct {
		A string `json:"a" chars:"any"`
	}
	assert.Panics(t, func() { _ = DecodeStrict([]byte(`{"a":"x"}`), &v) })
}

// TestFreeFormIntegersStayExact: an integer in a free-form value is kept as
// sent, past 2^53 too (a float64 would round 9007199254740993 to ...992).
func TestFreeFormIntegersStayExact(t *testing.T) {
	var v struct {
		Extra map[string]any `json:"extra"`
	}
	require.NoError(t, DecodeStrict([]byte(`{"extra":{"n":9007199254740993,"m":[-9223372036854775808]}}`), &v))
	assert.Equal(t, int64(9007199254740993), v.Extra["n"])
	out, err := json.Marshal(v)
	require.NoError(t, err)
	assert.JSONEq(t, `{"extra":{"n":9007199254740993,"m":[-9223372036854775808]}}`, string(out))
	assert.Contains(t, string(out), "9007199254740993")
}
