package listing

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"net/url"

	"github.com/paygate/paygate/shared/platform/apierr"
)

// A cursor a client sees is bound to the list it came from: the route, the
// account and the filters (every query parameter but cursor and limit, so a
// client may change the page size between pages). It is
//
//	base64url( version 0x01 | 16 bytes of SHA-256(scope) | the store's cursor )
//
// Binding is about correctness, not secrecy: a cursor only ever positions a
// query inside the caller's own partition, so a forged one can reach nothing
// the caller could not list anyway, and no key (HMAC) is needed; what the
// binding prevents is a cursor of one list silently paging another, or the
// same list under other filters, which would skip or repeat items.
const cursorVersion = 0x01

const tagLen = 16

// Scope identifies one list for one caller.
type Scope struct {
	Route   string     // the route pattern, e.g. "GET /orders"
	Account string     // the caller's account
	Filters url.Values // the query; cursor and limit are left out here
}

func (s Scope) tag() []byte {
	f := url.Values{}
	for k, vs := range s.Filters {
		if k == "cursor" || k == "limit" {
			continue
		}
		for _, v := range vs {
			if v != "" { // an empty filter is no filter (handlers read it so)
				f.Add(k, v)
			}
		}
	}
	h := sha256.New()
	h.Write([]byte("paygate list cursor\x00" + s.Route + "\x00" + s.Account + "\x00" + f.Encode()))
	return h.Sum(nil)[:tagLen]
}

// Bind wraps the store's cursor for the client; "" stays "" (no more pages).
func (s Scope) Bind(storeCursor string) string {
	if storeCursor == "" {
		return ""
	}
	b := make([]byte, 0, 1+tagLen+len(storeCursor))
	b = append(b, cursorVersion)
	b = append(b, s.tag()...)
	b = append(b, storeCursor...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Unbind checks a client's cursor against the scope and returns the store's
// cursor inside it: a 400 on cursor when it is malformed or belongs to
// another list, account or set of filters.
func (s Scope) Unbind(cursor string) (string, error) {
	if cursor == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) <= 1+tagLen || b[0] != cursorVersion {
		return "", apierr.Invalidf("cursor", "cursor is malformed: pass next_cursor back unchanged")
	}
	if subtle.ConstantTimeCompare(b[1:1+tagLen], s.tag()) != 1 {
		return "", apierr.Invalidf("cursor", "cursor belongs to another list, another account or other filters: send the same filters as the first page, or start again without a cursor")
	}
	return string(b[1+tagLen:]), nil
}
