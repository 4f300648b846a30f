package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

func sks(items []store.Item) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.SK
	}
	return out
}

func runQuery(t *testing.T, newStore NewStore) {
	t.Run("OrderRangesPrefix", func(t *testing.T) {
		f := setup(t, newStore)
		for _, sk := range []string{"b#2", "a#1", "b#1", "c#1", "b#3", "a#2"} {
			require.NoError(t, f.write(store.Put(store.Item{Key: f.key(sk), Data: []byte(sk)}, store.Always)))
		}
		// A neighbouring partition whose PK extends ours must not leak in.
		require.NoError(t, f.write(store.Put(store.Item{Key: store.Key{Table: store.TableAccounts, PK: f.pk + "x", SK: "a#0"}}, store.Always)))

		cases := []struct {
			name string
			q    store.Query
			want []string
		}{
			{"asc", store.Query{}, []string{"a#1", "a#2", "b#1", "b#2", "b#3", "c#1"}},
			{"desc", store.Query{Desc: true}, []string{"c#1", "b#3", "b#2", "b#1", "a#2", "a#1"}},
			{"between", store.Query{From: "a#2", To: "b#2"}, []string{"a#2", "b#1", "b#2"}},
			{"between desc", store.Query{From: "a#2", To: "b#2", Desc: true}, []string{"b#2", "b#1", "a#2"}},
			{"from", store.Query{From: "b#3"}, []string{"b#3", "c#1"}},
			{"from desc", store.Query{From: "b#3", Desc: true}, []string{"c#1", "b#3"}},
			{"to", store.Query{To: "a#9"}, []string{"a#1", "a#2"}},
			{"to desc", store.Query{To: "a#9", Desc: true}, []string{"a#2", "a#1"}},
			{"prefix", store.Query{Prefix: "b#"}, []string{"b#1", "b#2", "b#3"}},
			{"prefix desc", store.Query{Prefix: "b#", Desc: true}, []string{"b#3", "b#2", "b#1"}},
			{"prefix none", store.Query{Prefix: "d"}, []string{}},
			{"empty range", store.Query{From: "b", To: "a"}, []string{}},
			{"limit", store.Query{Limit: 2}, []string{"a#1", "a#2"}},
			{"limit desc", store.Query{Limit: 2, Desc: true}, []string{"c#1", "b#3"}},
		}
		for _, c := range cases {
			if c.q.Limit == 0 {
				c.q.Limit = 100
			}
			page, err := f.query(c.q)
			require.NoError(t, err, c.name)
			assert.Equal(t, c.want, sks(page.Items), c.name)
			if c.q.Limit == 100 {
				assert.Empty(t, page.Next, c.name)
			} else {
				assert.NotEmpty(t, page.Next, c.name)
			}
		}
		page, err := f.query(store.Query{Limit: 1})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Equal(t, []byte("a#1"), page.Items[0].Data)
		assert.Equal(t, int64(1), page.Items[0].Version)
		assert.Equal(t, store.TableAccounts, page.Items[0].Table)
		assert.Equal(t, f.pk, page.Items[0].PK)
	})

	t.Run("Paging", func(t *testing.T) {
		f := setup(t, newStore)
		var all []string
		for i := range 25 {
			sk := fmt.Sprintf("item#%03d", i)
			all = append(all, sk)
			require.NoError(t, f.write(store.Put(store.Item{Key: f.key(sk)}, store.Always)))
		}
		for _, desc := range []bool{false, true} {
			var got []string
			var sizes []int
			cursor := ""
			for range 10 {
				page, err := f.query(store.Query{Prefix: "item#", Limit: 10, Desc: desc, Cursor: cursor})
				require.NoError(t, err)
				got = append(got, sks(page.Items)...)
				sizes = append(sizes, len(page.Items))
				if cursor = page.Next; cursor == "" {
					break
				}
			}
			want := all
			if desc {
				want = make([]string, len(all))
				for i, sk := range all {
					want[len(all)-1-i] = sk
				}
			}
			assert.Equal(t, want, got, "desc=%v: every item once, in order", desc)
			assert.Equal(t, []int{10, 10, 5}, sizes, "desc=%v", desc)
		}

		// Paging a bounded range stops at its end.
		page, err := f.query(store.Query{From: "item#005", To: "item#014", Limit: 5})
		require.NoError(t, err)
		require.NotEmpty(t, page.Next)
		page, err = f.query(store.Query{From: "item#005", To: "item#014", Limit: 5, Cursor: page.Next})
		require.NoError(t, err)
		assert.Equal(t, []string{"item#010", "item#011", "item#012", "item#013", "item#014"}, sks(page.Items))
		assert.Empty(t, page.Next)
	})

	t.Run("BadQueries", func(t *testing.T) {
		f := setup(t, newStore)
		require.NoError(t, f.write(store.Put(store.Item{Key: f.key("m#1")}, store.Always)))
		bad := map[string]store.Query{
			"malformed cursor": {Limit: 10, Cursor: "!!not base64!!"},
			"empty cursor":     {Limit: 10, Cursor: "="},
			"cursor outside":   {Prefix: "m#", Limit: 10, Cursor: store.EncodeCursor("z")},
			"no limit":         {},
			"limit too big":    {Limit: store.MaxQueryLimit + 1},
			"prefix and range": {Prefix: "m", From: "a", Limit: 1},
		}
		for name, q := range bad {
			_, err := f.query(q)
			require.ErrorIs(t, err, store.ErrInvalid, name)
		}
	})
}
