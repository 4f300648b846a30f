package payments

import "github.com/paygate/paygate/shared/platform/version"

func init() {
	// 2024-01-15 renamed the provider's "3d" status to requires_action (spec
	// §9: "status payment.requires_action"). Older versions see "3d" on the
	// payment and "payment.3d" as the event type.
	version.Register(version.Change{
		Version:     "2024-01-15",
		Description: `Payments waiting for the shopper have status requires_action; before, "3d".`,
		Kinds:       []string{Kind, KindHistory, version.KindEvent},
		Down:        legacyRequiresAction,
	})
}

func init() {
	// 2023-09-01 added disputes: before it a transaction does not say it is
	// disputed (the field names a resource those versions cannot read), nor
	// does a payment event's data.
	version.Register(version.Change{
		Version:     "2023-09-01",
		Description: "Transactions say whether they are disputed (disputed, dispute_id).",
		Kinds:       []string{Kind, version.KindEvent},
		Down:        withoutDispute,
	})
}

func withoutDispute(c version.Ctx, obj map[string]any) map[string]any {
	if c.Kind == version.KindEvent {
		if data, ok := obj["data"].(map[string]any); ok {
			delete(data, "dispute")
		}
		return obj
	}
	delete(obj, "disputed")
	delete(obj, "dispute_id")
	return obj
}

func legacyRequiresAction(c version.Ctx, obj map[string]any) map[string]any {
	if c.Kind == version.KindEvent {
		if obj["type"] == EventType(RequiresAction) {
			obj["type"] = "payment." + LegacyRequiresAction
		}
		if data, ok := obj["data"].(map[string]any); ok {
			renameStatus(data)
		}
		return obj
	}
	renameStatus(obj)
	return obj
}

// statusFields are the fields that hold a status: a record's status, a
// history entry's status and from, and the to of a Pay API history entry.
var statusFields = []string{"status", "from", "to"}

func renameStatus(p map[string]any) {
	for _, f := range statusFields {
		if p[f] == string(RequiresAction) {
			p[f] = LegacyRequiresAction
		}
	}
	if h, ok := p["history"].([]any); ok {
		for _, e := range h {
			if m, ok := e.(map[string]any); ok {
				renameStatus(m)
			}
		}
	}
}
