package storetest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// runBodies: a body comes back byte for byte whatever its size and content,
// through every way of writing and reading one, and a new body replaces the
// old whole. Adapters may store large bodies differently (the DynamoDB
// adapter deflates them), which the port never shows.
func runBodies(t *testing.T, newStore NewStore) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return b
	}
	// jsonLike is an event-like document of about n bytes: repetitive, as
	// JSON is, so it deflates well.
	jsonLike := func(n int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, `{"id":"evt_%04d","type":"payment.authorised","amount":{"value":%d,"currency":"EUR"}},`, i, i*137)
		}
		return b.Bytes()[:n]
	}
	bodies := map[string][]byte{
		"small":                  []byte(`{"a":1}`),
		"just under 1 KB":        jsonLike(639),
		"at the packing size":    jsonLike(640),
		"an event of 1.1 KB":     jsonLike(1100),
		"many KB":                jsonLike(40 << 10),
		"random 2 KB":            random(2048),
		"zero bytes then random": append(make([]byte, 700), random(700)...),
	}

	t.Run("AnySizeRoundTrips", func(t *testing.T) {
		f := setup(t, newStore)
		var keys []store.Key
		for name, body := range bodies {
			k := f.key("put-" + name)
			keys = append(keys, k)
			require.NoError(t, f.write(store.Put(store.Item{Key: k, Data: body, N: 7}, store.IfAbsent)), name)
			// A counter's body written by an add, and a transaction's.
			a := store.Add(f.otherKey("add-"+name), 3, true, store.Always)
			a.Item.Data = body
			require.NoError(t, f.write(a, store.Put(store.Item{Key: f.key("tx-" + name), Data: body}, store.IfAbsent)), name)
			for _, k := range []store.Key{k, f.otherKey("add-" + name), f.key("tx-" + name)} {
				got, err := f.get(k)
				require.NoError(t, err, name)
				assert.Equal(t, body, got.Data, "%s at %s", name, k.SK)
			}
		}
		page, err := f.query(store.Query{Prefix: "put-", Limit: 100})
		require.NoError(t, err)
		require.Len(t, page.Items, len(bodies))
		for _, it := range page.Items {
			assert.Equal(t, bodies[it.Key.SK[len("put-"):]], it.Data, "query: %s", it.Key.SK)
			assert.Equal(t, int64(7), it.N)
		}
		many, err := store.GetMany(f.ctx, f.s, keys)
		require.NoError(t, err)
		require.Len(t, many, len(keys))
		for k, it := range many {
			assert.Equal(t, bodies[k.SK[len("put-"):]], it.Data, "GetMany: %s", k.SK)
		}
	})

	t.Run("ANewBodyReplacesTheOldWhole", func(t *testing.T) {
		f := setup(t, newStore)
		k := f.key("item")
		// Large to small to large to none and back, by puts and by adds
		// (an add with a body replaces it; an empty put clears it).
		steps := []struct {
			add  bool
			body []byte
		}{
			{false, bodies["an event of 1.1 KB"]}, {true, bodies["small"]}, {false, bodies["many KB"]},
			{false, nil}, {true, bodies["random 2 KB"]}, {true, bodies["at the packing size"]}, {false, bodies["small"]},
		}
		for i, st := range steps {
			op := store.Put(store.Item{Key: k, Data: st.body}, store.Always)
			if st.add {
				op = store.Add(k, 1, false, store.Always)
				op.Item.Data = st.body
			}
			require.NoError(t, f.write(op), "step %d", i)
			got, err := f.get(k)
			require.NoError(t, err)
			if st.body == nil {
				assert.Nil(t, got.Data, "step %d: an empty put clears the body", i)
			} else {
				assert.Equal(t, st.body, got.Data, "step %d", i)
			}
		}
	})
}
