package version

// The changes of the spec's version table (§9) that alter representations.
// A version that adds a request parameter (2023-09-01: off_session) declares
// it as a Field (fields.go), next to its request type (shared/pay/customers):
// the decoder refuses it, as an unknown field, in older versions. New
// endpoints need neither.

func init() {
	// 2024-01-15: "metadata field on all resources". Older versions never see it.
	Register(Change{
		Version:     "2024-01-15",
		Description: "Resources carry a metadata object.",
		Down: func(_ Ctx, obj map[string]any) map[string]any {
			delete(obj, "metadata")
			return obj
		},
	})
	// 2024-01-15: "improved error messages": the structured error body.
	Register(Change{
		Version:     "2024-01-15",
		Description: `Errors use {"error": {type, code, message, param, request_id}}.`,
		Kinds:       []string{KindError},
		Down:        legacyError,
	})
	// 2023-09-01: "updated webhook payload structure".
	Register(Change{
		Version:     "2023-09-01",
		Description: `Webhook events use {id, type, created, data}; before, {name, merchantId, data}.`,
		Kinds:       []string{KindEvent},
		Down:        legacyEvent,
	})
}

// KindError is the resource kind of error bodies.
const KindError = "error"

// KindEvent is the resource kind of webhook event envelopes.
const KindEvent = "event"

// Legacy numeric error codes of the initial API.
const (
	legacyUnavailable   = 1
	legacyInternal      = 2
	legacyInvalid       = 3
	legacyNotFound      = 4
	legacyUnprocessable = 5
)

func legacyError(c Ctx, obj map[string]any) map[string]any {
	e, _ := obj["error"].(map[string]any)
	if e == nil {
		return obj
	}
	code, typ := legacyInvalid, "apiError"
	switch {
	case c.Status == 404:
		code = legacyNotFound
	case c.Status == 422:
		code, typ = legacyUnprocessable, "validationError"
	case c.Status == 503:
		code = legacyUnavailable
	case c.Status >= 500:
		code = legacyInternal
	case c.Status == 400 && e["param"] != nil && e["param"] != "":
		typ = "validationError"
	}
	// "source" names what the error is about: the field, else the error code.
	source := e["param"]
	if s, _ := source.(string); s == "" {
		source = e["code"]
	}
	return map[string]any{"code": code, "message": e["message"], "source": source, "type": typ}
}

func legacyEvent(_ Ctx, obj map[string]any) map[string]any {
	name := obj["type"]
	if s, ok := name.(string); ok {
		// payment.authorised -> transaction.authorised, order.completed stays.
		if len(s) > 8 && s[:8] == "payment." {
			name = "transaction." + s[8:]
		}
	}
	return map[string]any{"name": name, "merchantId": obj["account"], "data": obj["data"]}
}
