// Package stores runs a test on every store adapter: the embedded store
// (a fresh file) and DynamoDB Local (fresh tables; skipped without
// DYNAMODB_ENDPOINT, failed with REQUIRE_REAL_SERVERS=1).
package stores

import (
	"path/filepath"
	"testing"

	"github.com/paygate/paygate/shared/aws/dynamostore/dynamotest"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/store/boltstore"
)

// Each runs f as a subtest per adapter, each on a store of its own that
// lives as long as the subtest.
func Each(t *testing.T, clock store.Clock, f func(t *testing.T, st store.Store)) {
	t.Run("embedded", func(t *testing.T) {
		st, err := boltstore.Open(filepath.Join(t.TempDir(), "store.db"), clock)
		if err != nil {
			t.Fatalf("open the embedded store: %v", err)
		}
		t.Cleanup(func() { _ = st.Close() })
		f(t, st)
	})
	t.Run("dynamodb", func(t *testing.T) { f(t, dynamotest.New(t, clock)) })
}
