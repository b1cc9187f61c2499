package docs_test

// Components of the document shared by several routes.
func components() map[string]any {
	media := obj(map[string]any{"id": str(), "kind": enum("image", "video"), "url": str(), "srcset": str(), "width": integer(), "height": integer(),
		"alt_text": str(), "poster_url": str()}, "id", "kind", "url")
	review := obj(map[string]any{
		"id": str(), "rating": map[string]any{"type": "integer", "minimum": 1, "maximum": 5}, "title": str(), "body": str(), "author": str(),
		"anonymous": boolean(), "language": str(), "published_at": str(), "verified": boolean(), "verification_method": str(),
		"helpful_count": integer(), "unhelpful_count": integer(), "aspects": arr(anyObj()), "aspect_scores": anyObj(), "aspect_template": str(),
		"media": arr(ref("Media")), "seller_response": anyObj(), "resolution": anyObj(),
		"origin": enum("own", "syndicated", "imported"), "origin_market": str(), "origin_label": str(), "origin_url": str(),
		"experience": enum("product", "process"), "translations": anyObj(),
		"incentivized": boolean(), "incentive_label": str(), // only for an incentivised review
		"featured": boolean(), "featured_label": str(), // only for a review the brand pinned
	}, "id", "rating", "title", "body", "author", "anonymous", "published_at", "verified", "helpful_count", "unhelpful_count", "media", "origin", "experience")
	list := obj(map[string]any{
		"reviews": arr(ref("Review")), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer(), "sort": str(),
		"shared": integer(), "ai_summary": map[string]any{"type": "null"}, "sorts": arr(obj(map[string]any{"code": str(), "label": str()}, "code", "label")),
		"aggregate": obj(map[string]any{"count": integer(), "average": map[string]any{"type": "number"}, "distribution": anyObj()}, "count", "average", "distribution"),
		"aspects":   arr(anyObj()), "topics": arr(anyObj()), "gallery": arr(anyObj()), "media_reviews": integer(),
		"style": enum("cards", "sidebar"), "theme": enum("warm", "trust", "editorial", "minimal", "soft", "bold", "natural", "night"),
		"applied": anyObj(), "core": anyObj(), "language": str(), "words": anyObj(), "report_reasons": arr(obj(map[string]any{"code": str(), "label": str()}, "code", "label")),
		"questions_enabled": boolean(), "privacy_url": str(), "limits": anyObj(), "time_zone": str(),
	}, "reviews", "total", "page", "pages", "page_size", "sort", "ai_summary", "aggregate", "core", "language", "questions_enabled", "style", "theme")
	answerRow := obj(map[string]any{"id": str(), "kind": enum("brand", "buyer"), "author": str(), "verified": boolean(), "body": str(), "published_at": str()},
		"id", "kind", "author", "body", "published_at")
	question := obj(map[string]any{"id": str(), "author": str(), "body": str(), "published_at": str(), "answers": arr(ref("Answer"))},
		"id", "author", "body", "published_at", "answers")
	adminRow := obj(map[string]any{
		"id": str(), "channel": str(), "market": str(), "language": str(), "state": str(), "experience": enum("product", "process"),
		"origin": enum("own", "syndicated", "imported"), "rating": integer(), "title": str(), "body": str(), "author": str(), "name_hidden": boolean(),
		"verified": boolean(), "incentivized": boolean(), "variant_key": str(), "group_key": str(), "product_name": str(), "aspects": anyObj(), "flag_open": boolean(),
		"reports_open": integer(), "media_count": integer(), "helpful_count": integer(), "unhelpful_count": integer(), "anonymized": boolean(),
		"source": nullable(anyObj()), "submitted_at": str(), "published_at": nullable(str()), "updated_at": str(),
	}, "id", "channel", "market", "state", "rating", "author", "product_name", "flag_open", "source")
	schemas := map[string]any{
		"Error": map[string]any{"type": "object", "required": []string{"error", "detail"}, "properties": map[string]any{
			"error":  map[string]any{"type": "string", "description": "Error code."},
			"detail": map[string]any{"type": "string", "description": "Detail code; may carry a value after a colon."}}},
		"Health": obj(map[string]any{"ok": boolean(), "version": str(), "commit": str(), "schema_version": integer()}, "ok", "version", "schema_version"),
		"OrderLine": obj(map[string]any{"line_reference": strMax(128), "variant_key": strMax(128), "group_key": strMax(128), "catalog_id": strMax(128),
			"title": strMax(300), "state": str(), "delivered_at": str(), "incentive": boolean()}, "line_reference", "variant_key"),
		"Media":      media,
		"Review":     review,
		"ReviewList": list,
		"Answer":     answerRow,
		"Question":   question,
		"Questions": obj(map[string]any{"questions": arr(ref("Question")), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer(),
			"limits": anyObj(), "language": str()}, "questions", "total", "page", "pages", "page_size", "language"),
		"Created":        obj(map[string]any{"id": str(), "state": str()}, "id"),
		"AdminReviewRow": adminRow,
		"AdminReviewDetail": map[string]any{"allOf": []any{ref("AdminReviewRow"), obj(map[string]any{
			"proof": anyObj(), "history": arr(obj(map[string]any{"event": str(), "from_state": str(), "to_state": str(), "reason": str(),
				"actor_type": str(), "actor_name": str(), "detail": anyObj(), "at": str()}, "event", "to_state", "at")),
			"checks":  arr(obj(map[string]any{"kind": str(), "outcome": str(), "open": boolean(), "at": str()}, "kind", "outcome")),
			"reports": arr(anyObj()), "available_events": arr(str()), "media": arr(anyObj()), "media_removal_reasons": arr(str()),
			"featured": boolean(), // only when pinned
		}, "proof", "history", "checks", "reports", "available_events", "media", "media_removal_reasons")}},
		"Whoami": obj(map[string]any{"id": str(), "name": str(), "role": str(), "via": enum("session", "api_key", "support", "console"),
			"permissions": arr(str())}, "id", "role", "via", "permissions"),
	}
	for k, v := range adminSchemas() {
		schemas[k] = v
	}
	return map[string]any{
		"schemas": schemas,
		"securitySchemes": map[string]any{
			"apiKey": map[string]any{"type": "apiKey", "in": "header", "name": "Authorization",
				"description": "Admin API key: `Authorization: Api-Key <key>`. Its permissions (read, moderate, export, write) decide the routes it may call."},
			"panelSession": map[string]any{"type": "apiKey", "in": "cookie", "name": "reviewd_session",
				"description": "Panel session cookie set by POST /admin/v1/session."},
			"csrf": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-CSRF",
				"description": "The session's CSRF token, required with the panel session cookie on unsafe methods."},
			"serverKey": map[string]any{"type": "http", "scheme": "bearer",
				"description": "Server key of a channel (`Authorization: Bearer <key>`): orders permission for ingest, ssr for server rendering and viewer lookups (with channel=)."},
			"siteKey": map[string]any{"type": "apiKey", "in": "query", "name": "key",
				"description": "Site key of a channel on read requests from a store page; the Origin (else Referer) domain must be verified."},
			"siteKeyHeader": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-Site-Key",
				"description": "Site key of a channel on write requests from a store page; the Origin (else Referer) domain must be verified."},
			"signature": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-Signature",
				"description": "hex(HMAC-SHA256(password, timestamp + '.' + body)) over the exact bytes sent."},
			"signatureSecret": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-Secret",
				"description": "Password ID of the signing (or mail-events) password."},
			"signatureTimestamp": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-Timestamp",
				"description": "ISO 8601 time with time zone, within 5 minutes of the service clock."},
			"writingToken": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-Token",
				"description": "Writing token of a customer (from an invitation or the order check)."},
			"metricsToken": map[string]any{"type": "http", "scheme": "bearer", "description": "metrics.token of the configuration."},
		},
	}
}

// mediaTypes are the content types of review media files.
const mediaTypes = "image/jpeg|image/webp|video/mp4"

// fileTypes are the content types of downloads (format or export csv, xlsx, json).
const fileTypes = "text/csv|application/vnd.openxmlformats-officedocument.spreadsheetml.sheet|application/json"

func storefrontOps() []op {
	listQ := []param{pKey, pChannel, pProduct, pScope, pSort, pPage, pPageSize,
		q("rating", "1–5.", integer()), q("verified", "1: only with proof of purchase.", str()), q("media", "1: only with media.", str()),
		pQ, q("topic", "One word up to 40 letters.", strMax(40)), pLang, q("via", "script when sent by the page script.", str())}
	listErr := cat(errSite, []string{"400 invalid / product", "400 sort_not_allowed", "400 invalid / rating", "400 invalid / q_too_long", "400 invalid / topic_too_long", "400 invalid / topic"})
	pRev := "{id:r_[a-z2-7]{20}}"
	badgeQ := []param{pKey, pChannel, qreq("products", "Product codes, comma-separated, up to 50 (each up to 128 chars).", str()), pScope, pLang}
	badgeErr := cat(errSite, []string{"400 invalid / products_required", "400 invalid / products_too_long: 50", "400 invalid / product_too_long", "400 invalid / scope"})
	badgeRow := obj(map[string]any{"product": str(), "count": integer(), "average": map[string]any{"type": "number"}, "stars_filled": map[string]any{"type": "number"},
		"label": str(), "html": str()}, "product", "count", "average", "stars_filled", "label")
	pTheme := q("theme", "One of the eight themes.", str())
	chanRow := map[string]any{"allOf": []any{ref("Review"), obj(map[string]any{"product": obj(map[string]any{"key": str(), "name": str(), "url": str()}, "key", "name", "url")}, "product")}}
	carousel := obj(map[string]any{"reviews": arr(chanRow), "source": enum("featured", "recent"), "language": str(), "theme": str(), "html": str()}, "reviews", "source", "language", "theme")
	pProductURL := q("product_url", "Address template of product pages the catalogue has no address of: an http(s) address or a path of the store's site with {product} (variant key) or {group} (group key, else variant key).", strMax(300))
	allQ := []param{pKey, pChannel, pLang, pProductURL, q("page", "Page, from 1.", integer()), q("page_size", "1 to 50, default 20.", integer()),
		q("rating", "1 to 5.", integer()), q("verified", "1: verified purchases only.", str()), q("media", "1: with photos or videos only.", str())}
	allPage := obj(map[string]any{"reviews": arr(chanRow), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer(),
		"applied":  obj(map[string]any{"rating": nullable(integer()), "media": boolean(), "verified": boolean()}, "rating", "media", "verified"),
		"language": str(), "theme": str(), "html": str()}, "reviews", "total", "page", "pages", "page_size", "applied", "language", "theme")
	writeErr := cat(errSite, errBody, errToken)
	ops := []op{
		{method: "POST", path: "/v1/eligibility", tag: "storefront", summary: "Order check: order number and email in, a single-use writing token out", auth: siteWrite,
			body: json(obj(map[string]any{"order": strMax(128), "email": strMax(254), "language": str()}, "order", "email")),
			ok: []answer{okJSON(200, "Eligible: a single-use writing token.", obj(map[string]any{"token": str(), "mode": enum("write", "feedback", "revise"),
				"expires_at": str()}, "token", "mode"))},
			errs: cat(errSite, errBody, []string{"400 invalid / order", "400 invalid / email", "403 token_refused / not_eligible"})},
		{method: "POST", path: "/v1/eligibility/token", tag: "storefront", summary: "Verify a token from an invitation or correction link (mode write, feedback or revise)", auth: siteWrite,
			body: json(obj(map[string]any{"token": str(), "language": str()}, "token")),
			ok:   []answer{okJSON(200, "Token details.", obj(map[string]any{"mode": enum("write", "feedback", "revise")}, "mode"))},
			errs: writeErr},
		{method: "POST", path: "/v1/media", tag: "storefront", summary: "Upload a photo or video (multipart, field file; token and line_reference fields)", auth: siteWrite,
			body: &body{ctype: "multipart/form-data", schema: obj(map[string]any{"token": str(), "line_reference": str(), "file": map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}}, "token", "file")},
			ok:   []answer{okJSON(201, "Stored; id and kind, no file address.", obj(map[string]any{"id": str(), "kind": str()}, "id"))},
			errs: cat(writeErr, []string{"400 refused / type_not_allowed: <type>", "400 refused / too_large: <MB>", "400 refused / too_many_items: 18", "413 refused / too_large: <MB>",
				"422 refused / video_too_long: 60", "422 refused / quarantined", "422 refused / image_unreadable", "422 refused / image_too_large", "422 refused / video_unreadable",
				"422 refused / video_stream_missing", "422 refused / video_frame_too_large: 3840x2160", "422 refused / video_frame_rate_too_high: 60",
				"422 refused / video_codec_not_allowed", "422 refused / scan_failed", "422 refused / processing_failed"})},
		{method: "POST", path: "/v1/reviews", tag: "storefront", summary: "Submit reviews for up to 20 products", auth: siteWrite,
			body: json(obj(map[string]any{"token": str(), "language": str(), "reviews": map[string]any{"type": "array", "maxItems": 20, "items": anyObj()}}, "token", "reviews")),
			ok: []answer{okJSON(201, "Saved reviews, one row per line.", obj(map[string]any{"reviews": arr(obj(map[string]any{"id": str(),
				"line_reference": str(), "state": str(), "receipt": str()}, "id", "line_reference", "state"))}, "reviews"))},
			errs: cat(writeErr, []string{"403 token_refused / line_already_written", "403 token_refused / line_out_of_scope", "400 invalid / rating_out_of_range", "400 invalid / title_too_long: 200",
				"400 invalid / body_too_long: 5000", "400 invalid / author_too_long: 120", "400 invalid / aspect_unknown", "400 invalid / aspect_out_of_range", "400 invalid / aspect_required",
				"400 invalid / too_many_reviews", "400 invalid / too_many_items: 6", "400 invalid / media_not_available", "400 invalid / hide_name"})},
		{method: "POST", path: "/v1/reviews/revise", tag: "storefront", summary: "Resubmit a rejected review with a correction token", auth: siteWrite,
			body: json(obj(map[string]any{"token": str(), "rating": integer(), "title": str(), "body": str(), "kept_media": arr(str()), "media": arr(str()), "author_name": strMax(120), "hide_name": boolean()}, "token")),
			ok:   []answer{okJSON(200, "Resubmitted.", ref("Created"))},
			errs: cat(writeErr, []string{"400 invalid / review_not_revisable", "400 invalid / rating_out_of_range", "400 invalid / too_many_items: 6", "400 invalid / hide_name"})},
		{method: "GET", path: "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", tag: "storefront", summary: "Public review media file, while the review is published",
			ok: []answer{okType(200, "The file (supports Range).", mediaTypes), okType(206, "Part of the file.", mediaTypes),
				okType(416, "Range not satisfiable (plain text; Content-Range gives the size).", "text/plain")}, errs: []string{"404 not_found", "403 refused / tenant_inactive"}},
		{method: "HEAD", path: "/media/{id:m_[a-z2-7]{20}}/{file:[a-z0-9-]{1,40}\\.(?:jpg|mp4)}", tag: "storefront", summary: "Headers of a public review media file",
			ok: []answer{{status: 200, desc: "Headers only."}}, errs: []string{"404 not_found", "403 refused / tenant_inactive"}},
		{method: "GET", path: "/v1/viewer", tag: "storefront", summary: "Signed-in customer's state for a product (server key only)", auth: serverOnly,
			query:   []param{pProduct, pScope, pLang, qreq("channel", "Channel code.", str())},
			headers: []param{hCustomer, {name: "X-Service-Customer-Name", desc: "Name shown with a question (UTF-8 percent-encoded).", schema: str()}},
			ok:      []answer{okJSON(200, "state, reviews, limits; token and products when the customer can write; asker when questions are on. Cache-Control no-store.", obj(map[string]any{"state": anyv(), "reviews": anyv(), "limits": anyObj()}, "state"))},
			errs:    cat(errSite, []string{"403 refused / server_only", "400 invalid / customer", "400 invalid / product"})},
		{method: "GET", path: "/v1/viewer/order", tag: "storefront", summary: "One order of the signed-in customer (server key only)", auth: serverOnly,
			query: []param{qreq("order", "Order number, up to 128 chars.", strMax(128)), qreq("channel", "Channel code.", str()), pLang}, headers: []param{hCustomer},
			ok:   []answer{okJSON(200, "Order detail; empty lines when not found or another customer's. Cache-Control no-store.", obj(map[string]any{"order": anyv(), "token": str(), "lines": arr(anyObj()), "language": str()}, "lines"))},
			errs: cat(errSite, []string{"403 refused / server_only", "400 invalid / customer", "400 invalid / order", "400 invalid / order_too_long"})},
		{method: "GET", path: "/v1/questions", tag: "storefront", summary: "Published questions with their answers", auth: siteRead,
			query:   []param{pKey, pChannel, pProduct, pScope, pPage, q("page_size", "Default 5, at most 20.", integer()), pLang},
			headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok:      []answer{okJSON(200, "ETag; Cache-Control private, max-age=30; with a CDN purge route configured (cdn.purge), a site key's answer is public, max-age=30, s-maxage=300, stale-while-revalidate=60 and carries Cache-Tag and Surrogate-Key (docs/cdn.md).", ref("Questions")), {status: 304, desc: "Unchanged since the ETag sent."}},
			errs:    cat(errSite, []string{"403 refused / questions_disabled", "400 invalid / product"})},
		{method: "POST", path: "/v1/questions", tag: "storefront", summary: "Ask a question (no purchase needed)", auth: siteWrite,
			body: json(obj(map[string]any{"product": strMax(128), "scope": str(), "name": strMax(120), "email": strMax(254), "body": strMax(1000), "hide_name": boolean(), "language": str(), "asker": str()}, "product", "body")),
			ok:   []answer{okJSON(201, "Created; id and state.", ref("Created"))},
			errs: cat(errSite, errBody, []string{"403 refused / questions_disabled", "400 invalid / body_required", "400 invalid / body_too_long", "400 invalid / name_too_long", "400 invalid / email", "400 invalid / hide_name"})},
		{method: "POST", path: "/v1/questions/{id:q_[a-z2-7]{20}}/answers", tag: "storefront", summary: "Answer a question as a buyer (review-invitation token in X-Service-Token)", auth: []string{"siteKeyHeader+writingToken"},
			body: json(obj(map[string]any{"body": strMax(2000), "name": strMax(120), "hide_name": boolean(), "language": str()}, "body")),
			ok:   []answer{okJSON(201, "Created; id and state.", ref("Created"))},
			errs: cat(errSite, errBody, errToken, []string{"403 refused / questions_disabled", "404 not_found", "400 invalid / body_required", "400 invalid / body_too_long"})},
		{method: "GET", path: "/v1/method-statement", tag: "storefront", summary: "Public method statement page of the site key's channel (no domain check)",
			query: []param{pKey, pLang, q("format", "json for machine-readable output.", enum("json"))},
			ok:    []answer{okType(200, "HTML page, or JSON with format=json. Cache-Control public, max-age=300; with a CDN purge route configured (cdn.purge), s-maxage=300, stale-while-revalidate=60 are added, with Cache-Tag and Surrogate-Key (docs/cdn.md).", "text/html")},
			errs:  []string{"403 refused / unknown_site_key", "403 refused / revoked_site_key", "403 refused / channel_inactive", "400 invalid / invalid", "429 rate_limited"}},
		{method: "GET", path: "/v1/method-statement.css", tag: "storefront", summary: "Style sheet of the method statement page",
			ok: []answer{okType(200, "CSS.", "text/css")}},
		{method: "GET", path: "/v1/reviews/list", tag: "storefront", summary: "Published reviews, summary and required elements", auth: siteRead,
			query: listQ, headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private, max-age=30; with a CDN purge route configured (cdn.purge), a site key's answer is public, max-age=30, s-maxage=300, stale-while-revalidate=60 and carries Cache-Tag and Surrogate-Key (docs/cdn.md).", ref("ReviewList")), {status: 304, desc: "Unchanged since the ETag sent."}}, errs: listErr},
		{method: "GET", path: "/v1/ssr", tag: "storefront", summary: "Server rendering: ready HTML, state (the list answer) and structured data", auth: siteRead,
			query: append(listQ[:len(listQ):len(listQ)], q("name", "Product name for structured data.", str()),
				q("style", "cards or sidebar.", enum("cards", "sidebar")), q("theme", "One of the eight themes.", str())),
			headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private (server key) or public (site key), max-age=60.",
				obj(map[string]any{"html": str(), "state": ref("ReviewList"), "structured_data": nullable(anyObj())}, "html", "state", "structured_data")), {status: 304, desc: "Unchanged since the ETag sent."}},
			errs: cat(listErr, []string{"400 invalid / style", "400 invalid / style_too_long", "400 invalid / theme", "400 invalid / theme_too_long", "409 refused / no_site_key"})},
		{method: "GET", path: "/v1/reviews/badges", tag: "storefront", summary: "Star badges of a listing page: average and count of up to 50 products", auth: siteRead,
			query: badgeQ, headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private, max-age=30.", obj(map[string]any{"badges": arr(badgeRow), "scope": str(), "language": str(), "theme": str()}, "badges", "scope", "language", "theme")),
				{status: 304, desc: "Unchanged since the ETag sent."}}, errs: badgeErr},
		{method: "GET", path: "/v1/ssr/badges", tag: "storefront", summary: "Star badges with their ready HTML (no structured data)", auth: siteRead,
			query: append(badgeQ[:len(badgeQ):len(badgeQ)], q("theme", "One of the eight themes.", str())), headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private (server key) or public (site key), max-age=60.", obj(map[string]any{"badges": arr(badgeRow), "scope": str(), "language": str(), "theme": str()}, "badges", "scope", "language", "theme")),
				{status: 304, desc: "Unchanged since the ETag sent."}}, errs: cat(badgeErr, []string{"400 invalid / theme"})},
		{method: "GET", path: "/v1/reviews/carousel", tag: "storefront", summary: "Home page carousel: the channel's featured reviews newest first, else recent 4 and 5 star reviews with text (up to 12; no structured data)", auth: siteRead,
			query: []param{pKey, pChannel, pLang, pProductURL}, headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private, max-age=30.", carousel), {status: 304, desc: "Unchanged since the ETag sent."}}, errs: cat(errSite, []string{"400 invalid / product_url"})},
		{method: "GET", path: "/v1/ssr/carousel", tag: "storefront", summary: "Home page carousel with its ready HTML", auth: siteRead,
			query: []param{pKey, pChannel, pLang, pProductURL, pTheme}, headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok:   []answer{okJSON(200, "ETag; Cache-Control private (server key) or public (site key), max-age=60.", carousel), {status: 304, desc: "Unchanged since the ETag sent."}},
			errs: cat(errSite, []string{"400 invalid / product_url", "400 invalid / theme"})},
		{method: "GET", path: "/v1/reviews/all", tag: "storefront", summary: "Store-wide review page: the channel's published reviews across products, newest first, with their products (no structured data)", auth: siteRead,
			query: allQ, headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok: []answer{okJSON(200, "ETag; Cache-Control private, max-age=30.", allPage), {status: 304, desc: "Unchanged since the ETag sent."}}, errs: cat(errSite, []string{"400 invalid / rating", "400 invalid / product_url"})},
		{method: "GET", path: "/v1/ssr/all", tag: "storefront", summary: "Store-wide review page with its ready HTML", auth: siteRead,
			query: append(allQ[:len(allQ):len(allQ)], pTheme), headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok:   []answer{okJSON(200, "ETag; Cache-Control private (server key) or public (site key), max-age=60.", allPage), {status: 304, desc: "Unchanged since the ETag sent."}},
			errs: cat(errSite, []string{"400 invalid / rating", "400 invalid / product_url", "400 invalid / theme"})},
		{method: "POST", path: "/v1/reviews/" + pRev + "/helpful", tag: "storefront", summary: "Helpful vote (up, down or none)", auth: siteWrite,
			body: json(obj(map[string]any{"vote": enum("up", "down", "none"), "visitor_key": str()}, "vote")),
			ok: []answer{okJSON(200, "The visitor's vote and the counts.", obj(map[string]any{"vote": nullable(enum("up", "down")), "counted": boolean(),
				"helpful_count": integer(), "unhelpful_count": integer()}, "vote", "counted", "helpful_count", "unhelpful_count"))},
			errs: cat(errSite, errBody, errNotFnd, []string{"400 invalid / vote"})},
		{method: "POST", path: "/v1/reviews/" + pRev + "/report", tag: "storefront", summary: "Report a published review", auth: siteWrite,
			body: json(obj(map[string]any{"reason": str(), "note": strMax(1000), "visitor_key": str()}, "reason")),
			ok:   []answer{okJSON(201, "The report's id (an open one of the same visitor is returned again).", obj(map[string]any{"id": str()}, "id"))},
			errs: cat(errSite, errBody, errNotFnd, []string{"400 invalid_reason", "400 invalid / note_too_long"})},
		{method: "POST", path: "/v1/views", tag: "storefront", summary: "Count one view of the review component (JSON sent as text/plain)", auth: []string{"siteKey"},
			body: &body{ctype: "text/plain", schema: str()},
			ok:   []answer{noContent("Counted (or ignored for bots and prefetches).")},
			errs: cat(errSite, []string{"400 invalid / product", "400 invalid_json"})},
		{method: "GET", path: "/static/reviews.css", tag: "storefront", summary: "Theme style sheet of the review component",
			query:   []param{q("theme", "Theme.", str()), q("style", "Layout.", str())},
			headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok:      []answer{okType(200, "CSS; ETag; Cache-Control public, max-age=86400.", "text/css"), {status: 304, desc: "Unchanged since the ETag sent."}}, errs: []string{"400 invalid / theme", "400 invalid / style"}},
		{method: "GET", path: "/v1/widget.js", tag: "storefront", summary: "Loader of the page script",
			ok: []answer{okType(200, "JavaScript.", "text/javascript")}},
		{method: "HEAD", path: "/v1/widget.js", tag: "storefront", summary: "Headers of the loader",
			ok: []answer{{status: 200, desc: "Headers only."}}},
		{method: "GET", path: "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", tag: "storefront", summary: "Content-addressed script and style of the component",
			ok: []answer{okType(200, "JavaScript or CSS; immutable caching.", "text/javascript|text/css")}, errs: errNotFnd},
		{method: "HEAD", path: "/assets/{hash:[0-9a-f]{16}}/{file:reviews\\.(?:js|css)}", tag: "storefront", summary: "Headers of a content-addressed file",
			ok: []answer{{status: 200, desc: "Headers only."}}, errs: errNotFnd},
	}
	ops = append(ops, transparencyOps()...)
	// Every storefront path answers CORS preflights.
	seen := map[string]bool{}
	var pre []op
	for _, o := range ops {
		if !seen[o.path] {
			seen[o.path] = true
			pre = append(pre, op{method: "OPTIONS", path: o.path, tag: "storefront", summary: "CORS preflight",
				ok: []answer{noContent("Access-Control-Allow-* headers.")}})
		}
	}
	return append(ops, pre...)
}

func adminOps() []op {
	const tag = "admin"
	a := func(method, path, summary string, query []param, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: adminAuth, query: query, body: b, ok: []answer{ok}, errs: e}
	}
	p := func(o op) op { o.auth = panelOnly; o.errs = cat(o.errs, errPanel); return o }
	pub := func(o op) op { o.auth = nil; return o }
	q20 := "{id:q_[a-z2-7]{20}}"
	conn := "{id:conn_[0-9]+}"
	file := q("format", "csv, xlsx or json downloads a file.", enum("csv", "xlsx", "json"))
	return []op{
		a("GET", "/admin/v1/whoami", "The caller: user or key, role, permissions", nil, nil, okJSON(200, "The caller.", ref("Whoami"))),
		pub(a("POST", "/admin/v1/session", "Sign in with username and password (panel)", nil,
			json(obj(map[string]any{"username": str(), "password": str()}, "username", "password")),
			okJSON(200, "Signed in (session cookie set; csrf_token for X-Service-CSRF), or step second_step when two-step sign-in is on.", ref("Session")),
			"401 refused / credentials_invalid")),
		pub(a("POST", "/admin/v1/session/passcode", "Second sign-in step: passcode", nil, json(obj(map[string]any{"passcode": str()}, "passcode")),
			okJSON(200, "Signed in.", ref("Session")), "400 invalid_passcode", "400 second_step_expired")),
		p(a("GET", "/admin/v1/session", "The panel session", nil, nil, okJSON(200, "Session with csrf token.", ref("Session")))),
		p(a("DELETE", "/admin/v1/session", "Sign out", nil, nil, noContent("Signed out."))),
		p(a("GET", "/admin/v1/session/second-step", "Two-step sign-in state and set-up secret", nil, nil, okJSON(200, "State.", ref("SecondStep")))),
		p(a("POST", "/admin/v1/session/second-step", "Start turning on two-step sign-in", nil, nil, okJSON(200, "Set-up secret.", obj(map[string]any{"secret": str(), "otpauth_url": str()}, "secret", "otpauth_url")), "409 invalid / second_step_on")),
		p(a("POST", "/admin/v1/session/second-step/confirm", "Confirm two-step sign-in with a passcode", nil, json(obj(map[string]any{"passcode": str()}, "passcode")), okJSON(200, "On.", ref("SecondStep")), "400 invalid_passcode")),
		p(a("POST", "/admin/v1/session/second-step/off", "Turn two-step sign-in off", nil, json(obj(map[string]any{"passcode": str(), "current_password": str()})), okJSON(200, "Off.", ref("SecondStep")), "400 invalid_passcode", "400 invalid / current_password")),
		p(a("POST", "/admin/v1/session/email-change", "Change the member's own email", nil, json(obj(map[string]any{"current": str(), "email": str()}, "email")),
			okJSON(200, "Changed.", obj(map[string]any{"user": ref("User")}, "user")), "400 invalid / current_password", "400 invalid / email_required", "403 email_change_own_only")),
		a("GET", "/admin/v1/settings", "Brand settings (write)", nil, nil, okJSON(200, "Settings.", ref("Settings"))),
		a("POST", "/admin/v1/settings", "Change settings; delivery route fields only in a panel session (write)", nil, json(ref("Settings")), okJSON(200, "Settings.", ref("Settings")),
			"403 refused / panel_session_required", "400 invalid / sender_domain_unverified", "400 invalid / webhook_url_required", "400 invalid / webhook_secret_missing",
			"400 invalid / invite_delivery_unavailable", "400 invalid / reminder_delivery_unavailable", "400 invalid / url_invalid",
			"400 invalid / daily_limit", "400 invalid / invite_delay_days", "400 invalid / publishing_method", "400 invalid / reminder_after_days", "400 invalid / reminder_consent", "400 invalid / reply_tone", "400 invalid / send_window", "400 invalid / sender_address", "400 invalid / time_zone",
			"400 invalid / warning_limit", "502 sender_domain_check_failed / dns_unreachable"),
		p(a("POST", "/admin/v1/settings/webhook-secret", "Create the notification address password (shown once)", nil, nil,
			okJSON(201, "The password, shown once.", obj(map[string]any{"id": str(), "password": str()}, "id", "password")))),
		p(a("POST", "/admin/v1/settings/whatsapp-test", "Send the WhatsApp invitation template to a number (local or international form)",
			nil, json(obj(map[string]any{"phone": strMax(32)}, "phone")),
			okJSON(200, "Sent.", obj(map[string]any{"sent": boolean(), "to": str(), "message_id": str()}, "sent", "to", "message_id")),
			"400 invalid / phone", "400 invalid / whatsapp_unavailable", "502 whatsapp_failed / <reason>")),
		a("GET", "/admin/v1/invites", "Invitations", append([]param{q("sent", "1: only emailed invitations.", str())}, listQuery...), nil, listAnswer("Invitations and counters.", anyObj()), "400 invalid / channel"),
		a("POST", "/admin/v1/invites/retry", "Queue failed invitations again (write)", nil, json(obj(map[string]any{"ids": map[string]any{"type": "array", "maxItems": 500, "items": str()}, "channel": str()})),
			okJSON(200, "Counts.", obj(map[string]any{"queued": integer(), "expired": integer()}, "queued", "expired")), "400 invalid / ids", "400 invalid / channel"),
		a("GET", "/admin/v1/send-logs", "Message log", append([]param{q("channel_kind", "email, webhook, or whatsapp once it is configured; whatsapp rows carry provider_status.", enum("email", "webhook", "whatsapp"))}, listQuery...), nil, listAnswer("Rows and counters.", anyObj()), "400 invalid / channel"),
		a("POST", "/admin/v1/opt-outs/check", "Look up opt-outs of up to 1000 addresses", nil, json(obj(map[string]any{"addresses": map[string]any{"type": "array", "maxItems": 1000, "items": str()}}, "addresses")),
			okJSON(200, "Opted-out rows.", obj(map[string]any{"opted_out": arr(anyObj())}, "opted_out")), "400 invalid / addresses_required", "400 invalid / addresses"),
		a("GET", "/admin/v1/opt-outs/export", "Download the opt-out list (export)", []param{file}, nil, okType(200, "File (csv default, xlsx, json).", fileTypes), "400 invalid / format"),
		a("GET", "/admin/v1/terms", "Blocked terms and regular expressions", nil, nil, okJSON(200, "Terms and the limit.", ref("Terms"))),
		also(a("POST", "/admin/v1/terms", "Add one expression (pattern, label: 201) or replace the list (terms: 200) (write)", nil,
			json(obj(map[string]any{"pattern": str(), "label": str(), "terms": arr(anyv())})), okJSON(201, "Added; the whole list.", ref("Terms")),
			"400 invalid / regex_limit: 50", "400 invalid / term", "400 invalid / terms", "400 invalid / pattern_required"), okJSON(200, "Replaced; the whole list.", ref("Terms"))),
		a("DELETE", "/admin/v1/terms/{id:term_[0-9]+}", "Delete a term (write)", nil, nil, noContent("Deleted."), "404 not_found"),
		a("GET", "/admin/v1/aspect-templates", "Rating-topic lists", nil, nil, okJSON(200, "Lists (own false for presets).", obj(map[string]any{"items": arr(ref("AspectTemplate"))}, "items"))),
		also(a("POST", "/admin/v1/aspect-templates", "Create (no key: 201) or change (key: 200) a rating-topic list (write)", nil,
			json(obj(map[string]any{"key": str(), "name": str(), "aspects": arr(anyObj()), "products": arr(anyv()), "default": boolean()})),
			okJSON(201, "Created.", ref("AspectTemplate")), "400 invalid / aspect_key", "400 invalid / aspect_kind", "400 invalid / aspect_label", "400 invalid / aspect_required", "400 invalid / aspect_scale", "400 invalid / aspect_steps", "400 invalid / aspects_required", "400 invalid / name_required", "400 invalid / name_too_long", "400 invalid / products",
			"409 refused / template_preset", "409 refused / template_default", "409 refused / template_assigned", "409 refused / template_retired"), okJSON(200, "Changed.", ref("AspectTemplate"))),
		a("POST", "/admin/v1/aspect-templates/retire", "Retire a rating-topic list (write)", nil, json(obj(map[string]any{"key": str()}, "key")), okJSON(200, "Retired.", obj(map[string]any{"key": str(), "retired": boolean()}, "key", "retired")), "404 not_found", "409 refused / template_preset", "409 refused / template_default", "409 refused / template_assigned"),
		a("GET", "/admin/v1/questions", "Questions", append([]param{q("state", "State filter.", str()), q("market", "Market.", str()), q("unanswered", "1: only unanswered.", str()), q("answers_waiting", "1: answers awaiting approval.", str())}, listQuery...), nil,
			okJSON(200, "Rows, counters (waiting, unanswered, answers_waiting) and enabled.", obj(map[string]any{"items": arr(anyObj()), "counters": anyObj(), "enabled": boolean()}, "items", "counters", "enabled")), "400 invalid / channel"),
		a("GET", "/admin/v1/questions/"+q20, "Question detail", nil, nil, okJSON(200, "asker_name, name_hidden, answers, notice, available_events, ledger.", ref("AdminQuestion")), "404 not_found"),
		a("POST", "/admin/v1/questions/"+q20+"/transition", "Moderate a question (moderate)", nil, transitionBody, okJSON(200, "The question.", ref("AdminQuestion")), cat(errNotFnd, errTransit)...),
		a("POST", "/admin/v1/questions/"+q20+"/answer", "Publish a brand answer (moderate)", nil, json(obj(map[string]any{"body": strMax(2000)}, "body")), okJSON(201, "The answer row.", ref("AdminAnswer")),
			"404 not_found", "409 answer_refused / text_steering", "409 answer_refused / text_health_claim", "409 answer_refused / text_personal_data", "409 answer_refused / text_profanity", "409 answer_refused / question_not_published"),
		a("POST", "/admin/v1/answers/{id:a_[a-z2-7]{20}}/transition", "Moderate an answer (moderate)", nil, transitionBody, okJSON(200, "The answer.", ref("AdminAnswer")), cat(errNotFnd, errTransit)...),
		a("GET", "/admin/v1/policies", "Market rules and limits", []param{pChannel}, nil, okJSON(200, "Market rules: the service's and the brand's versions, with their limits.", obj(map[string]any{"items": arr(ref("Policy"))}, "items")), "400 invalid / channel"),
		p(a("POST", "/admin/v1/policies", "Open a brand version of a market rule (manage-market-rules)", nil,
			json(obj(map[string]any{"market": str(), "channel": str(), "verification_required": boolean(), "review_window_days": map[string]any{"type": "integer", "minimum": 7, "maximum": 365},
				"allowed_sort_options": arr(str()), "default_sort_option": str(), "valid_from": str()})), okJSON(201, "The new version.", ref("Policy")),
			"400 invalid / verification_locked", "400 invalid / sort_not_offered: <option>", "400 invalid / default_sort_not_allowed", "400 invalid / review_window_days_out_of_range", "400 invalid / valid_from_past", "400 invalid / channel", "400 invalid / channel_market_mismatch")),
		a("GET", "/admin/v1/method-statement", "Method statements", []param{pChannel, pLang}, nil, okJSON(200, "Statements of every channel and language (or those asked for) and the verified domains.",
			obj(map[string]any{"items": arr(ref("MethodStatement")), "domains": arr(obj(map[string]any{"channel": str(), "domain": str()}, "channel", "domain"))}, "items")), "400 invalid / channel"),
		a("POST", "/admin/v1/method-statement", "Save a method statement address (write)", nil, json(obj(map[string]any{"channel": str(), "language": str(), "external_url": str()}, "channel", "language")),
			okJSON(200, "The statement.", ref("MethodStatement")), "400 invalid / channel", "400 invalid / url_invalid", "400 invalid / host_unverified", "502 page_unreadable"),
		a("POST", "/admin/v1/method-statement/confirm", "Confirm a method statement (write)", nil, json(obj(map[string]any{"channel": str(), "language": str(), "fingerprint": str()}, "channel", "language", "fingerprint")),
			okJSON(200, "Confirmed.", ref("MethodStatement")), "400 invalid / channel", "409 statement_changed"),
		p(a("GET", "/admin/v1/order-sources", "Platform order connections (change-settings)", nil, nil, okJSON(200, "items and platforms.", obj(map[string]any{"items": arr(ref("OrderSource")), "platforms": arr(obj(map[string]any{"code": str(), "kind": str(),
			"fields": arr(obj(map[string]any{"name": str(), "required": boolean(), "secret": boolean()}, "name", "required", "secret")), "page_size": integer(), "max_pages": integer()}, "code", "fields"))}, "items", "platforms")))),
		p(a("POST", "/admin/v1/order-sources", "Create an order connection", nil, json(obj(map[string]any{"platform": str(), "channel": str(), "backfill_days": integer(), "interval_minutes": integer(), "enabled": boolean()}, "platform", "channel")),
			okJSON(201, "The connection.", ref("OrderSource")), "400 invalid / base_url", "400 invalid / remote_channel", "400 invalid / <field>_required", "400 platform_refused / <reason>", "409 source_exists", "400 invalid / channel")),
		p(a("POST", "/admin/v1/order-sources/check", "Dry run of connection details", nil, json(ref("OrderSourceFields")),
			okJSON(200, "orders, complete, skipped, sample.", ref("OrderSourceCheck")),
			"400 invalid / base_url", "400 invalid / <field>_required", "400 platform_refused / <reason>")),
		p(a("GET", "/admin/v1/order-sources/"+conn, "One order connection", nil, nil, okJSON(200, "The connection.", ref("OrderSource")), "404 not_found")),
		p(a("PATCH", "/admin/v1/order-sources/"+conn, "Change an order connection", nil, json(ref("OrderSourceFields")), okJSON(200, "The connection.", ref("OrderSource")), "404 not_found", "400 invalid / address_needs_credentials", "400 invalid / base_url")),
		p(a("DELETE", "/admin/v1/order-sources/"+conn, "Remove an order connection", nil, nil, noContent("Removed."), "404 not_found")),
		p(a("POST", "/admin/v1/order-sources/"+conn+"/check", "Dry run with saved details", nil, nil, okJSON(200, "orders, complete, skipped, sample.", ref("OrderSourceCheck")), "404 not_found", "400 invalid / base_url", "400 platform_refused / <reason>")),
		p(a("POST", "/admin/v1/order-sources/"+conn+"/run", "Start a read", nil, nil, okJSON(202, "Queued; the connection with its next_run_at.", ref("OrderSource")), "404 not_found", "409 source_inactive", "409 channel_inactive")),
		a("GET", "/admin/v1/diagnostics", "Connection log and the state of every connection", append([]param{q("connection", "Connection id.", str()),
			q("outcome", "ok, partial or failed.", enum("ok", "partial", "failed"))}, listQuery...), nil, okJSON(200, "Rows and connections.", ref("Diagnostics"))),
		also(a("GET", "/admin/v1/reviews", "Reviews; export=csv|xlsx|json downloads a file (export)", append([]param{q("export", "csv, xlsx or json.", enum("csv", "xlsx", "json")),
			q("entry_point", "import: only imported reviews.", str()), q("state", "State filter.", str())}, listQuery...), nil,
			listAnswer("Review rows (product_name, flag_open, source).", ref("AdminReviewRow")), "400 invalid / channel", "400 invalid / export"),
			okType(200, "With export: the file.", "text/csv|application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")),
		a("GET", "/admin/v1/reviews/{id}", "Review detail", nil, nil, okJSON(200, "Review detail.", ref("AdminReviewDetail")), "404 not_found"),
		also(a("GET", "/admin/v1/reviews/{id}/media/{file_id}/{file_name}", "A review's media file, even when unpublished (private, no-store; Range)", nil, nil,
			okType(200, "The file: a rendition, or the original as uploaded.", mediaTypes+"|image/png|video/quicktime|video/webm|application/octet-stream"), "404 not_found"),
			okType(206, "Part of the file.", mediaTypes+"|image/png|video/quicktime|video/webm|application/octet-stream"),
			okType(416, "Range not satisfiable (plain text).", "text/plain")),
		a("DELETE", "/admin/v1/reviews/{id}/media/{file_id}", "Delete a media file permanently (moderate)", []param{q("reason", "Removal reason (also accepted in the body).", str())}, json(obj(map[string]any{"reason": enum("personal_data", "profanity", "data_subject_request", "legal_order")})),
			noContent("Deleted."), "404 not_found", "400 invalid / reason_required", "400 invalid / reason"),
		a("POST", "/admin/v1/reviews/{id}/transition", "Moderate a review (moderate)", nil, transitionBody, okJSON(200, "The review row after the change.", ref("AdminReviewRow")), cat(errNotFnd, errTransit, []string{"409 transition_refused / event_not_available"}, []string{"409 transition_refused / review_anonymized"})...),
		also(a("GET", "/admin/v1/reviews/{id}/trace", "Review history; format downloads a file (export)", []param{file}, nil,
			okJSON(200, "review and timeline.", obj(map[string]any{"review": ref("AdminReviewRow"), "seller_response": nullable(anyObj()), "resolution": nullable(anyObj()), "timeline": arr(anyObj())}, "review", "timeline")), "404 not_found", "400 invalid / format"),
			okType(200, "With format csv or xlsx: the file.", "text/csv|application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")),
		a("POST", "/admin/v1/reviews/{id}/reports/resolve", "Close open reports (moderate)", nil, json(obj(map[string]any{"note": strMax(1000)})),
			okJSON(200, "Closed count.", obj(map[string]any{"closed": integer()}, "closed")), "404 not_found", "409 resolution_refused / <reason>", "400 invalid / note_too_long"),
		a("GET", "/admin/v1/moderation/queue", "Reviews awaiting approval (moderate)", listQuery, nil,
			okJSON(200, "Review rows and counters.", obj(map[string]any{"items": arr(ref("AdminReviewRow")), "counters": anyObj()}, "items", "counters")), "400 invalid / channel"),
		a("POST", "/admin/v1/moderation/bulk", "Approve or reject up to 200 reviews (moderate)", nil,
			json(obj(map[string]any{"ids": map[string]any{"type": "array", "maxItems": 200, "items": str()}, "action": enum("approve", "reject"), "reason": str()}, "ids", "action")),
			okJSON(200, "Counts.", obj(map[string]any{"count": integer(), "skipped": integer()}, "count", "skipped")), "400 invalid / ids", "400 invalid / action", "400 invalid / reason_required"),
		a("GET", "/admin/v1/reasons", "Reason lists by language", nil, nil, okJSON(200, "Reason lists by language, then by kind (review_rejection, review_removal, review_media_removal, question_rejection, report, ...).", ref("Reasons"))),
	}
}
