package docstest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, answer string
		status          int
		diff            string // "" matches; else a part of the difference
	}{
		{`{"status":"paid",...}`, `{"id":"x","status":"paid"}`, 0, ""},
		{`201 {"status":"paid"}`, `{"id":"x","status":"paid"}`, 201, ""},
		{`{"status":"paid",...}`, `{"status":"open"}`, 0, `$.status: want "paid", got "open"`},
		{`{"id":"01...","amount":1000}`, `{"id":"01a2","amount":1000}`, 0, ""},
		{`{"id":"01...","amount":1000}`, `{"id":"02a2","amount":1000}`, 0, `$.id`},
		{`{"amount":1000}`, `{"amount":1000.0}`, 0, ""},
		{`{"amount":1000}`, `{"amount":"1000"}`, 0, "want the number"},
		{`{"missing":1}`, `{"other":1}`, 0, "$.missing: missing"},
		{`{"a":...,"b":true}`, `{"a":[1],"b":true}`, 0, ""},
		{`{"a":"...","b":null}`, `{"a":{"x":1},"b":null}`, 0, ""},
		{`{"data":[{"to":"created",...},...],"has_more":false}`, `{"data":[{"to":"created"},{"to":"charged"}],"has_more":false}`, 0, ""},
		{`{"data":[{"to":"created"}]}`, `{"data":[{"to":"created"},{"to":"charged"}]}`, 0, "want 1 elements, got 2"},
		{`{"data":[...]}`, `{"data":[]}`, 0, ""},
		{`[{"a":1},...]`, `[]`, 0, "want 1 elements or more"},
		{`{"url":"http://...pay/..."}`, `{"url":"http://127.0.0.1:1/pay/x"}`, 0, ""},
		{`{"s":"a...b...c"}`, `{"s":"axxbyyc"}`, 0, ""},
		{`{"s":"a...b...c"}`, `{"s":"axxcyyb"}`, 0, "want"},
		{`{"s":"e1.cs1...."}`, `{"s":"e1.cs1.AbC"}`, 0, ""},
		{`{"s":"e1.cs1...."}`, `{"s":"e1.cs1AbC"}`, 0, "want"},
		{`{"s":"a.*b"}`, `{"s":"axxb"}`, 0, "want"},
	} {
		status, pat, err := ParseExpectation(c.pattern + " and prose after it")
		require.NoError(t, err, c.pattern)
		assert.Equal(t, c.status, status, c.pattern)
		d := Match(pat, []byte(c.answer))
		if c.diff == "" {
			assert.Empty(t, d, "%s against %s", c.pattern, c.answer)
		} else {
			assert.Contains(t, d, c.diff, "%s against %s", c.pattern, c.answer)
		}
	}
}

func TestParseExpectation(t *testing.T) {
	status, pat, err := ParseExpectation("204")
	require.NoError(t, err)
	assert.Equal(t, 204, status)
	assert.Nil(t, pat)
	_, _, err = ParseExpectation("the split is applied")
	assert.ErrorContains(t, err, "neither a status nor a JSON")
	_, _, err = ParseExpectation(`{"a":1`)
	assert.ErrorContains(t, err, "not closed")
	_, _, err = ParseExpectation(`{"a":oops}`)
	assert.ErrorContains(t, err, "not JSON")
}

func TestParsePage(t *testing.T) {
	page := "# A page\n\n```text\n# -> not read\n```\n\n```sh\nID=$(curl -s $API/x | json id)\n# -> 201 {\"id\":\"...\",\n#      \"status\":\"open\"} and prose\n#    a comment, kept\necho $ID\n```\n\n```go\nfmt.Println()\n```\n"
	p, err := ParsePage("p.md", page)
	require.NoError(t, err)
	assert.Equal(t, 1, p.Blocks)
	require.Len(t, p.Expect, 1)
	assert.Equal(t, 9, p.Expect[0].Line)
	assert.Equal(t, 201, p.Expect[0].Status)
	assert.Equal(t, `__block "p.md:7"`+"\nID=$(curl -s $API/x | json id)\n__expect 0\n#    a comment, kept\necho $ID\n", p.Script)

	_, err = ParsePage("q.md", "```sh\ncurl -s $API\n# -> the answer\n```\n")
	assert.ErrorContains(t, err, "q.md:3: expectation")
	_, err = ParsePage("r.md", "```sh\ncurl -s $API\n")
	assert.ErrorContains(t, err, "not closed")
}
