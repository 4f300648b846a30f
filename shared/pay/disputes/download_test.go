package disputes

import (
	"net/url"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
)

// TestEvidenceDocumentDownload: each evidence document reads back through
// GET /v1/disputes/{id}/evidence/{document_id} byte for byte (one spanning
// several chunks, with bytes that are not text), with its content type and
// as an attachment named as sent; another account's dispute, a document the
// dispute does not name and an id that is no UUID are refused. Both stores.
func TestEvidenceDocumentDownload(t *testing.T) {
	stores(t, func(t *testing.T, b backend) {
		e := newEnv(t, b)
		id := e.open(e.payment("", 20000, 20000), nil)["id"].(string)
		big := sized(2*ChunkSize+77, 0xff) // not UTF-8: binary all through
		note := []byte("delivered on 3 May, signed \"J. Smith\"")
		r := e.post("/v1/disputes/"+id+"/evidence", map[string]any{"documents": []any{
			doc("receipt 44.pdf", "application/pdf", big), doc("note.txt", "text/plain", note)}})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		docs := r.Map(t)["evidence"].(map[string]any)["documents"].([]any)
		require.Len(t, docs, 2)

		for i, want := range []struct {
			data        []byte
			contentType string
			disposition string
		}{
			{big, "application/pdf", `attachment; filename="receipt 44.pdf"`},
			{note, "text/plain", `attachment; filename=note.txt`},
		} {
			docID := docs[i].(map[string]any)["id"].(string)
			r = e.Do("GET", "/v1/disputes/"+id+"/evidence/"+docID, nil)
			require.Equal(t, 200, r.Status, "%s", r.Body)
			assert.Equal(t, want.contentType, r.Header.Get("Content-Type"))
			assert.Equal(t, want.disposition, r.Header.Get("Content-Disposition"))
			assert.Equal(t, want.data, r.Body, "the bytes as sent")
		}

		docID := docs[0].(map[string]any)["id"].(string)
		_, other := e.NewAccount(accounts.Test)
		r = e.DoKey(other, "GET", "/v1/disputes/"+id+"/evidence/"+docID, nil)
		assert.Equal(t, 404, r.Status, "another account's dispute: %s", r.Body)
		r = e.Do("GET", "/v1/disputes/"+id+"/evidence/"+uuid.NewString(), nil)
		assert.Equal(t, 404, r.Status, "a document the dispute does not name: %s", r.Body)
		for path, param := range map[string]string{
			"/v1/disputes/" + id + "/evidence/" + url.PathEscape("not-a-uuid"): "document_id",
			"/v1/disputes/not-a-uuid/evidence/" + docID:                        "id",
		} {
			r = e.Do("GET", path, nil)
			require.Equal(t, 400, r.Status, "%s: %s", path, r.Body)
			assert.Equal(t, param, r.Err(t)["param"], path)
		}
	})
}
