package payments

import "github.com/paygate/paygate/shared/version"

func init() {
	// 2024-01-15 renamed the provider's "3d" status to requires_action (spec
	// §9: "status payment.requires_action"). Older versions see "3d" on the
	// payment and "payment.3d" as the event type.
	version.Register(version.Change{
		Version:     "2024-01-15",
		Description: `Payments waiting for the shopper have status requires_action; before, "3d".`,
		Kinds:       []string{Kind, version.KindEvent},
		Down:        legacyRequiresAction,
	})
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

func renameStatus(p map[string]any) {
	if p["status"] == string(RequiresAction) {
		p["status"] = LegacyRequiresAction
	}
	if h, ok := p["history"].([]any); ok {
		for _, e := range h {
			if m, ok := e.(map[string]any); ok && m["status"] == string(RequiresAction) {
				m["status"] = LegacyRequiresAction
			}
		}
	}
}
