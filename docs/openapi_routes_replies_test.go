package docs_test

// repliesOps describes the seller responses and resolution notes, the reply draft
// of v2, the invitation templates and the whole-brand archive.
func repliesOps() []op {
	const tag = "admin"
	dt := map[string]any{"type": "string", "format": "date-time"}
	a := func(auth []string, method, path, summary string, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		if len(auth) == 1 {
			e = cat(e, errPanel)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: auth, body: b, ok: []answer{ok}, errs: e}
	}
	note := json(obj(map[string]any{"body": strMax(2000)}, "body"))
	noteErrs := []string{"400 invalid / body_required", "400 invalid / body_too_long", "404 not_found"}
	textErrs := func(code string) []string {
		return []string{"409 " + code + " / text_steering", "409 " + code + " / text_personal_data", "409 " + code + " / text_profanity"}
	}
	response := obj(map[string]any{"body": str(), "published_at": dt,
		"notice": enum("", "sent", "opted_out", "no_address", "mail_disabled", "failed: <reason>")}, "body", "published_at")
	resolution := obj(map[string]any{"body": str(), "created_at": dt}, "body", "created_at")
	typ := enum("invitation", "reminder", "experience")
	lang := enum("tr", "en")
	template := obj(map[string]any{"id": str(), "type": typ, "language": lang, "market": str(), "channel": str(), "subject": str(),
		"html": str(), "incentive": boolean(), "created_at": dt, "updated_at": dt}, "id", "type", "language", "market", "channel", "subject", "html")
	templateBody := obj(map[string]any{"id": str(), "type": typ, "language": lang, "market": strMax(2), "channel": str(),
		"subject": strMax(200), "html": strMax(102400), "incentive": boolean()})
	templateErrs := []string{"400 invalid / type", "400 invalid / language", "400 invalid / market", "400 invalid / channel",
		"400 invalid / channel_market_mismatch", "400 invalid / subject_required", "400 invalid / subject_too_long",
		"400 invalid / html_required", "400 invalid / html_too_long", "400 invalid / cta_required", "400 invalid / image_tracking",
		"400 invalid / style_import", "400 invalid / placeholder_unknown", "400 invalid / incentive_conditional"}
	export := obj(map[string]any{"id": str(), "state": enum("building", "ready", "failed"), "error": str(), "size": integer(),
		"sha256": str(), "counts": map[string]any{"type": "object", "additionalProperties": integer()}, "created_at": dt,
		"ready_at": nullable(dt), "expires_at": dt, "download_url": str()}, "id", "state", "created_at", "expires_at")
	rv := "/admin/v1/reviews/{id}"
	return []op{
		a(adminAuth, "POST", rv+"/seller-response", "Publish the brand's reply to a published review (moderate); the reviewer is e-mailed",
			note, okJSON(201, "The reply.", response), cat(noteErrs, textErrs("seller_response_refused"),
				[]string{"409 seller_response_refused / seller_response_open", "409 seller_response_refused / parent_review_not_published"})...),
		a(adminAuth, "PATCH", rv+"/seller-response", "Change the reply's text (moderate)", note, okJSON(200, "The reply.", response),
			cat(noteErrs, textErrs("seller_response_refused"), []string{"409 seller_response_refused / parent_review_not_published"})...),
		a(adminAuth, "DELETE", rv+"/seller-response", "Withdraw the reply (moderate)", nil, noContent("Withdrawn."), "404 not_found"),
		{method: "POST", path: rv + "/seller-response/draft", tag: tag, summary: "Reply draft in the review's language and a tone (default reply_tone); nothing is published (moderate)",
			auth: adminAuth, body: json(obj(map[string]any{"tone": enum("formal", "warm")})),
			ok: []answer{okJSON(200, "The draft.", obj(map[string]any{"body": str(), "tone": enum("formal", "warm"),
				"generated_by": enum("builtin", "model")}, "body", "tone", "generated_by"))},
			errs: cat(errAdmin, errNotFnd, []string{"400 invalid / tone", "409 seller_response_refused / ai_package_off",
				"409 seller_response_refused / ai_draft_unusable"})},
		a(adminAuth, "POST", rv+"/resolution", "Set the resolution note of a published or temporarily hidden review (moderate)", note,
			okJSON(201, "The note.", resolution), cat(noteErrs, textErrs("resolution_refused"), []string{"409 resolution_refused / review_not_live"})...),
		a(adminAuth, "DELETE", rv+"/resolution", "Withdraw the resolution note (moderate)", nil, noContent("Withdrawn."), "404 not_found"),
		a(adminAuth, "PUT", rv+"/featured", "Pin a published review to the top of its product's list, up to 3 per product list (moderate); the aggregate is unchanged",
			nil, okJSON(200, "The review is featured.", obj(map[string]any{"id": str(), "featured": boolean()}, "id", "featured")),
			"404 not_found", "409 pin_limit / pin_limit", "409 refused / parent_review_not_published"),
		a(adminAuth, "DELETE", rv+"/featured", "Unpin a review (moderate)", nil, noContent("Unpinned."), "404 not_found"),
		a(adminAuth, "GET", "/admin/v1/invite-templates", "The brand's invitation templates and the placeholders (write)", nil,
			okJSON(200, "items and placeholders.", obj(map[string]any{"items": arr(template), "placeholders": arr(str())}, "items", "placeholders"))),
		also(a(adminAuth, "POST", "/admin/v1/invite-templates", "Create a template, or change the one named by id (write)", json(templateBody),
			okJSON(201, "The new template.", template), cat(templateErrs, []string{"400 invalid / template_scope_taken", "404 not_found"})...),
			okJSON(200, "The changed template.", template)),
		a(adminAuth, "POST", "/admin/v1/invite-templates/preview", "Render a template (given, saved by id, or built-in) with sample data (write)",
			json(templateBody), okJSON(200, "The e-mail.", obj(map[string]any{"subject": str(), "html": str(), "text": str(),
				"source": enum("brand", "default")}, "subject", "html", "text", "source")), cat(templateErrs, errNotFnd)...),
		a(adminAuth, "DELETE", "/admin/v1/invite-templates/{id:tpl_[0-9]+}", "Remove a template (write)", nil, noContent("Removed."), "404 not_found"),
		a(panelOnly, "GET", "/admin/v1/brand-export", "Whole-brand archives not yet expired (panel session, export); also for a frozen or closed brand", nil,
			okJSON(200, "Archives, newest first.", obj(map[string]any{"items": arr(export)}, "items"))),
		a(panelOnly, "POST", "/admin/v1/brand-export", "Start building a whole-brand archive (panel session, export)", nil,
			okJSON(202, "The archive being built.", export)),
		a(panelOnly, "GET", "/admin/v1/brand-export/{id:bx_[0-9]+}/download", "Download a ready archive (zip; Range supported)", nil,
			okType(200, "The zip; X-Service-Fingerprint is its SHA-256.", "application/zip"), "404 not_found", "404 not_found / export_not_ready"),
	}
}
