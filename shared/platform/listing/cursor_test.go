package listing

import (
	"encoding/base64"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// TestCursorBinding: a cursor unbinds only in the scope it was bound in;
// the page size may change between pages, and an empty filter is no filter.
func TestCursorBinding(t *testing.T) {
	inner := store.EncodeCursor("order#0190a6c2-0000-7000-8000-000000000001")
	scope := Scope{Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"completed"}, "limit": {"2"}}}
	c := scope.Bind(inner)
	require.NotContains(t, c, inner, "opaque: the store's cursor is not readable as is")

	for name, s := range map[string]Scope{
		"same scope":        scope,
		"another limit":     {Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"completed"}, "limit": {"50"}}},
		"plus empty filter": {Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"completed"}, "external_ref": {""}}},
		"with the cursor":   {Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"completed"}, "cursor": {c}}},
	} {
		got, err := s.Unbind(c)
		require.NoError(t, err, name)
		assert.Equal(t, inner, got, name)
	}

	for name, s := range map[string]Scope{
		"another list":    {Route: "GET /deposits", Account: "acct-a", Filters: url.Values{"status": {"completed"}}},
		"another account": {Route: "GET /orders", Account: "acct-b", Filters: url.Values{"status": {"completed"}}},
		"another filter":  {Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"failed"}}},
		"a filter less":   {Route: "GET /orders", Account: "acct-a"},
		"a filter more":   {Route: "GET /orders", Account: "acct-a", Filters: url.Values{"status": {"completed"}, "product_id": {"4"}}},
	} {
		_, err := s.Unbind(c)
		e := apierr.As(err)
		require.NotNil(t, err, name)
		assert.Equal(t, apierr.Invalid, e.Kind, name)
		assert.Equal(t, "cursor", e.Param, name)
		assert.Contains(t, e.Message, "another list", name)
	}

	raw, _ := base64.RawURLEncoding.DecodeString(c)
	for name, bad := range map[string]string{
		"not base64":        "!!",
		"the store's own":   inner,
		"truncated":         c[:10],
		"unknown version":   base64.RawURLEncoding.EncodeToString(append([]byte{0x02}, raw[1:]...)),
		"tag and no cursor": base64.RawURLEncoding.EncodeToString(raw[:1+tagLen]),
	} {
		_, err := scope.Unbind(bad)
		e := apierr.As(err)
		require.NotNil(t, err, name)
		assert.Equal(t, "cursor", e.Param, name)
	}

	got, err := scope.Unbind("")
	require.NoError(t, err)
	assert.Empty(t, got, "no cursor: the first page")
	assert.Empty(t, scope.Bind(""), "no more pages: no cursor")
}
