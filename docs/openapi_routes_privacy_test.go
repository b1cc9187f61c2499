package docs_test

// privacyOps describes the personal-data requests, the access log, the audit log
// and the audit file.
func privacyOps() []op {
	const tag = "admin"
	dt := map[string]any{"type": "string", "format": "date-time"}
	a := func(method, path, summary string, query []param, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: adminAuth, query: query, body: b, ok: []answer{ok}, errs: e}
	}
	p := func(o op) op { o.auth = panelOnly; return o }
	file := func(desc string) answer {
		return answer{status: 200, desc: desc + " Content-Type text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet or application/json.", ctype: "application/octet-stream"}
	}
	row := obj(map[string]any{"id": str(), "kind": enum("access", "erasure"), "state": enum("received", "completed", "refused"),
		"received_at": dt, "completed_at": nullable(dt), "affected_reviews": integer(), "purged_media": integer(), "can_copy": boolean(),
		"identifier_kind": enum("email", "phone"), "identifier": str()},
		"id", "kind", "state", "received_at", "completed_at", "affected_reviews", "purged_media", "can_copy")
	detail := obj(map[string]any{"id": str(), "kind": enum("access", "erasure"), "state": enum("received", "completed", "refused"),
		"received_at": dt, "completed_at": nullable(dt), "affected_reviews": integer(), "purged_media": integer(), "can_copy": boolean(),
		"identifier_kind": enum("email", "phone"), "identifier": str(), "note": str(), "handler": str(), "reason": str(),
		"preview": obj(map[string]any{"orders": integer(), "reviews": integer(), "questions": integer(), "answers": integer(),
			"media": integer(), "opt_outs": integer()})},
		"id", "kind", "state", "received_at", "completed_at", "affected_reviews", "purged_media", "can_copy")
	copyAnswer := obj(map[string]any{"id": str(), "kind": enum("access"), "state": enum("completed"), "received_at": dt,
		"completed_at": nullable(dt), "affected_reviews": integer(), "purged_media": integer(),
		"export": obj(map[string]any{"orders": arr(anyObj()), "reviews": arr(anyObj()), "questions": arr(anyObj()),
			"answers": arr(anyObj()), "opt_outs": arr(anyObj())}, "orders", "reviews", "questions", "answers", "opt_outs"),
		"export_details": obj(map[string]any{"identifier_kind": enum("email", "phone"), "generated_at": dt,
			"counts": map[string]any{"type": "object", "additionalProperties": integer()}}, "identifier_kind", "generated_at", "counts")},
		"id", "kind", "state", "received_at", "completed_at", "affected_reviews", "purged_media", "export", "export_details")
	access := obj(map[string]any{"id": integer(), "action": str(), "actor_id": str(), "actor_role": str(),
		"via": enum("session", "api_key", "support", "console"), "target_type": str(), "target_id": str(), "count": integer(), "at": dt},
		"action", "actor_id", "actor_role", "via", "target_type", "target_id", "count", "at")
	activity := obj(map[string]any{"id": integer(), "at": dt, "action": str(), "via": str(), "actor_id": str(), "actor_name": str(),
		"target_type": str(), "target_id": str(), "changes": anyObj(), "request_id": str(), "ip_hash": str(), "user_agent": str()},
		"id", "at", "action", "via", "actor_id", "actor_name", "target_type", "target_id", "changes", "request_id", "ip_hash", "user_agent")
	auditFile := obj(map[string]any{"id": str(), "channel": str(), "market": str(), "start": dt, "end": dt, "created_at": dt},
		"id", "channel", "market", "start", "end", "created_at")
	dsr := "/admin/v1/subject-requests/{id:dsr_[0-9]+}"
	list := []param{pPage, pPageSize, pQ, q("sort", "newest (default) or oldest.", enum("newest", "oldest"))}
	auditQuery := append([]param{q("action", "Action name.", str()), q("actor", "Actor id or name.", str()),
		q("via", "How the actor came: session, api_key, console, system, ...", str()), q("target_type", "Target type.", str()),
		q("target_id", "Target id.", str()), q("from", "RFC 3339; entries at or after.", dt), q("to", "RFC 3339; entries before.", dt),
		q("sessions", "1: list panel sign-ins too.", enum("0", "1"))}, list...)
	return []op{
		p(a("GET", "/admin/v1/subject-requests", "Personal-data requests (panel session, handle-personal-data-requests); logged as subject_requests.listed",
			append([]param{q("kind", "access or erasure.", enum("access", "erasure")), q("state", "received, completed or refused.", enum("received", "completed", "refused"))}, list...),
			nil, listAnswer("Request rows.", row), "400 invalid / kind", "400 invalid / state")),
		p(a("POST", "/admin/v1/subject-requests", "Open an access or erasure request by e-mail address or phone number", nil,
			json(obj(map[string]any{"kind": enum("access", "erasure"), "identifier": strMax(254), "note": strMax(1000)}, "kind", "identifier")),
			okJSON(201, "The request, state received.", detail), "400 invalid / kind", "400 invalid / identifier_required", "400 invalid / identifier", "400 invalid / note")),
		p(a("GET", dsr, "A request's record; preview=1 adds what is held about the person; format downloads it (subject_request.downloaded)",
			[]param{q("format", "csv, xlsx or json downloads the record.", enum("csv", "xlsx", "json")), q("preview", "1: count what is held (subject_request.previewed).", enum("0", "1"))},
			nil, okJSON(200, "The record (or a file with format).", detail), "404 not_found", "400 invalid / format", "400 invalid / preview")),
		p(a("POST", dsr+"/complete", "Complete a request: an erasure is carried out first; an access request becomes copyable", nil,
			nil, okJSON(200, "The request, state completed.", detail), "404 not_found", "409 request_closed")),
		p(a("POST", dsr+"/refuse", "Refuse a request with a reason", nil, json(obj(map[string]any{"reason": strMax(1000)}, "reason")),
			okJSON(200, "The request, state refused.", detail), "404 not_found", "409 request_closed", "400 invalid / reason_required", "400 invalid / reason")),
		p(a("POST", dsr+"/copy", "Copy of a completed access request (subject_request.copied)", nil,
			json(obj(map[string]any{"identifier": strMax(254), "format": enum("csv", "xlsx", "json")}, "identifier")),
			okJSON(200, "The row with export and export_details (or a file with format).", copyAnswer),
			"404 not_found", "400 invalid / identifier_required", "400 identifier_mismatch", "400 invalid / format", "409 not_copyable")),
		a("GET", "/admin/v1/access-log", "Personal-data access log (export)",
			append([]param{q("action", "One of the access-log actions.", str()), q("actor", "Actor id.", str()),
				q("via", "session, api_key, support or console.", enum("session", "api_key", "support", "console"))}, list...),
			nil, listAnswer("Access-log rows.", access), "400 invalid / action", "400 invalid / via"),
		a("GET", "/admin/v1/audit-log", "Activity history (export); sign-ins only with sessions=1", auditQuery, nil,
			listAnswer("Entries with request ID, keyed IP hash and browser.", activity),
			"400 invalid / from", "400 invalid / to", "400 invalid / sessions", "400 invalid / action", "400 invalid / actor"),
		a("POST", "/admin/v1/audit-log/export", "Export up to 10,000 activity entries read on the server (audit_log.downloaded)", nil,
			json(obj(map[string]any{"format": enum("csv", "xlsx", "json"), "title": strMax(200), "filters": anyObj(),
				"columns": arr(enum("id", "at", "action", "via", "actor_id", "actor_name", "target_type", "target_id", "request_id", "ip_hash", "user_agent", "changes")),
				"labels":  map[string]any{"type": "object", "additionalProperties": strMax(100)}, "changes": boolean(),
				"rows": map[string]any{"type": "array", "maxItems": 10000, "items": integer()}})),
			file("The file; X-Service-Fingerprint is its SHA-256."),
			"400 invalid / rows", "400 invalid / rows_over_limit", "400 invalid / format", "400 invalid / title", "400 invalid / filters",
			"400 invalid / columns", "400 invalid / labels", "400 invalid / changes"),
		a("POST", "/admin/v1/audit-file", "Store an audit report for a market, a channel or every channel and a period (export)", nil,
			json(obj(map[string]any{"market": str(), "channel": str(), "start": str(), "end": str()}, "start", "end")),
			okJSON(201, "The stored report.", auditFile),
			"400 invalid / market", "400 invalid / channel", "400 invalid / channel_market_mismatch", "400 invalid / start", "400 invalid / end"),
		a("GET", "/admin/v1/audit-file/{id:af_[0-9]+}", "Download an audit report (json default, csv, xlsx); X-Service-Fingerprint is the verification code",
			[]param{q("format", "json (default), csv or xlsx.", enum("json", "csv", "xlsx"))}, nil,
			file("How every review of the period was collected, checked, moderated and shown."), "404 not_found", "400 invalid / format"),
	}
}
