package store_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// counted counts its decodings, so a test sees which reads reused one.
type counted struct {
	Name string `json:"name"`
}

var decodings atomic.Int64

func (c *counted) UnmarshalJSON(b []byte) error {
	decodings.Add(1)
	type plain counted
	return json.Unmarshal(b, (*plain)(c))
}

func TestDecodedReusesOnlyTheSameBytes(t *testing.T) {
	var d store.Decoded[counted]
	k := store.Key{Table: store.TableAccounts, PK: "acct#a", SK: "profile"}
	other := store.Key{Table: store.TableAccounts, PK: "acct#b", SK: "profile"}
	decodings.Store(0)

	data := []byte(`{"name":"first"}`)
	v, err := d.Decode(k, data)
	require.NoError(t, err)
	assert.Equal(t, "first", v.Name)
	data[10] = 'X' // the caller's slice is the caller's: the memo kept a copy
	v, err = d.Decode(k, []byte(`{"name":"first"}`))
	require.NoError(t, err)
	assert.Equal(t, "first", v.Name)
	assert.EqualValues(t, 1, decodings.Load(), "the same bytes again: no decoding")

	v, err = d.Decode(k, []byte(`{"name":"second"}`))
	require.NoError(t, err)
	assert.Equal(t, "second", v.Name, "changed bytes are decoded afresh")
	v, err = d.Decode(other, []byte(`{"name":"second"}`))
	require.NoError(t, err)
	assert.Equal(t, "second", v.Name)
	assert.EqualValues(t, 3, decodings.Load(), "another key is its own entry")

	_, err = d.Decode(k, []byte(`{"name":`))
	assert.Error(t, err, "a bad record is an error, never a remembered value")
	v, err = d.Decode(k, []byte(`{"name":"second"}`))
	require.NoError(t, err)
	assert.Equal(t, "second", v.Name)
}

// TestDecodedUnderManyReaders: readers of changing records, each checking
// that what it got is what it read (go test -race sees the sharing).
func TestDecodedUnderManyReaders(t *testing.T) {
	var d store.Decoded[counted]
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 3000 {
				// Many keys, past the memo's bound, and values that change.
				k := store.Key{Table: store.TableAccounts, PK: fmt.Sprintf("acct#%d", (g*7+i)%1500), SK: "profile"}
				name := fmt.Sprintf("v%d", i%3)
				v, err := d.Decode(k, []byte(`{"name":"`+name+`"}`))
				if !assert.NoError(t, err) || !assert.Equal(t, name, v.Name) {
					return
				}
			}
		})
	}
	wg.Wait()
}
