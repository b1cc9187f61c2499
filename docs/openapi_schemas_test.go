package docs_test

// adminSchemas are the components of the management API's answers.
func adminSchemas() map[string]any {
	codeLabel := obj(map[string]any{"code": str(), "label": str()}, "code", "label")
	byLang := func(s map[string]any) map[string]any {
		return map[string]any{"type": "object", "additionalProperties": s}
	}
	limits := obj(map[string]any{"review_window_days_min": integer(), "review_window_days_max": integer(), "sort_options": arr(str()), "verification_locked": boolean()},
		"review_window_days_min", "review_window_days_max", "sort_options", "verification_locked")
	statement := obj(map[string]any{"channel": str(), "market": str(), "language": str(), "brand": str(), "title": str(), "policy_version": str(),
		"publishing_method": str(), "verification_required": boolean(), "review_window_days": integer(),
		"sort":             obj(map[string]any{"options": arr(str()), "default": str(), "locked": boolean()}, "options", "default", "locked"),
		"imported_reviews": boolean(), "imported_label": str(), "syndicated_reviews": boolean(), "syndicated_label": str(),
		"sections": arr(obj(map[string]any{"heading": str(), "text": str()}, "heading", "text")), "text": str(), "fingerprint": str(),
	}, "channel", "market", "language", "title", "sections", "fingerprint")
	return map[string]any{
		"Policy": obj(map[string]any{"id": str(), "market": str(), "channel": str(), "own": boolean(), "in_force": boolean(), "scheduled": boolean(),
			"version": str(), "verification_required": boolean(), "review_window_days": integer(), "allowed_sort_options": arr(str()),
			"default_sort_option": str(), "sort_locked": boolean(), "method_statement_required": boolean(), "source_label_required": boolean(),
			"streams_together": boolean(), "resolution_inline": boolean(), "valid_from": nullable(str()), "created_by": str(), "limits": limits,
		}, "id", "market", "own", "in_force", "version", "verification_required", "review_window_days", "allowed_sort_options", "default_sort_option", "limits"),
		"MethodStatement": obj(map[string]any{"channel": str(), "channel_label": str(), "market": str(), "language": str(),
			"state": str(), "external_url": str(), "hosted_url": str(), "effective_url": str(), "current_fingerprint": str(),
			"confirmed": boolean(), "confirmed_at": nullable(str()), "statement": statement,
		}, "channel", "market", "language", "state", "hosted_url", "effective_url", "current_fingerprint", "confirmed", "statement"),
		"OrderSource": obj(map[string]any{"id": str(), "platform": enum("shopify", "woocommerce", "magento"), "channel": str(), "base_url": str(),
			"backfill_days": integer(), "interval_minutes": integer(), "enabled": boolean(), "has_credentials": boolean(), "channel_active": boolean(),
			"last_run_at": nullable(str()), "last_error": nullable(str()), "last_report": nullable(anyObj()), "next_run_at": nullable(str()),
			"failures": integer(), "created_at": str(), "updated_at": str(),
		}, "id", "platform", "channel", "base_url", "enabled", "has_credentials", "failures", "created_at"),
		"OrderSourceFields": obj(map[string]any{"platform": enum("shopify", "woocommerce", "magento"), "channel": str(), "base_url": str(),
			"client_id": str(), "client_secret": str(), "access_token": str(), "consumer_key": str(), "consumer_secret": str(),
			"username": str(), "password": str(), "remote_channel": anyv(), "backfill_days": integer(), "interval_minutes": integer(), "enabled": boolean()}),
		"OrderSourceCheck": obj(map[string]any{"orders": integer(), "complete": boolean(), "skipped": map[string]any{"type": "object", "additionalProperties": integer()},
			"sample": arr(obj(map[string]any{"external_id": str(), "placed_at": str(), "payment_state": str(), "lines": integer(), "states": arr(str()), "has_email": boolean()},
				"external_id", "lines"))}, "orders", "complete", "skipped", "sample"),
		"Diagnostics": obj(map[string]any{
			"items": arr(obj(map[string]any{"connection": str(), "platform": str(), "channel": str(), "trigger": str(), "started_at": str(), "finished_at": str(),
				"outcome": enum("ok", "partial", "failed"), "error": nullable(str()), "orders": integer(), "report": nullable(anyObj())},
				"connection", "platform", "channel", "started_at", "outcome", "orders")),
			"total": integer(), "page": integer(), "pages": integer(), "page_size": integer(),
			"connections": arr(obj(map[string]any{"id": str(), "platform": str(), "channel": str(), "enabled": boolean(), "channel_active": boolean(),
				"last_run_at": nullable(str()), "last_error": nullable(str()), "failures": integer(), "next_run_at": nullable(str())}, "id", "platform", "channel", "enabled", "failures")),
		}, "items", "total", "page", "pages", "page_size", "connections"),
		"AdminAnswer": obj(map[string]any{"id": str(), "question": str(), "kind": enum("brand", "buyer"), "author_name": str(), "name_hidden": boolean(),
			"verified": boolean(), "body": str(), "language": str(), "state": str(), "flag_open": boolean(), "checks": arr(anyObj()),
			"notice": nullable(str()), "notice_at": nullable(str()), "order_reference": nullable(str()), "available_events": arr(str()),
			"created_at": str(), "published_at": nullable(str())}, "id", "question", "kind", "body", "state", "available_events", "created_at"),
		"User": obj(map[string]any{"id": integer(), "username": str(), "email": str(), "role": enum("owner", "manager", "moderator", "viewer"),
			"second_step": boolean()}, "id", "username", "role"),
		"Session":    obj(map[string]any{"authenticated": boolean(), "step": enum("second_step"), "csrf_token": str(), "user": ref("User")}, "authenticated"),
		"SecondStep": obj(map[string]any{"enabled": boolean(), "pending": boolean()}, "enabled", "pending"),
		"Settings": obj(map[string]any{
			"time_zone": str(), "questions_enabled": boolean(), "reply_tone": str(), "ai_translation_enabled": boolean(), "ai_summary_enabled": boolean(),
			"syndication_enabled": boolean(), "reminder_consent": str(), "deliveries": arr(enum("email", "webhook", "whatsapp")), "invite_delivery": enum("email", "webhook", "whatsapp"),
			"reminder_delivery": enum("email", "webhook", "whatsapp"), "whatsapp_fallback_email": boolean(), "webhook_url": str(), "support_url": str(), "sender_address": str(),
			"invite_delay_days": integer(), "send_window": str(), "daily_limit": integer(), "reminder_after_days": integer(),
			"publishing_method": enum("automatic", "hybrid", "manual"), "has_webhook_secret": boolean(),
			"warning_limit": map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
		}, "time_zone", "questions_enabled", "publishing_method", "invite_delay_days", "has_webhook_secret"),
		"Term":  obj(map[string]any{"id": str(), "pattern": str(), "label": str(), "created_at": str()}, "id", "pattern"),
		"Terms": obj(map[string]any{"items": arr(ref("Term")), "limit": integer()}, "items", "limit"),
		"Aspect": obj(map[string]any{"key": str(), "kind": enum("rating", "scale"), "required": boolean(), "scale": integer(),
			"label": byLang(str()), "steps": byLang(arr(str()))}, "key", "kind", "scale", "label"),
		"AspectTemplate": obj(map[string]any{"key": str(), "name": str(), "own": boolean(), "default": boolean(), "retired": boolean(),
			"aspects": arr(ref("Aspect")), "products": arr(anyv()), "reviews": integer()}, "key", "name", "own", "default", "retired", "aspects"),
		"Reasons":     byLang(byLang(arr(codeLabel))),
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
			"checks": arr(anyObj()), "answers": arr(ref("AdminAnswer")), "notice": nullable(anyObj()), "available_events": arr(str()), "ledger": arr(ref("QALedger")),
		}, "id", "channel", "state", "body", "answers", "available_events", "ledger"),
	}
}
