package customers

import (
	"reflect"

	"github.com/paygate/paygate/shared/platform/version"
)

func init() {
	// 2023-09-01: "off_session parameter for saved cards" (spec §9). Under
	// 2023-06-01 it is an unknown field (a 400); a payment there runs off
	// session by its recurring_type's default.
	version.AddField(version.Field{
		Version:     "2023-09-01",
		Request:     reflect.TypeFor[RecurringRequest](),
		Name:        "off_session",
		Description: "Whether a recurring payment runs without the shopper (never asks for 3-D Secure).",
	})
}
