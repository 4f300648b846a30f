package wiring_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	_ "github.com/paygate/paygate/shared/platform/wiring" // every area, so every code is registered
	// The live connectors' codes (their errors reach the areas' answers),
	// whether or not the wiring links them yet.
	_ "github.com/paygate/paygate/shared/providers/adyencheckout"
)

// The documents generated from the error-code registry: the docs' table and
// the OpenAPI document's ErrorCode enum. UPDATE_DOCS=1 go test ./shared/platform/wiring
// -run TestErrorCodes rewrites both after a code is added or changed.
const (
	errorTable  = "../../../docs/errors.md"
	errorSchema = "../openapi/spec/error-codes.json"
)

func errorTableText(codes []apierr.CodeInfo) string {
	var b strings.Builder
	b.WriteString("# Error codes\n\n")
	b.WriteString("<!-- Generated from the error-code registry (apierr.Register) by shared/platform/wiring's TestErrorCodes;\n")
	b.WriteString("     UPDATE_DOCS=1 go test ./shared/platform/wiring -run TestErrorCodes rewrites it. Do not edit by hand. -->\n\n")
	b.WriteString("Every error answers `{\"error\": {\"type\", \"code\", \"message\", \"param\", \"request_id\"}}` (at the current\n")
	b.WriteString("version). The status follows from the code; `param`, where the table names one, is the parameter every error of\n")
	b.WriteString("the code names (others name the offending field when there is one). Retry a 409 or a 5xx with the same\n")
	b.WriteString("`Idempotency-Key`; a 400 needs the request changed.\n\n")
	status := 0
	for _, c := range codes {
		if s := c.Kind.Status(); s != status {
			status = s
			fmt.Fprintf(&b, "\n## %d\n\n| code | param | meaning |\n|---|---|---|\n", s)
		}
		param := ""
		if c.Param != "" {
			param = "`" + c.Param + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Name, param, strings.ReplaceAll(c.Meaning, "|", "\\|"))
	}
	return b.String()
}

func errorSchemaJSON(codes []apierr.CodeInfo) []byte {
	names := make([]string, len(codes))
	for i, c := range codes {
		names[i] = c.Name
	}
	doc := map[string]any{"components": map[string]any{"schemas": map[string]any{"ErrorCode": map[string]any{
		"type":        "string",
		"description": "The error's code: one of the registered codes (docs/errors.md says what each means and its status). Generated from the error-code registry.",
		"enum":        names,
	}}}}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(out, '\n')
}

// TestErrorCodes: every registered code is documented, in the table and in
// the OpenAPI document's ErrorCode enum (which every test's responses are
// validated against, so a code the API returns that is not registered fails
// the test that met it), and each has a meaning and a kind of its own.
func TestErrorCodes(t *testing.T) {
	codes := apierr.Codes()
	require.Greater(t, len(codes), 50, "the registry holds every area's codes")
	for _, c := range codes {
		assert.NotEmpty(t, c.Meaning, c.Name)
		assert.NotContains(t, c.Kind.String(), "kind(", c.Name)
	}
	table, schema := errorTableText(codes), errorSchemaJSON(codes)
	if os.Getenv("UPDATE_DOCS") == "1" {
		require.NoError(t, os.WriteFile(errorTable, []byte(table), 0o644))
		require.NoError(t, os.WriteFile(errorSchema, schema, 0o644))
	}
	got, err := os.ReadFile(errorTable)
	require.NoError(t, err)
	assert.Equal(t, table, string(got), "docs/errors.md is stale: UPDATE_DOCS=1 go test ./shared/platform/wiring -run TestErrorCodes")
	got, err = os.ReadFile(errorSchema)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(schema, got), "the OpenAPI ErrorCode enum is stale: UPDATE_DOCS=1 go test ./shared/platform/wiring -run TestErrorCodes")
}
