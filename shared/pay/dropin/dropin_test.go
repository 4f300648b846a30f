package dropin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReleasedVersionsDoNotChange: every version directory is released
// (recorded in versions.go) and its files hash as recorded; the current
// Version is one of them. On a mismatch the test prints the block to record
// a new version, never to edit a released one.
func TestReleasedVersionsDoNotChange(t *testing.T) {
	dirs, err := fs.ReadDir(assets, "assets")
	require.NoError(t, err)
	var versions []string
	for _, d := range dirs {
		versions = append(versions, d.Name())
	}
	assert.Contains(t, versions, Version)
	for _, v := range versions {
		files, err := fs.ReadDir(assets, "assets/"+v)
		require.NoError(t, err)
		got := map[string]string{}
		for _, f := range files {
			b, err := fs.ReadFile(assets, "assets/"+v+"/"+f.Name())
			require.NoError(t, err)
			sum := sha256.Sum256(b)
			got[f.Name()] = hex.EncodeToString(sum[:])
		}
		if !assert.Equal(t, released[v], got, "version %s changed: a released version is never edited", v) {
			var names []string
			for n := range got {
				names = append(names, n)
			}
			sort.Strings(names)
			var b strings.Builder
			fmt.Fprintf(&b, "\t%q: {\n", v)
			for _, n := range names {
				fmt.Fprintf(&b, "\t\t%q: %q,\n", n, got[n])
			}
			b.WriteString("\t},\n")
			t.Logf("a new version's record for versions.go:\n%s", b.String())
		}
	}
	assert.Equal(t, versions, Versions())
	for _, name := range Files {
		f, ok := Get(Version, name)
		require.True(t, ok, name)
		assert.NotEmpty(t, f.Gzip)
		assert.True(t, strings.HasPrefix(f.ContentType, "text/"), name)
	}
	assert.True(t, slices.Contains(Files, "dropin.js"))
}
