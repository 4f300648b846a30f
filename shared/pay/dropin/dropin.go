// Package dropin holds the web Drop-in (its script and stylesheet), the
// hosted payment page's script that runs it on a link's session, and the
// sandbox issuer's 3-D Secure challenge screen, and serves them.
//
// Decisions:
//
//   - Plain modern JavaScript, no framework and no build step: the files
//     in assets/ are what browsers get (about 9 KB of script gzipped). Its
//     API mirrors Adyen Web's (PaygateCheckout(config), create('dropin'),
//     mount, onPaymentCompleted, onAdditionalDetails, onError), so
//     integrations move over with renames.
//   - Versioned paths: /dropin/<Version>/<file>. A version's files never
//     change (TestVersionedFilesDoNotChange holds them to the hashes
//     recorded for it), so they are cached for a year (immutable), and a
//     change is a new Version. Any origin may load them (a merchant's page;
//     Access-Control-Allow-Origin: * for subresource integrity).
//   - Bodies are gzipped once, on first use, and sent gzipped to clients
//     that accept it (API Gateway passes the bytes base64-encoded); ETag
//     answers a revalidation with 304.
//   - The challenge screen (/sandbox/3ds2/challenge) is the sandbox
//     issuer's own page, framed by the Drop-in as a real issuer's ACS page
//     would be. It tells its parent the challenge's outcome (transStatus)
//     by postMessage; the password is the sandbox's, "password".
//   - Card data is typed into the Drop-in's fields and sent only in the
//     body of the payment request: never in a URL, in storage or in a log.
//     From 1.1.0 it is encrypted in the browser first, with WebCrypto and no
//     library: each of Adyen's encryptedCardNumber (with the holder's name
//     in its payload), encryptedExpiryMonth, encryptedExpiryYear and
//     encryptedSecurityCode is a compact JWE (RSA-OAEP-256 wrapping a random
//     512-bit key, A256CBC-HS512 per RFC 7518) to the public card key the
//     session's setup carries (clientEncryptionKey), which the service opens
//     with the keyring of direct payments (shared/domain/cse). 1.0.0, which
//     sent the sandbox's test_ fields, stays served unchanged for pages that
//     pin it; live keys refuse what it sends.
package dropin

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/httpapi"
)

// Version is the Drop-in's current version: pages the service draws (the
// hosted page, the challenge screen) load its files, under
// /dropin/<Version>/. Every released version stays served.
const Version = "1.1.0"

// assets/<version>/ holds each released version's files. A released
// version is never edited (versions.go records its hashes): a change is a
// new directory and a new Version.
//
//go:embed assets
var assets embed.FS

// Files are the files served under /dropin/<version>/.
var Files = []string{"dropin.js", "dropin.css", "hosted.js", "acs.js"}

// File is one served file, ready to send.
type File struct {
	Name        string
	ContentType string
	Body        []byte
	Gzip        []byte
	ETag        string
}

var (
	once  sync.Once
	files map[string]*File // by "<version>/<name>"
)

func load() {
	files = map[string]*File{}
	versions, err := assets.ReadDir("assets")
	if err != nil {
		panic("dropin: " + err.Error()) // embedded at build time
	}
	for _, v := range versions {
		for _, name := range append(Files, "acs.html") {
			body, err := assets.ReadFile("assets/" + v.Name() + "/" + name)
			if err != nil {
				continue
			}
			body = bytes.ReplaceAll(body, []byte("{{version}}"), []byte(v.Name()))
			files[v.Name()+"/"+name] = newFile(name, body)
		}
	}
}

func newFile(name string, body []byte) *File {
	sum := sha256.Sum256(body)
	ct := map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".html": "text/html; charset=utf-8"}
	return &File{Name: name, ContentType: ct[name[strings.LastIndexByte(name, '.'):]], Body: body, Gzip: httpapi.Gzip(body),
		ETag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// Get is a served file of version by name ("acs.html" is the challenge
// screen).
func Get(version, name string) (*File, bool) {
	once.Do(load)
	f, ok := files[version+"/"+name]
	return f, ok
}

// ServeAsset serves GET /dropin/{version}/{file}: a file of a released
// version, cached for a year by anyone; another version or name is a 404.
func ServeAsset(r *httpapi.Request) (*httpapi.Response, error) {
	name := r.PathValue("file")
	f, ok := Get(r.PathValue("version"), name)
	if !ok || name == "acs.html" {
		return nil, apierr.NotFoundf("no such Drop-in file: /dropin/%s/%s (the current version is %s)", r.PathValue("version"), name, Version)
	}
	h := http.Header{}
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", f.ETag)
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	h.Set("X-Content-Type-Options", "nosniff")
	if match := r.HTTP.Header.Get("If-None-Match"); match != "" && strings.Contains(match, f.ETag) {
		h.Add("Vary", "Accept-Encoding")
		resp := httpapi.Bytes(http.StatusNotModified, "", nil)
		resp.Headers = h
		return resp, nil
	}
	return httpapi.Compressed(r.HTTP, http.StatusOK, f.ContentType, f.Body, f.Gzip, h), nil
}

// ChallengeCSP is the challenge screen's Content-Security-Policy: its own
// script and style only, nothing sent anywhere, framed by any page (a
// merchant's page frames it through the Drop-in).
const ChallengeCSP = "default-src 'none'; script-src 'self'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *"

// ServeChallenge serves GET /sandbox/3ds2/challenge, the sandbox issuer's
// challenge screen.
func ServeChallenge(r *httpapi.Request) (*httpapi.Response, error) {
	f, _ := Get(Version, "acs.html")
	h := http.Header{}
	h.Set("Content-Security-Policy", ChallengeCSP)
	h.Set("Cache-Control", "public, max-age=3600")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	return httpapi.Compressed(r.HTTP, http.StatusOK, f.ContentType, f.Body, f.Gzip, h), nil
}
