package health_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/health"
	"github.com/paygate/paygate/shared/platform/httpapi"
	"github.com/paygate/paygate/shared/platform/openapi"
)

// TestOpenAPIDocumentGzipped: a client that takes gzip gets the document
// gzipped (a sixth of its size), one that does not gets it as it is, and
// both read the same document.
func TestOpenAPIDocumentGzipped(t *testing.T) {
	srv := httpapi.NewServer(httpapi.Config{Log: slog.New(slog.DiscardHandler)}, health.Group())
	get := func(acceptEncoding string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/openapi.json", nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
		assert.Contains(t, w.Header().Values("Vary"), "Accept-Encoding")
		return w
	}
	doc := openapi.Document()

	plain := get("")
	assert.Empty(t, plain.Header().Get("Content-Encoding"))
	assert.Equal(t, doc, plain.Body.Bytes())
	assert.Empty(t, get("gzip;q=0").Header().Get("Content-Encoding"), "gzip refused by its weight")

	for _, enc := range []string{"gzip", "gzip, deflate, br", "br;q=1.0, GZIP;q=0.5"} {
		w := get(enc)
		assert.Equal(t, "gzip", w.Header().Get("Content-Encoding"), enc)
		assert.Less(t, w.Body.Len(), len(doc)/5, "gzipped")
		zr, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
		require.NoError(t, err)
		got, err := io.ReadAll(zr)
		require.NoError(t, err)
		assert.Equal(t, doc, got, enc)
	}
}
