package eventlog

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/paygate/paygate/shared/store"
)

// TestDecodeHeadIsDecodeWithoutData: for records as Append writes them and
// for every other shape (older layouts, fields in another order, repeated
// or oddly typed names, damaged heads), DecodeHead answers what Decode
// does, data aside.
func TestDecodeHeadIsDecodeWithoutData(t *testing.T) {
	op, err := Append(Event{Type: "payment.authorised", Account: "acct_1", At: time.Unix(1700000000, 0), Livemode: true,
		Data: map[string]any{"id": "pay_1", "livemode": false, "type": "not the head's"}})
	require.NoError(t, err)
	appended := string(op.Item.Data)
	key := op.Item.Key
	for name, raw := range map[string]string{
		"as Append writes":       appended,
		"test mode":              strings.Replace(appended, `"livemode":true`, `"livemode":false`, 1),
		"no id, no account":      `{"type":"t","created":5,"livemode":true,"data":{}}`,
		"legacy: mode in data":   `{"id":"evt_x","type":"t","account":"a","created":5,"data":{"livemode":true}}`,
		"livemode after data":    `{"id":"evt_x","type":"t","data":{"livemode":false},"livemode":true}`,
		"other order":            `{"livemode":true,"created":7,"account":"a","type":"t","id":"evt_y","data":null}`,
		"no data":                `{"id":"evt_x","type":"t","account":"a","created":5,"livemode":true}`,
		"repeated name":          `{"type":"a","type":"b","livemode":true,"data":{}}`,
		"name in another case":   `{"Type":"t","livemode":true,"data":{}}`,
		"unknown name":           `{"type":"t","extra":1,"livemode":true,"data":{}}`,
		"created with fraction":  `{"type":"t","created":1.5,"livemode":true,"data":{}}`,
		"created past 18 digits": `{"type":"t","created":1234567890123456789,"livemode":true,"data":{}}`,
		"negative created":       `{"type":"t","created":-12,"livemode":true,"data":{}}`,
		"type not a string":      `{"type":7,"livemode":true,"data":{}}`,
		"livemode not a bool":    `{"type":"t","livemode":"yes","data":{}}`,
		"null type":              `{"type":null,"livemode":true,"data":{}}`,
		"escaped string":         `{"type":"a\u00e9\"b","livemode":true,"data":{}}`,
		"invalid UTF-8":          "{\"type\":\"a\xffb\",\"livemode\":true,\"data\":{}}",
		"not an object":          `[1,2]`,
		"damaged head":           `{"type":"t","livemode":tru`,
		"empty":                  ``,
	} {
		t.Run(name, func(t *testing.T) {
			it := store.Item{Key: key, Data: []byte(raw)}
			want, wantErr := Decode(it)
			got, err := DecodeHead(it)
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Nil(t, got.Data, "DecodeHead leaves the data out")
			want.Data = nil
			assert.Equal(t, want, got)
		})
	}
}

// TestDecodeHeadStopsAtTheData: the fast path really is taken for what
// Append writes (the data past the head is never read, so a damaged data
// does not stop it; Decode refuses the same record).
func TestDecodeHeadStopsAtTheData(t *testing.T) {
	op, err := Append(Event{Type: "payment.captured", Account: "acct_2", At: time.Unix(1700000000, 0), Data: map[string]int{"amount": 1}})
	require.NoError(t, err)
	damaged := op.Item
	damaged.Data = append(append([]byte(nil), op.Item.Data[:len(op.Item.Data)-3]...), "!!!"...)
	_, err = Decode(damaged)
	require.Error(t, err)
	r, err := DecodeHead(damaged)
	require.NoError(t, err)
	assert.Equal(t, "payment.captured", r.Type)
	assert.Equal(t, "acct_2", r.Account)
	assert.False(t, r.Livemode)
	assert.EqualValues(t, 1700000000, r.Created)
}

// BenchmarkDecodeHead against BenchmarkDecode: a record carrying a
// payment-sized data (about 2 KB), as the publisher reads one per event.
func BenchmarkDecodeHead(b *testing.B) { benchDecode(b, DecodeHead) }
func BenchmarkDecode(b *testing.B)     { benchDecode(b, Decode) }

func benchDecode(b *testing.B, decode func(store.Item) (Record, error)) {
	data := map[string]any{"id": "pay_1", "amount": map[string]any{"value": 1000, "currency": "EUR"},
		"notes": strings.Repeat("a payment's fields ", 100)}
	op, err := Append(Event{Type: "payment.authorised", Account: "acct_1", At: time.Now(), Livemode: true, Data: data})
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(op.Item); err != nil {
			b.Fatal(err)
		}
	}
}
