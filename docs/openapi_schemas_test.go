package docs_test

// adminSchemas are the components of the management API's answers.
func adminSchemas() map[string]any {
	codeLabel := obj(map[string]any{"code": str(), "label": str()}, "code", "label")
	byLang := func(s map[string]any) map[string]any { return map[string]any{"type": "object", "additionalProperties": s} }
	return map[string]any{
		"User": obj(map[string]any{"id": integer(), "username": str(), "email": str(), "role": enum("owner", "manager", "moderator", "viewer"),
			"second_step": boolean()}, "id", "username", "role"),
		"Session": obj(map[string]any{"authenticated": boolean(), "step": enum("second_step"), "csrf_token": str(), "user": ref("User")}, "authenticated"),
		"SecondStep": obj(map[string]any{"enabled": boolean(), "pending": boolean()}, "enabled", "pending"),
		"Settings": obj(map[string]any{
			"time_zone": str(), "questions_enabled": boolean(), "reply_tone": str(), "ai_translation_enabled": boolean(), "ai_summary_enabled": boolean(),
			"syndication_enabled": boolean(), "reminder_consent": str(), "deliveries": arr(enum("email", "webhook")), "invite_delivery": enum("email", "webhook"),
			"reminder_delivery": enum("email", "webhook"), "webhook_url": str(), "support_url": str(), "sender_address": str(),
			"invite_delay_days": integer(), "send_window": str(), "daily_limit": integer(), "reminder_after_days": integer(),
			"publishing_method": enum("automatic", "hybrid", "manual"), "has_webhook_secret": boolean(),
		}, "time_zone", "questions_enabled", "publishing_method", "invite_delay_days", "has_webhook_secret"),
		"Term":  obj(map[string]any{"id": str(), "pattern": str(), "label": str(), "created_at": str()}, "id", "pattern"),
		"Terms": obj(map[string]any{"items": arr(ref("Term")), "limit": integer()}, "items", "limit"),
		"Aspect": obj(map[string]any{"key": str(), "kind": enum("rating", "scale"), "required": boolean(), "scale": integer(),
			"label": byLang(str()), "steps": byLang(arr(str()))}, "key", "kind", "scale", "label"),
		"AspectTemplate": obj(map[string]any{"key": str(), "name": str(), "own": boolean(), "default": boolean(), "retired": boolean(),
			"aspects": arr(ref("Aspect")), "products": arr(anyv()), "reviews": integer()}, "key", "name", "own", "default", "retired", "aspects"),
		"Reasons": byLang(byLang(arr(codeLabel))),
		"IngestCheck": obj(map[string]any{"accepted": boolean(), "records": integer(), "error": nullable(str())}, "accepted", "records"),
		"IngestStats": obj(map[string]any{"channel": str(), "orders_received": integer(),
			"daily":  arr(obj(map[string]any{"date": str(), "requests": integer(), "refused": integer()}, "date", "requests", "refused")),
			"recent": arr(obj(map[string]any{"at": str(), "channel": str(), "kind": str(), "status": integer(), "error": str(), "records": integer(), "actor": str()}, "at", "kind", "status")),
		}, "orders_received", "daily", "recent"),
		"QALedger": obj(map[string]any{"event": str(), "from_state": str(), "to_state": str(), "reason": str(), "actor_type": str(), "actor_name": str(), "at": str()},
			"event", "to_state", "at"),
		"AdminQuestion": obj(map[string]any{
			"id": str(), "channel": str(), "market": str(), "scope": str(), "product": str(), "variant_key": str(), "group_key": str(), "language": str(),
			"asker_name": str(), "name_hidden": boolean(), "has_email": boolean(), "signed_in": boolean(), "body": str(), "state": str(),
			"flag_open": boolean(), "answers_waiting": integer(), "created_at": str(), "published_at": nullable(str()),
			"checks": arr(anyObj()), "answers": arr(anyObj()), "notice": nullable(anyObj()), "available_events": arr(str()), "ledger": arr(ref("QALedger")),
		}, "id", "channel", "state", "body", "answers", "available_events", "ledger"),
	}
}
