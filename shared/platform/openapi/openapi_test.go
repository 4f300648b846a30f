package openapi_test

import (
	"bytes"
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/openapi"
	"github.com/paygate/paygate/shared/platform/registry"
	"github.com/paygate/paygate/shared/platform/wiring"
	"github.com/paygate/paygate/shared/testkit/openapitest"
)

// The document is derived from the group declarations: each fragment
// documents exactly the routes of the groups that name it (no undocumented
// route, no documented path nobody serves), every fragment belongs to a
// group, and the served document is base.json plus those fragments.
func TestFragmentsAreTheDeclaredGroups(t *testing.T) {
	declared := map[string]map[string][]string{} // fragment -> path -> methods
	for _, g := range registry.Groups(wiring.Areas()) {
		if g.OpenAPI == "" {
			continue
		}
		if declared[g.OpenAPI] == nil {
			declared[g.OpenAPI] = map[string][]string{}
		}
		for _, r := range g.Routes {
			declared[g.OpenAPI][r.Path] = append(declared[g.OpenAPI][r.Path], strings.ToLower(r.Method))
		}
	}
	names, err := openapi.Fragments()
	require.NoError(t, err)
	var named []string
	for n := range declared {
		named = append(named, n)
	}
	sort.Strings(named)
	require.Equal(t, names, named, "fragment files vs fragments the groups name")
	for _, n := range names {
		got, err := openapi.Fragment(n)
		require.NoError(t, err)
		want := declared[n]
		for _, ms := range want {
			sort.Strings(ms)
		}
		require.Equal(t, want, got, "%s: paths and methods documented vs declared", n)
	}
	doc, err := openapi.Merge(append(named, openapi.ErrorCodes)...) // and the generated error codes
	require.NoError(t, err)
	require.JSONEq(t, string(doc), string(openapi.Document()))
}

// The merged document is a valid OpenAPI 3.1 document (the OpenAPI
// Initiative's own schema), not only a pile of response schemas.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	raw, err := os.ReadFile("testdata/oas-3.1-schema.json")
	require.NoError(t, err)
	meta, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("https://spec.openapis.org/oas/3.1/schema/2022-10-07", meta))
	sch, err := c.Compile("https://spec.openapis.org/oas/3.1/schema/2022-10-07")
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openapi.Document()))
	require.NoError(t, err)
	require.NoError(t, sch.Validate(doc))
}

// Every component schema compiles as JSON Schema 2020-12 (the dialect of
// OpenAPI 3.1), so a broken $ref or keyword fails here, not in some test
// that happens to reach it.
func TestEverySchemaCompiles(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	require.NoError(t, json.Unmarshal(openapi.Document(), &doc))
	v, err := openapitest.New("doc", openapi.Document())
	require.NoError(t, err)
	names := make([]string, 0, len(doc.Components.Schemas))
	for n := range doc.Components.Schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	require.NotEmpty(t, names)
	for _, n := range names {
		// Validating null forces a compile; the result itself is irrelevant.
		err := v.ValidateSchema(n, []byte("null"))
		if err != nil && strings.Contains(err.Error(), "compile") {
			t.Errorf("schema %s: %v", n, err)
		}
	}
}

// Every operation documents its errors.
func TestEveryOperationHasAnErrorResponse(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(openapi.Document(), &doc))
	require.NotEmpty(t, doc.Paths)
	for p, ops := range doc.Paths {
		for m, op := range ops {
			_, hasDefault := op.Responses["default"]
			has4xx := false
			for code := range op.Responses {
				has4xx = has4xx || strings.HasPrefix(code, "4")
			}
			if !hasDefault && !has4xx {
				t.Errorf("%s %s documents no error response", strings.ToUpper(m), p)
			}
		}
	}
}
