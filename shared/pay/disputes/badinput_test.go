package disputes

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
)

// TestEvidenceBadInput: each bad evidence call is a 400 (or 413) naming
// what is wrong, and stores nothing: no document, no chunk, no event; on
// both stores.
func TestEvidenceBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 5000, 5000), nil)["id"].(string)
		ok := doc("a.pdf", "application/pdf", pdf("fine"))
		many := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = ok
			}
			return out
		}
		with := func(f string, v any) map[string]any {
			d := map[string]any{"name": "a.pdf", "content_type": "application/pdf", "data": ok["data"]}
			if v == nil {
				delete(d, f)
			} else {
				d[f] = v
			}
			return map[string]any{"documents": []any{d}}
		}
		cases := []struct {
			name   string
			body   any
			path   string
			status int
			code   string
			param  string
		}{
			{"no body", nil, "", 400, "", ""},
			{"empty object", map[string]any{}, "", 400, "evidence_missing", ""},
			{"null", "null", "", 400, "", ""},
			{"unknown field", map[string]any{"evidence": "x"}, "", 400, "parameter_unknown", "evidence"},
			{"empty documents", map[string]any{"documents": []any{}}, "", 400, "parameter_invalid", "documents"},
			{"eleven documents", map[string]any{"documents": many(11)}, "", 400, "parameter_invalid", "documents"},
			{"missing name", with("name", nil), "", 400, "parameter_missing", "documents[0].name"},
			{"blank name", with("name", "  "), "", 400, "parameter_invalid", "documents[0].name"},
			{"name with a control", with("name", "a\u0007.pdf"), "", 400, "", "documents[0].name"},
			{"missing content_type", with("content_type", nil), "", 400, "parameter_missing", "documents[0].content_type"},
			{"unknown content_type", with("content_type", "application/zip"), "", 400, "parameter_invalid", "documents[0].content_type"},
			{"missing data", with("data", nil), "", 400, "parameter_missing", "documents[0].data"},
			{"data not base64", with("data", "not base64!"), "", 400, "parameter_invalid", "documents[0].data"},
			{"data empty", with("data", ""), "", 400, "parameter_invalid", "documents[0].data"},
			{"data not a pdf", with("data", base64.StdEncoding.EncodeToString([]byte("GIF89a"))), "", 400, "parameter_invalid", "documents[0].data"},
			{"data over its maximum", with("data", strings.Repeat("A", MaxDataLength+4)), "", 400, "", "documents[0].data"},
			{"description too long", map[string]any{"description": strings.Repeat("é", MaxDescription+1)}, "", 400, "", "description"},
			{"metadata key too long", map[string]any{"metadata": map[string]any{strings.Repeat("k", 41): "v"}}, "", 400, "", "metadata"},
			{"id not a uuid", map[string]any{"description": "x"}, "/v1/disputes/nope/evidence", 400, "", "id"},
			{"missing dispute", map[string]any{"description": "x"}, "/v1/disputes/0190a6c2-3b7e-7d4c-9a51-2f6e8b1c0d42/evidence", 404, "resource_missing", ""},
			{"body over 4 MiB", map[string]any{"description": strings.Repeat("x", EvidenceMaxBody)}, "", 413, "", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				path := c.path
				if path == "" {
					path = "/v1/disputes/" + id + "/evidence"
				}
				r := e.post(path, c.body)
				require.Equal(t, c.status, r.Status, "%s", r.Body)
				code, param := errOf(t, r)
				if c.code != "" {
					assert.Equal(t, c.code, code)
				}
				assert.Equal(t, c.param, param)
			})
		}
		r := e.Do("POST", "/v1/disputes/"+id+"/evidence", map[string]any{"description": "x"})
		require.Equal(t, 400, r.Status, "the Idempotency-Key is required")
		_, param := errOf(t, r)
		assert.Equal(t, "Idempotency-Key", param)

		// 21 documents in all: the twenty-first is refused.
		require.Equal(t, 200, e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": many(10)}).Status)
		require.Equal(t, 200, e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": many(10)}).Status)
		r = e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": many(1)})
		require.Equal(t, 400, r.Status, "%s", r.Body)
		code, _ := errOf(t, r)
		assert.Equal(t, "too_many_documents", code)
		assert.Len(t, e.get(id)["evidence"].(map[string]any)["documents"], 20)
		assert.Equal(t, 20, e.chunks(e.Account.ID, id), "nothing of the refusals was stored")
		assert.Equal(t, []string{EventCreated, EventUpdated, EventUpdated}, e.events(id))
	})
}

// TestOpenAndActionBadInput: the helper's and accept's/submit's bad input is
// a 400 naming the field, a live key is a 403, and nothing is opened or
// changed; on both stores.
func TestOpenAndActionBadInput(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		tx := e.payment("", 5000, 5000)
		id := e.open(e.payment("", 5000, 5000), nil)["id"].(string)
		cases := []struct {
			name, path string
			body       any
			status     int
			param      string
		}{
			{"amount zero", "/test-helpers/transactions/" + tx + "/dispute", map[string]any{"amount": 0}, 400, "amount"},
			{"amount a string", "/test-helpers/transactions/" + tx + "/dispute", map[string]any{"amount": "10"}, 400, "amount"},
			{"amount a fraction", "/test-helpers/transactions/" + tx + "/dispute", `{"amount": 10.5}`, 400, "amount"},
			{"unknown reason", "/test-helpers/transactions/" + tx + "/dispute", map[string]any{"reason": "boredom"}, 400, "reason"},
			{"due_by not a time", "/test-helpers/transactions/" + tx + "/dispute", map[string]any{"due_by": "tomorrow"}, 400, "due_by"},
			{"due_by too far", "/test-helpers/transactions/" + tx + "/dispute", map[string]any{"due_by": e.Clock.Now().Add(31 * 24 * time.Hour).Format(time.RFC3339)}, 400, "due_by"},
			{"transaction not a uuid", "/test-helpers/transactions/123/dispute", nil, 400, "id"},
			{"accept with a field", "/v1/disputes/" + id + "/accept", map[string]any{"reason": "x"}, 400, ""},
			{"submit with a field", "/v1/disputes/" + id + "/submit", map[string]any{"now": true}, 400, ""},
			{"accept of a non-uuid", "/v1/disputes/x/accept", nil, 400, "id"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := e.post(c.path, c.body)
				require.Equal(t, c.status, r.Status, "%s", r.Body)
				_, param := errOf(t, r)
				if c.param != "" {
					assert.Equal(t, c.param, param)
				}
			})
		}
		r := e.post("/v1/disputes/"+id+"/accept", map[string]any{})
		require.Equal(t, 200, r.Status, "{} is an empty body: %s", r.Body)
		r = e.Do("GET", "/v1/disputes?transaction_id="+tx, nil)
		assert.Empty(t, r.Map(t)["data"], "no refused call opened a dispute")

		_, live := e.NewAccount(accounts.Live)
		r = e.DoKey(live, "POST", "/test-helpers/transactions/"+tx+"/dispute", nil, "Idempotency-Key", e.key())
		require.Equal(t, 403, r.Status)
	})
}
