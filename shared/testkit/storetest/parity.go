package storetest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/platform/apierr"
	"github.com/paygate/paygate/shared/store"
)

// runParity: the keys and values the port accepts, one table for every
// adapter, so "same expectation" is "same answer on both": each case is
// either stored and read back byte for byte, or refused with the same kinded
// 400 (and then absent to every read), alone or inside a transaction.
func runParity(t *testing.T, newStore NewStore) {
	// fill returns Data that makes the item at k exactly size bytes by
	// store.ItemSize.
	fill := func(k store.Key, size int) []byte {
		return bytes.Repeat([]byte{0}, size-store.ItemSize(store.Item{Key: k}))
	}
	cases := []struct {
		name string
		pk   string // appended to the fixture's partition; "" keeps it
		sk   string
		data func(k store.Key) []byte // nil: "x"
		want error                    // nil, store.ErrKeyInvalid or store.ErrTooLarge
	}{
		{name: "NULInPK", pk: "\x00a", sk: "s", want: store.ErrKeyInvalid},
		{name: "NULInSK", sk: "a\x00b", want: store.ErrKeyInvalid},
		{name: "NULAloneInSK", sk: "\x00", want: store.ErrKeyInvalid},
		{name: "NULInData", sk: "s", data: func(store.Key) []byte { return []byte("a\x00b\x00") }},
		{name: "InvalidUTF8InPK", pk: "\xff", sk: "s", want: store.ErrKeyInvalid},
		{name: "InvalidUTF8InSK", sk: "a\xfeb", want: store.ErrKeyInvalid},
		{name: "LoneSurrogateInSK", sk: "a\xed\xa0\x80b", want: store.ErrKeyInvalid}, // CESU-8 U+D800
		{name: "OverlongSlashInSK", sk: "a\xc0\xafb", want: store.ErrKeyInvalid},
		{name: "InvalidUTF8InData", sk: "s", data: func(store.Key) []byte { return []byte("\xff\xfe\xed\xa0\x80") }},
		{name: "ControlsInSK", sk: "a\x01\x1f\x7fb"},
		{name: "BidiOverrideInSK", sk: "a\u202eb\u2066"},
		{name: "ReplacementCharInSK", sk: "a\ufffdb"},
		{name: "EmojiInSK", sk: "a\U0001F600b"},
		{name: "SK1KB", sk: strings.Repeat("k", store.MaxSKSize)},
		{name: "SK1KBMultibyte", sk: strings.Repeat("é", store.MaxSKSize/2)},
		{name: "SKOver1KB", sk: strings.Repeat("k", store.MaxSKSize+1), want: store.ErrTooLarge},
		{name: "SKOver1KBMultibyte", sk: strings.Repeat("é", store.MaxSKSize/2) + "é", want: store.ErrTooLarge},
		{name: "PKAtLimit", pk: "\x01", sk: "s"}, // padded to MaxPKSize below
		{name: "PKOverLimit", pk: "\x02", sk: "s", want: store.ErrTooLarge},
		{name: "ItemAtLimit", sk: "s", data: func(k store.Key) []byte { return fill(k, store.MaxItemSize) }},
		{name: "Data400KB", sk: "s", data: func(store.Key) []byte { return make([]byte, 400*1024) }, want: store.ErrTooLarge},
		{name: "ItemOverLimitByOne", sk: "s", data: func(k store.Key) []byte { return fill(k, store.MaxItemSize+1) }, want: store.ErrTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := setup(t, newStore)
			pk := f.pk + tc.pk
			switch tc.pk {
			case "\x01":
				pk = f.pk + strings.Repeat("p", store.MaxPKSize-len(f.pk))
			case "\x02":
				pk = f.pk + strings.Repeat("p", store.MaxPKSize+1-len(f.pk))
			}
			k := store.Key{Table: store.TableAccounts, PK: pk, SK: tc.sk}
			data := []byte("x")
			if tc.data != nil {
				data = tc.data(k)
			}
			put := store.Put(store.Item{Key: k, Data: data, N: 7}, store.IfAbsent)
			companion := f.otherKey("companion")
			if tc.want != nil {
				refused(t, f.write(put), tc.want)
				refused(t, f.write(store.Put(store.Item{Key: companion, Data: []byte("c")}, store.IfAbsent), put), tc.want)
				if tc.want == store.ErrKeyInvalid {
					refused(t, f.write(store.Add(k, 1, false, store.Always)), tc.want)
					refused(t, f.write(store.Delete(k, store.Always)), tc.want)
				}
				_, err := f.get(k)
				require.ErrorIs(t, err, store.ErrNotFound, "a refused key is absent to reads")
				_, err = f.get(companion)
				require.ErrorIs(t, err, store.ErrNotFound, "nothing of the transaction was written")
				page, err := f.query(store.Query{PK: k.PK, Limit: 10})
				require.NoError(t, err)
				assert.Empty(t, page.Items)
				assert.Empty(t, page.Next)
				return
			}
			require.NoError(t, f.write(put))
			got, err := f.get(k)
			require.NoError(t, err)
			assert.Equal(t, k, got.Key)
			assert.True(t, bytes.Equal(data, got.Data), "data read back byte for byte")
			assert.Equal(t, int64(7), got.N)
			page, err := f.query(store.Query{PK: k.PK, Limit: 10})
			require.NoError(t, err)
			require.Len(t, page.Items, 1)
			assert.Equal(t, tc.sk, page.Items[0].SK, "the key reads back byte for byte")
			// The same key in a transaction with another write.
			require.NoError(t, f.write(store.Add(k, 1, false, store.IfVersion(1)),
				store.Put(store.Item{Key: companion, Data: []byte("c")}, store.IfAbsent)))
			got, err = f.get(k)
			require.NoError(t, err)
			assert.Equal(t, int64(8), got.N)
		})
	}

	t.Run("UnusualKeysSortByBytes", func(t *testing.T) {
		f := setup(t, newStore)
		sks := []string{"\x01", "\x1f", "A", "a", "a\x7f", "é", "\u202e", "\ufffd", "\U0001F600"} // byte order
		for _, sk := range sks {
			require.NoError(t, f.write(store.Put(store.Item{Key: f.key(sk)}, store.IfAbsent)), "%q", sk)
		}
		var got []string
		cursor := ""
		for {
			page, err := f.query(store.Query{Limit: 2, Cursor: cursor})
			require.NoError(t, err)
			for _, it := range page.Items {
				got = append(got, it.SK)
			}
			if page.Next == "" {
				break
			}
			cursor = page.Next
		}
		assert.Equal(t, sks, got)
		page, err := f.query(store.Query{Prefix: "a", Limit: 10})
		require.NoError(t, err)
		require.Len(t, page.Items, 2)
		assert.Equal(t, "a\x7f", page.Items[1].SK)
	})

	t.Run("CursorsAndBoundsFollowTheKeyRule", func(t *testing.T) {
		f := setup(t, newStore)
		require.NoError(t, f.write(store.Put(store.Item{Key: f.key("a")}, store.IfAbsent)))
		for _, sk := range []string{"a\x00", "\xff", "a\xed\xa0\x80"} {
			_, err := f.query(store.Query{Limit: 10, Cursor: store.EncodeCursor(sk)})
			require.ErrorIs(t, err, store.ErrInvalid, "cursor %q: no key could have produced it", sk)
		}
		for _, q := range []store.Query{{Prefix: "\xff"}, {From: "a\x00"}, {To: "\xc0\xaf"}} {
			q.Limit = 10
			_, err := f.query(q)
			require.ErrorIs(t, err, store.ErrInvalid, "%+v", q)
		}
	})
}

// refused asserts a write refused with want, as a kinded 400.
func refused(t *testing.T, err, want error) {
	t.Helper()
	require.ErrorIs(t, err, want)
	e := apierr.As(err)
	assert.Equal(t, apierr.Invalid, e.Kind, "a client error, not a 5xx")
	assert.Less(t, e.Kind.Status(), 500)
	code := "parameter_invalid"
	if want == store.ErrTooLarge {
		code = "item_too_large"
	}
	assert.Equal(t, code, e.CodeOrDefault())
}
