package eventlog

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendEncodesAsMarshal: the record Append stores is json.Marshal's
// encoding of it, byte for byte, whatever the data holds (HTML characters,
// line separators, raw JSON with spaces, nothing).
func TestAppendEncodesAsMarshal(t *testing.T) {
	for name, data := range map[string]any{
		"struct": struct {
			A  string    `json:"a"`
			At time.Time `json:"at"`
		}{A: "<b>&\u2028\"x\"", At: time.Unix(1, 5).UTC()},
		"raw spaced": json.RawMessage(` { "a" : [ 1 , 2 ] , "b" : "<>" } `),
		"nil":        nil,
		"map":        map[string]any{"z": 1, "a": "é\u2029"},
		"number":     12.5,
	} {
		t.Run(name, func(t *testing.T) {
			op, err := Append(Event{Type: "payment.authorised", Account: "acct_<1>", At: time.Unix(1700000000, 0), Livemode: true, Data: data})
			require.NoError(t, err)
			var r Record
			require.NoError(t, json.Unmarshal(op.Item.Data, &r))
			want, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(op.Item.Data))
		})
	}
}
