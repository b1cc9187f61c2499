package docs_test

// aiOps are the routes of the AI package (CONTRACT "AI package"); they exist only
// while ai.provider is not off.
func aiOps() []op {
	const tag = "admin"
	feature := obj(map[string]any{"available": boolean(), "enabled": boolean()}, "available", "enabled")
	features := []string{"summaries", "topics", "translations", "reply_drafts", "review_checks"}
	fp := map[string]any{}
	for _, f := range features {
		fp[f] = feature
	}
	status := obj(map[string]any{"provider": enum("builtin", "openai"), "model": str(),
		"features":   obj(fp, features...),
		"usage":      obj(map[string]any{"requests_today": integer(), "daily_requests": integer()}, "requests_today", "daily_requests"),
		"queue":      obj(map[string]any{"waiting": integer(), "running": integer(), "failed": integer()}, "waiting", "running", "failed"),
		"last_error": nullable(str())}, "provider", "model", "features", "usage", "queue", "last_error")
	dt := map[string]any{"type": "string", "format": "date-time"}
	request := obj(map[string]any{"id": str(), "kind": enum("summary", "translation"),
		"state": enum("queued", "running", "done", "failed"), "error": str(), "created_at": dt, "updated_at": dt},
		"id", "kind", "state", "error", "created_at", "updated_at")
	requestBody := obj(map[string]any{"kind": enum("summary", "translation"), "product": str(), "scope": enum("variant", "group"),
		"review": str(), "language": enum("tr", "en")}, "kind")
	return []op{
		{method: "GET", path: "/admin/v1/ai", tag: tag, summary: "The AI package: provider, features, usage and queue (read; 404 while ai.provider is off)",
			auth: adminAuth, ok: []answer{okJSON(200, "Provider, features, usage, queue and the last model error.", status)}, errs: errAdmin},
		{method: "POST", path: "/admin/v1/ai/requests", tag: tag, summary: "Queue a summary or a translation (read)",
			auth: adminAuth, body: json(requestBody), ok: []answer{okJSON(202, "The queued request.", request)},
			errs: cat(errAdmin, errNotFnd, []string{"400 invalid / kind", "400 invalid / product", "400 invalid / scope",
				"400 invalid / review", "400 invalid / language"})},
		{method: "GET", path: "/admin/v1/ai/requests/{id:aireq_[0-9]+}", tag: tag, summary: "One AI request: state and error (read)",
			auth: adminAuth, ok: []answer{okJSON(200, "The request.", request)}, errs: cat(errAdmin, errNotFnd)},
	}
}
