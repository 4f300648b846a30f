package version

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKnownVersions(t *testing.T) {
	assert.Equal(t, []string{"2024-01-15", "2023-09-01", "2023-06-01"}, Versions())
	assert.Equal(t, Current, Versions()[0])
	assert.True(t, Known("2023-09-01"))
	assert.False(t, Known("2023-09-02"))
	assert.False(t, Known(""))
}

func TestChangesAreNewestFirst(t *testing.T) {
	cs := Changes()
	require.NotEmpty(t, cs)
	for i := 1; i < len(cs); i++ {
		assert.GreaterOrEqual(t, cs[i-1].Version, cs[i].Version)
	}
}

func TestMetadataOnlyFrom20240115(t *testing.T) {
	obj := func() map[string]any { return map[string]any{"id": "x", "metadata": map[string]any{"a": "b"}} }
	assert.Contains(t, Apply("2024-01-15", Ctx{Kind: "merchant"}, obj()), "metadata")
	assert.NotContains(t, Apply("2023-09-01", Ctx{Kind: "merchant"}, obj()), "metadata")
	assert.NotContains(t, Apply("2023-06-01", Ctx{Kind: "merchant"}, obj()), "metadata")
	assert.False(t, NeedsTransform(Current))
	assert.True(t, NeedsTransform("2023-06-01"))
}

func TestLegacyErrorBody(t *testing.T) {
	cur := func(param string) map[string]any {
		return map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "parameter_invalid", "message": "bad", "param": param, "request_id": "req_1"}}
	}
	cases := []struct {
		status int
		param  string
		code   int
		typ    string
		source string
	}{
		{400, "amount", 3, "validationError", "amount"},
		{400, "", 3, "apiError", "parameter_invalid"},
		{401, "", 3, "apiError", "parameter_invalid"},
		{404, "", 4, "apiError", "parameter_invalid"},
		{422, "Idempotency-Key", 5, "validationError", "Idempotency-Key"},
		{500, "", 2, "apiError", "parameter_invalid"},
		{503, "", 1, "apiError", "parameter_invalid"},
	}
	for _, c := range cases {
		got := Apply("2023-06-01", Ctx{Kind: KindError, Status: c.status}, cur(c.param))
		assert.Equal(t, map[string]any{"code": c.code, "message": "bad", "source": c.source, "type": c.typ}, got, "status %d", c.status)
	}
	// 2023-09-01 also predates the new error body.
	assert.Contains(t, Apply("2023-09-01", Ctx{Kind: KindError, Status: 400}, cur("x")), "code")
	assert.Contains(t, Apply("2024-01-15", Ctx{Kind: KindError, Status: 400}, cur("x")), "error")
}

func TestLegacyWebhookEnvelope(t *testing.T) {
	ev := map[string]any{"id": "evt_1", "type": "payment.authorised", "created": 1700000000, "account": "acc", "data": map[string]any{"id": "p"}}
	assert.Equal(t, ev, Apply("2023-09-01", Ctx{Kind: KindEvent}, copyMap(ev)))
	old := Apply("2023-06-01", Ctx{Kind: KindEvent}, copyMap(ev))
	assert.Equal(t, map[string]any{"name": "transaction.authorised", "merchantId": "acc", "data": map[string]any{"id": "p"}}, old)
}

func TestRegisterRejectsUnknownVersion(t *testing.T) {
	assert.Panics(t, func() {
		Register(Change{Version: "2020-01-01", Down: func(_ Ctx, o map[string]any) map[string]any { return o }})
	})
}

func copyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
