package httpapi

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
)

// Gzip is body gzipped at the best compression: for a body served many
// times (a Drop-in file, the OpenAPI document), compressed once.
func Gzip(body []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(body)
	_ = zw.Close()
	return buf.Bytes()
}

// AcceptsGzip reports whether the request's client takes a gzip body.
func AcceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.TrimSpace(strings.ReplaceAll(q, " ", "")) != "q=0" {
				return true
			}
		}
	}
	return false
}

// Compressed answers body (of contentType) with headers, gzipped when the
// client accepts it and it is worth it: gz is body gzipped already (Gzip),
// or nil to gzip a body over 512 bytes here, at the best speed. API Gateway
// passes the gzipped bytes base64-encoded; the Lambda answer is the smaller.
func Compressed(r *http.Request, status int, contentType string, body, gz []byte, h http.Header) *Response {
	if h == nil {
		h = http.Header{}
	}
	h.Add("Vary", "Accept-Encoding")
	accepts := AcceptsGzip(r)
	if gz == nil && accepts && len(body) > 512 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		_, _ = zw.Write(body)
		_ = zw.Close()
		gz = buf.Bytes()
	}
	resp := Bytes(status, contentType, body)
	if gz != nil && accepts {
		resp = Bytes(status, contentType, gz)
		h.Set("Content-Encoding", "gzip")
	}
	resp.Headers = h
	return resp
}
