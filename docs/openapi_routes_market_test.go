package docs_test

// marketOps describes the product ingest endpoint and the marketplace review
// endpoints (docs/catalogue.md, docs/marketplace.md).
func marketOps() []op {
	const tag = "marketplace"
	product := obj(map[string]any{"variant_key": strMax(255), "group_key": strMax(255), "catalog_id": strMax(255), "name": strMax(500),
		"url": strMax(2048), "image_url": strMax(2048), "brand": strMax(500), "gtin": strMax(14), "mpn": strMax(128)}, "variant_key")
	products := obj(map[string]any{"products": map[string]any{"type": "array", "items": product, "minItems": 1, "maxItems": 100}}, "products")
	ingestErr := cat(errIngest, errBody, errFields, []string{"403 refused / tenant_inactive"})
	admin := func(method, path, summary string, query []param, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errPanel, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: panelOnly, query: query, body: b, ok: []answer{ok}, errs: e}
	}
	dt := map[string]any{"type": "string", "format": "date-time"}
	platform := obj(map[string]any{"code": str(), "name": str(), "domains": arr(str()), "columns": map[string]any{"type": "object", "additionalProperties": str()}},
		"code", "name", "domains", "columns")
	column := obj(map[string]any{"name": str(), "required": boolean()}, "name", "required")
	route := obj(map[string]any{"code": enum("file", "feed"), "formats": arr(str()), "max_bytes": integer(), "max_rows": integer(),
		"columns": arr(column), "scopes": arr(str())}, "code", "formats", "columns")
	unmatched := obj(map[string]any{"barcode": str(), "reason": enum("no_product", "no_barcode", "ambiguous"), "reviews": integer()}, "barcode", "reason", "reviews")
	skips := map[string]any{"type": "object", "additionalProperties": integer()}
	counts := obj(map[string]any{"rows": integer(), "eligible": integer(), "imported": integer(), "updated": integer(), "unchanged": integer(),
		"removed": integer(), "held": integer(), "unmatched": integer(), "skipped": integer(), "photos_missing": integer()}, "rows", "imported", "updated", "removed", "held")
	rep := obj(map[string]any{"matched_barcodes": integer(), "unmatched_barcodes": integer(), "unmatched": arr(unmatched), "skips": skips,
		"photos_missing": integer(), "held_products": arr(obj(map[string]any{"variant_key": str(), "product_name": str(), "reviews": integer()}, "variant_key", "reviews"))},
		"matched_barcodes", "unmatched_barcodes", "unmatched", "skips", "photos_missing", "held_products")
	run := obj(map[string]any{"id": str(), "source": str(), "trigger": enum("file", "feed", "schedule"), "scope": enum("new", "full"),
		"confirm_removals": boolean(), "state": enum("queued", "running", "succeeded", "held", "failed"), "error": str(), "file_name": str(),
		"counts": counts, "report": rep, "created_at": dt, "started_at": nullable(dt), "finished_at": nullable(dt)},
		"id", "source", "state", "error", "counts", "report", "created_at")
	attention := nullable(obj(map[string]any{"kind": enum("held", "failed"), "count": integer(), "error": str(), "at": dt}, "kind", "count", "error", "at"))
	source := obj(map[string]any{"id": str(), "platform": enum("trendyol", "hepsiburada", "n11", "amazon", "ciceksepeti"), "platform_name": str(),
		"channel": str(), "seller_id": str(), "route": enum("file", "feed"), "feed_url": str(), "has_secret": boolean(), "enabled": boolean(),
		"last_run": nullable(run), "runs": integer(), "attention": attention, "created_at": dt},
		"id", "platform", "channel", "seller_id", "route", "feed_url", "has_secret", "enabled", "last_run", "runs", "attention")
	sourceBody := obj(map[string]any{"platform": enum("trendyol", "hepsiburada", "n11", "amazon", "ciceksepeti"), "channel": str(), "seller_id": strMax(100),
		"route": enum("file", "feed"), "feed_url": strMax(2048), "secret": strMax(1024), "enabled": boolean()})
	runBody := &body{ctype: "multipart/form-data", schema: obj(map[string]any{
		"file":             map[string]any{"type": "string", "contentMediaType": "application/octet-stream", "description": "CSV, xlsx or JSON, up to 20 MB and 100000 rows (file route)"},
		"scope":            enum("new", "full"),
		"confirm_removals": enum("true", "false")})}
	check := obj(map[string]any{"rows": integer(), "eligible": integer(), "would_import": integer(), "would_update": integer(), "would_remove": integer(),
		"matched_barcodes": integer(), "unmatched_barcodes": integer(), "unmatched": arr(unmatched), "skips": skips},
		"rows", "eligible", "would_import", "would_update", "would_remove", "matched_barcodes", "unmatched_barcodes", "unmatched", "skips")
	imported := obj(map[string]any{"id": str(), "platform": str(), "source_name": str(), "source": str(), "channel": str(), "seller_id": str(),
		"source_review_id": str(), "barcode": str(), "variant_key": str(), "product_name": str(), "rating": integer(), "title": str(), "body": str(),
		"author": str(), "state": str(), "origin_url": str(), "written_at": dt, "removed_by_request": boolean()}, "id", "platform", "source_review_id", "state")
	src := "/admin/v1/marketplace/sources/{id:mks_[0-9]+}"
	feed := obj(map[string]any{"id": str(), "url": str(), "format": enum("google_xml", "google_tsv", "json"), "interval_minutes": integer(),
		"enabled": boolean(), "next_run_at": dt, "last_run_at": nullable(dt), "last_error": str(), "last_products": integer(), "last_pages": integer(),
		"created_at": dt}, "id", "url", "format", "interval_minutes", "enabled", "next_run_at", "last_run_at", "last_error", "last_products", "last_pages")
	fileErrs := []string{"400 invalid / file_required", "400 invalid / column_missing: <column>", "400 invalid / file_unreadable",
		"400 invalid / unsupported_format", "400 invalid / too_large", "400 invalid / too_many_rows", "400 invalid / scope", "400 invalid / confirm_removals"}
	return []op{
		{method: "POST", path: "/v1/ingest/products", tag: "ingest", summary: "Receive one product or a batch of up to 100 for the catalogue (all or none saved)", auth: ingestAuth,
			body: json(map[string]any{"oneOf": []any{product, products}}),
			ok:   []answer{okJSON(200, "Accepted.", obj(map[string]any{"accepted": integer()}, "accepted"))},
			errs: ingestErr},
		admin("GET", "/admin/v1/marketplace/sources", "Marketplace connections with the platforms (their export column names) and routes (change-settings)", nil, nil,
			okJSON(200, "items, platforms, routes.", obj(map[string]any{"items": arr(source), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer(),
				"platforms": arr(platform), "routes": arr(route)}, "items", "platforms", "routes"))),
		admin("POST", "/admin/v1/marketplace/sources", "Create a marketplace connection", nil, json(sourceBody), okJSON(201, "The connection.", source),
			"400 invalid / platform_required", "400 invalid / platform", "400 invalid / channel_required", "400 invalid / channel", "400 invalid / seller_id_required",
			"400 invalid / seller_id", "400 invalid / route_required", "400 invalid / route", "400 invalid / feed_url_required", "400 invalid / feed_url_not_https",
			"400 invalid / feed_url_not_applicable", "400 invalid / url_invalid", "400 invalid / secret", "409 source_exists"),
		admin("GET", src, "One marketplace connection", nil, nil, okJSON(200, "The connection.", source), "404 not_found"),
		admin("PATCH", src, "Change enabled, feed_url or secret", nil, json(sourceBody), okJSON(200, "The connection.", source), "404 not_found",
			"400 invalid / seller_id_locked", "400 invalid / platform", "400 invalid / channel", "400 invalid / route", "400 invalid / feed_url_required",
			"400 invalid / feed_url_not_https", "400 invalid / feed_url_not_applicable", "400 invalid / url_invalid", "400 invalid / secret"),
		admin("DELETE", src, "Remove a marketplace connection", nil, nil, noContent("Removed."), "404 not_found", "409 source_has_reviews"),
		admin("POST", src+"/runs", "Start a read: a file (file route) or the feed (feed route, scope new or full); confirm_removals applies held removals", nil, runBody,
			okJSON(202, "The queued run.", run), cat(errNotFnd, fileErrs, []string{"409 run_in_progress", "409 source_inactive"})...),
		admin("GET", src+"/runs", "Recent runs with counts and reports", nil, nil, okJSON(200, "Runs, newest first.", obj(map[string]any{"items": arr(run)}, "items")), "404 not_found"),
		admin("POST", src+"/check", "Dry run of a file or the feed; nothing is written", nil, runBody, okJSON(200, "What a run would do.", check),
			cat(errNotFnd, fileErrs, []string{"400 platform_refused / <reason>"})...),
		admin("GET", "/admin/v1/marketplace/imported-reviews", "Imported reviews (handle-personal-data-requests); logged as imported_reviews.listed",
			append([]param{q("platform", "Marketplace code.", enum("trendyol", "hepsiburada", "n11", "amazon", "ciceksepeti"))}, pPage, pPageSize, pQ), nil,
			listAnswer("Imported reviews, newest first.", imported), "400 invalid / platform", "400 invalid / page", "400 invalid / page_size", "400 invalid / q"),
		admin("POST", "/admin/v1/marketplace/removals", "Remove up to 100 imported reviews on request (handle-personal-data-requests); recorded as a deletion request",
			nil, json(obj(map[string]any{"reviews": map[string]any{"type": "array", "items": str(), "minItems": 1, "maxItems": 100}, "note": strMax(1000)}, "reviews")),
			okJSON(201, "The removal record.", obj(map[string]any{"id": str(), "reviews": arr(str()), "media_purged": integer(), "state": enum("completed"), "created_at": dt},
				"id", "reviews", "media_purged", "state")), "400 invalid / reviews", "400 invalid / note"),
		admin("GET", "/admin/v1/product-feeds", "Product feeds of the catalogue, read on a schedule (change-settings)", nil, nil,
			okJSON(200, "Feeds and the catalogue size.", obj(map[string]any{"items": arr(feed), "products": integer()}, "items", "products"))),
		admin("POST", "/admin/v1/product-feeds", "Add a product feed (Google Merchant XML or TSV, or JSON)", nil,
			json(obj(map[string]any{"url": strMax(2048), "format": enum("google_xml", "google_tsv", "json"),
				"interval_minutes": map[string]any{"type": "integer", "minimum": 60, "maximum": 10080}}, "url", "format")),
			okJSON(201, "The feed, due at once.", feed), "400 invalid / url_invalid", "400 invalid / format", "400 invalid / interval_minutes", "409 feed_exists"),
		admin("DELETE", "/admin/v1/product-feeds/{id:pf_[0-9]+}", "Remove a product feed (its products stay)", nil, nil, noContent("Removed."), "404 not_found"),
	}
}
