package disputes

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/paygate/paygate/shared/domain/disputedesk"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// Evidence documents are stored outside the dispute's item: a DynamoDB item
// holds at most 400 KB (the store port refuses more on both adapters), and a
// dispute's documents may hold MaxEvidenceSize. Each document's decoded
// bytes are cut into chunks of ChunkSize, one item each in the dispute's
// own document partition (dspdoc#<account>#<dispute id>), written in
// transactions of their own (at most ChunksPerWrite chunks, under
// DynamoDB's 4 MB per transaction) before the dispute's transaction, which
// then names them (id, size, SHA-256, chunk count). A reader (the sandbox's
// review, Document) only reads what the dispute names, so chunks that no
// dispute names (a call refused after writing them, or a crash between the
// two writes) are never read; the call that wrote them deletes them when it
// is refused for good (refusedForGood), and document ids are derived from
// the Idempotency-Key and the document's bytes, so a retry of a call that
// crashed writes the same chunks again instead of new ones, and a key
// reused with other bytes never overwrites a named chunk.
//
// How 5 MB arrives: a request body is at most EvidenceMaxBody (4 MiB: the
// route's own limit, above the platform's 1 MiB; Lambda takes at most 6 MB
// per invocation, so a 5 MB set, 6.7 MB in base64, can never come in one
// request), and each call adds documents (at most MaxDocumentsPerCall), so a
// set is sent in two calls or more; a call that would take the dispute's
// documents past MaxEvidenceSize is a 413 evidence_too_large with nothing
// stored.

// Limits of evidence.
const (
	MaxEvidenceSize     = 5 << 20 // 5 MiB of decoded documents per dispute
	EvidenceMaxBody     = 4 << 20 // the evidence route's body limit
	MaxDataLength       = 4000000 // base64 characters of one document: 3,000,000 bytes
	MaxDocuments        = 20      // per dispute
	MaxDocumentsPerCall = 10
	MaxDescription      = 20000 // characters
	ChunkSize           = 350000
	ChunksPerWrite      = 10
)

// ContentTypes are the document types taken (the OpenAPI enum).
var ContentTypes = []string{"application/pdf", "image/jpeg", "image/png", "image/tiff", "text/plain"}

// DocumentRequest is one document of an evidence call.
type DocumentRequest struct {
	Name        *string `json:"name"`
	ContentType *string `json:"content_type" maxlen:"32"`
	Data        *string `json:"data" maxlen:"4000000"` // base64 (standard alphabet, padded)
}

// newDoc is a checked document: its bytes and its view.
type newDoc struct {
	storedDoc
	data []byte
}

// checkDocuments validates an evidence call's documents: names, types,
// base64 data whose bytes are of the type named. Errors: Invalid naming
// documents[i].<field>.
func checkDocuments(in []DocumentRequest) ([]newDoc, error) {
	if in != nil && len(in) == 0 {
		return nil, apierr.Invalidf("documents", "documents is empty: send at least one, or leave it out")
	}
	if len(in) > MaxDocumentsPerCall {
		return nil, apierr.Invalidf("documents", "send at most %d documents per call (add more in another call)", MaxDocumentsPerCall)
	}
	out := make([]newDoc, 0, len(in))
	for i, d := range in {
		param := func(f string) string { return "documents[" + strconv.Itoa(i) + "]." + f }
		switch {
		case d.Name == nil:
			return nil, apierr.Missing(param("name"))
		case d.ContentType == nil:
			return nil, apierr.Missing(param("content_type"))
		case d.Data == nil:
			return nil, apierr.Missing(param("data"))
		}
		if strings.TrimSpace(*d.Name) == "" {
			return nil, apierr.Invalidf(param("name"), "%s must not be blank", param("name"))
		}
		if !slices.Contains(ContentTypes, *d.ContentType) {
			return nil, apierr.Invalidf(param("content_type"), "%s must be one of %s", param("content_type"), strings.Join(ContentTypes, ", "))
		}
		data, err := base64.StdEncoding.DecodeString(*d.Data)
		if err != nil {
			return nil, apierr.Invalidf(param("data"), "%s must be the document's bytes in base64 (standard alphabet, padded)", param("data"))
		}
		if len(data) == 0 {
			return nil, apierr.Invalidf(param("data"), "%s is empty", param("data"))
		}
		if !sniff(*d.ContentType, data) {
			return nil, apierr.Invalidf(param("data"), "%s is not a %s document", param("data"), *d.ContentType)
		}
		sum := sha256.Sum256(data)
		out = append(out, newDoc{storedDoc: storedDoc{Document: Document{Name: *d.Name, ContentType: *d.ContentType,
			Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, Chunks: (len(data) + ChunkSize - 1) / ChunkSize}, data: data})
	}
	return out, nil
}

// sniff reports whether data starts as documents of type ct do, so a
// document is what it says it is (the issuer receives it under that type).
func sniff(ct string, data []byte) bool {
	switch ct {
	case "application/pdf":
		return bytes.HasPrefix(data, []byte("%PDF-"))
	case "image/jpeg":
		return bytes.HasPrefix(data, []byte{0xFF, 0xD8, 0xFF})
	case "image/png":
		return bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n"))
	case "image/tiff":
		return bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*"))
	case "text/plain":
		return utf8.Valid(data) && !bytes.ContainsRune(data, 0)
	}
	return false
}

// docNamespace derives document ids from the call's Idempotency-Key.
var docNamespace = uuid.MustParse("5b0e7c52-8e0e-4b8c-9a3e-6d0f0c9a7d11")

// docID is the id of the i-th document of a call: derived from the account,
// the dispute, the Idempotency-Key and the document's SHA-256, so a retry
// of the same call writes the same chunks, and a call reusing the key with
// other bytes (a client's mistake: it gets a 422) writes chunks of its own
// instead of overwriting the ones the first call's dispute names; a random
// one without a key.
func docID(accountID, disputeID, key string, i int, sum string) string {
	if key == "" {
		return uuid.NewString()
	}
	return uuid.NewSHA1(docNamespace, []byte(accountID+"\x00"+disputeID+"\x00"+key+"\x00"+strconv.Itoa(i)+"\x00"+sum)).String()
}

// refusedForGood reports whether an evidence call's error is a refusal no
// copy of the call (same key, same body) could overturn: the dispute's state
// or limits (which only move forward: closed stays closed, documents only
// add up) or the key taken by another request. Only then are the call's
// chunks dropped; after a busy dispute, an outage or a cancelled request a
// copy may still win and name them, so they stay (never read unless named).
func refusedForGood(err error) bool {
	for _, c := range []apierr.Code{CodeClosed, CodeStateConflict, CodeExpired, CodeTooManyDocuments, CodeEvidenceTooLarge} {
		if apierr.HasCode(err, c) {
			return true
		}
	}
	return apierr.Is(err, apierr.IdempotencyMismatch)
}

// writeChunks stores the documents' bytes, ChunksPerWrite items per
// transaction. Errors: Unavailable (and the store's Invalid for a key it
// refuses, which cannot happen for keys built here).
func writeChunks(ctx context.Context, st store.Store, accountID, disputeID string, docs []newDoc) error {
	var ops []store.Op
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		err := st.Write(ctx, ops...)
		ops = ops[:0]
		if err != nil {
			return apierr.Wrap("disputes.writeChunks", apierr.Unavailable, err)
		}
		return nil
	}
	for _, d := range docs {
		for n := 0; n < d.Chunks; n++ {
			end := min((n+1)*ChunkSize, len(d.data))
			ops = append(ops, store.Put(store.Item{Key: chunkKey(accountID, disputeID, d.ID, n), Data: d.data[n*ChunkSize : end]}, store.Always))
			if len(ops) == ChunksPerWrite {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	return flush()
}

// dropChunks deletes the chunks of docs that r (the dispute as it is now)
// does not name (best effort: a chunk left behind is never read).
func dropChunks(ctx context.Context, st store.Store, accountID, disputeID string, r *record, docs []newDoc) {
	named := map[string]bool{}
	if r != nil {
		for _, d := range r.Docs {
			named[d.ID] = true
		}
	}
	var ops []store.Op
	for _, d := range docs {
		if named[d.ID] {
			continue
		}
		for n := 0; n < d.Chunks; n++ {
			ops = append(ops, store.Delete(chunkKey(accountID, disputeID, d.ID, n), store.Always))
		}
	}
	for len(ops) > 0 {
		k := min(len(ops), store.MaxTransactOps)
		_ = st.Write(ctx, ops[:k]...)
		ops = ops[k:]
	}
}

// readDocument reads one named document's bytes and checks them against
// its size and SHA-256. Errors: Unavailable, Internal (a chunk missing or
// the bytes not the ones stored).
func readDocument(ctx context.Context, st store.Store, r *record, d storedDoc) ([]byte, error) {
	out := make([]byte, 0, d.Size)
	for n := 0; n < d.Chunks; n++ {
		it, err := st.Get(ctx, chunkKey(r.AccountID, r.ID, d.ID, n))
		if err != nil {
			return nil, apierr.Wrap("disputes.readDocument", apierr.Unavailable, err)
		}
		out = append(out, it.Data...)
	}
	sum := sha256.Sum256(out)
	if int64(len(out)) != d.Size || hex.EncodeToString(sum[:]) != d.SHA256 {
		return nil, apierr.Wrap("disputes.readDocument", apierr.Internal, fmt.Errorf("document %s of dispute %s does not match what was stored", d.ID, r.ID))
	}
	return out, nil
}

// evidence is the dispute's submitted evidence as the issuer's desk reads
// it: the description, and each document's bytes read when the desk asks.
func evidence(ctx context.Context, st store.Store, r *record) disputedesk.Evidence {
	return disputedesk.Evidence{Description: r.Description, Documents: func(yield func([]byte, error) bool) {
		for _, d := range r.Docs {
			data, err := readDocument(ctx, st, r, d)
			if !yield(data, err) || err != nil {
				return
			}
		}
	}}
}
