package eventlog_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/domain/eventlog"
	"github.com/paygate/paygate/shared/store"
	"github.com/paygate/paygate/shared/testkit/stores"
)

// TestEveryCatalogueTypeIsAppendedWithItsExpiry: each type of the catalogue,
// written through Append, is a record of the log that expires Retention
// after it was created, on both stores. (webhooks' TestCatalogueIsTheOneList
// proves the catalogue is what the areas emit; the areas' own tests check the
// records their flows write.)
func TestEveryCatalogueTypeIsAppendedWithItsExpiry(t *testing.T) {
	stores.Each(t, nil, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		at := time.Now().UTC().Truncate(time.Second).Add(-time.Hour)
		written := map[string]string{} // id -> type
		for _, typ := range eventlog.Types() {
			op, err := eventlog.Append(eventlog.Event{Type: typ, Account: "acct_cat", At: at, Data: thing{ID: typ}})
			require.NoError(t, err)
			require.NoError(t, st.Write(ctx, op))
			it, err := st.Get(ctx, op.Item.Key)
			require.NoError(t, err, typ)
			assert.Equal(t, at.Add(eventlog.Retention).Unix(), it.ExpiresAt.Unix(), "%s expires Retention after it was created", typ)
			r, err := eventlog.Decode(it)
			require.NoError(t, err, typ)
			assert.Equal(t, typ, r.Type)
			written[r.ID] = typ
		}
		// The log lists them all, each once, as stored.
		page, err := st.Query(ctx, eventlog.Newest("acct_cat", ""))
		require.NoError(t, err)
		require.Len(t, page.Items, len(written))
		for _, it := range page.Items {
			assert.False(t, it.ExpiresAt.IsZero(), "every record read back carries its expiry")
			r, err := eventlog.Decode(it)
			require.NoError(t, err)
			assert.Equal(t, written[r.ID], r.Type)
		}
	})
}

// TestOnlyTheLogWritesEvents: no file outside the log builds a key of the
// events table, so every event is written by Append (with its expiry). The
// registry's declarations name the table (grants, stream sources, the
// key-prefix ledger) in the areas' group.go files, and are the only other
// mentions allowed.
func TestOnlyTheLogWritesEvents(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		slash := filepath.ToSlash(p)
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasSuffix(slash, "shared/domain/eventlog") || strings.HasSuffix(slash, "shared/store") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files++
		declared := map[ast.Node]bool{} // values of registry declaration fields
		ast.Inspect(f, func(n ast.Node) bool {
			if filepath.Base(p) != "group.go" { // where areas declare their groups
				return false
			}
			if kv, ok := n.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && (k.Name == "Name" || k.Name == "Streams" || k.Name == "Prefix" || k.Name == "Table") {
					declared[kv.Value] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			if declared[n] {
				return false
			}
			switch x := n.(type) {
			case *ast.SelectorExpr:
				pkg, ok := x.X.(*ast.Ident)
				if !ok {
					return true
				}
				if pkg.Name == "store" && x.Sel.Name == "TableEvents" || pkg.Name == "eventlog" && (x.Sel.Name == "Key" || x.Sel.Name == "PK") {
					t.Errorf("%s: %s.%s outside the event log: append events with eventlog.Append", fset.Position(x.Pos()), pkg.Name, x.Sel.Name)
				}
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && strings.HasPrefix(s, "evt#") {
					t.Errorf("%s: an event key built by hand (%q)", fset.Position(x.Pos()), s)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, files, 100, "the walk found the tree's sources")
}
