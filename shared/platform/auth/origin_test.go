package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/accounts"
	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/platform/auth"
)

// TestClientKeyOriginsAreWholeOrigins: an allowed origin is
// scheme://host[:port], http only on localhost or 127.0.0.1 exactly; a host
// that merely starts with localhost is refused, as is a user, a path or a
// bad port.
func TestClientKeyOriginsAreWholeOrigins(t *testing.T) {
	repo, keys := newKeys(t)
	acct := newAccount(t, repo, "Origins", accounts.Test)
	for _, o := range []string{"https://shop.example", "https://shop.example:8443", "http://localhost", "http://localhost:3000",
		"http://127.0.0.1:8080", "HTTPS://Shop.Example"} {
		_, _, err := keys.Create(context.Background(), acct, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{o}})
		assert.NoError(t, err, o)
	}
	for _, o := range []string{"http://localhost.evil.com", "http://localhost.evil.com:3000", "http://127.0.0.1.evil.com",
		"http://localhost@evil.com", "http://evil.com#http://localhost", "http://shop.example", "https://shop.example/",
		"https://shop.example/path", "https://shop.example?x=1", "https://shop.example:0", "https://shop.example:99999",
		"https://shop.example:", "https://", "ftp://shop.example", "shop.example", ""} {
		_, _, err := keys.Create(context.Background(), acct, auth.NewKey{Kind: auth.Client, AllowedOrigins: []string{o}})
		require.Error(t, err, o)
		assert.Equal(t, "allowed_origins", apierr.As(err).Param, o)
	}
}

// TestSameOrigin: scheme, host and port compare exactly; a default port
// written out is the same origin; a prefix is not.
func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://shop.example", "https://shop.example", true},
		{"https://shop.example", "https://shop.example:443", true},
		{"https://shop.example:443", "https://shop.example", true},
		{"http://localhost", "http://localhost:80", true},
		{"https://shop.example", "https://SHOP.example", true},
		{"http://localhost", "http://localhost.evil.com", false},
		{"http://localhost:3000", "http://localhost:30001", false},
		{"https://shop.example", "https://shop.example.evil.com", false},
		{"https://shop.example", "http://shop.example", false},
		{"https://shop.example", "https://shop.example:8443", false},
		{"http://localhost", "http://localhost:443", false},
		{"https://shop.example", "", false},
		{"https://shop.example", "null", false},
		{"https://shop.example", "https://shop.example/", false},
	} {
		assert.Equal(t, c.same, auth.SameOrigin(c.a, c.b), "%q vs %q", c.a, c.b)
		assert.Equal(t, c.same, auth.SameOrigin(c.b, c.a), "%q vs %q", c.b, c.a)
		k := &auth.Key{AllowedOrigins: []string{"https://other.example", c.a}}
		assert.Equal(t, c.same, k.AllowsOrigin(c.b), "key allowing %q, Origin %q", c.a, c.b)
	}
}
