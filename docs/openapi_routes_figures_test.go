package docs_test

// figuresOps describes the product-review feeds and the brand's figures (metrics,
// insights, overview).
func figuresOps() []op {
	dt := map[string]any{"type": "string", "format": "date-time"}
	num := map[string]any{"type": "number"}
	date := map[string]any{"type": "string", "format": "date"}
	feed := obj(map[string]any{"id": str(), "name": str(), "channel": str(), "market": str(), "names": enum("as_shown", "masked"),
		"publisher_name": str(), "url": str(), "created_at": dt, "last_read_at": nullable(dt)},
		"id", "name", "channel", "market", "names", "publisher_name", "url", "created_at", "last_read_at")
	panelOp := func(method, path, summary string, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errPanel, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: "admin", summary: summary, auth: panelOnly, body: b, ok: []answer{ok}, errs: e}
	}
	period := []param{q("from", "First day (YYYY-MM-DD) in the brand's time zone; default 29 days before to.", date),
		q("to", "Last day (YYYY-MM-DD), included; default today.", date)}
	periodErrs := []string{"400 invalid / channel", "400 invalid / from", "400 invalid / to", "400 invalid / range"}
	totals := obj(map[string]any{"received": integer(), "imported": integer(), "published": integer(), "average": nullable(num),
		"with_media": integer()}, "received", "imported", "published", "average", "with_media")
	point := obj(map[string]any{"start": date, "received": integer(), "published": integer(), "average": nullable(num)},
		"start", "received", "published", "average")
	funnel := obj(map[string]any{"sent": integer(), "opened": integer(), "reviewed": integer(), "open_rate": num, "conversion": num},
		"sent", "opened", "reviewed", "open_rate", "conversion")
	moderation := obj(map[string]any{"decided": integer(), "average_hours": nullable(num), "within_24h": num, "waiting": integer(),
		"waiting_over_48h": integer(), "oldest_waiting_at": nullable(dt)}, "decided", "average_hours", "within_24h", "waiting",
		"waiting_over_48h", "oldest_waiting_at")
	route := obj(map[string]any{"sent": integer(), "retry": integer(), "failed": integer(), "delivered": integer(), "read": integer()},
		"sent", "retry", "failed", "delivered", "read")
	deliveries := obj(map[string]any{"email": route, "webhook": route, "whatsapp": route}, "email", "webhook", "whatsapp")
	metrics := obj(map[string]any{"channel": str(), "from": date, "to": date, "period": enum("day", "week", "month"), "time_zone": str(),
		"reviews": totals, "series": arr(point), "distribution": obj(map[string]any{"1": integer(), "2": integer(), "3": integer(),
			"4": integer(), "5": integer()}, "1", "2", "3", "4", "5"),
		"invitations": funnel, "moderation": moderation, "photo_share": num, "as_of": dt, "deliveries": deliveries},
		"channel", "from", "to", "period", "time_zone", "reviews", "series", "distribution", "invitations", "moderation", "photo_share")
	figure := obj(map[string]any{"from": date, "to": date, "received": integer(), "published": integer(), "average": nullable(num),
		"photo_share": num, "conversion": num}, "from", "to", "received", "published", "average", "photo_share", "conversion")
	insights := obj(map[string]any{"channel": str(), "market": str(), "from": date, "to": date, "current": figure, "previous": figure,
		"top_products": arr(obj(map[string]any{"product_key": str(), "market": str(), "name": str(), "reviews": integer(),
			"average": nullable(num)}, "product_key", "market", "reviews", "average")),
		"topics": arr(obj(map[string]any{"word": str(), "reviews": integer()}, "word", "reviews")),
		"ai":     map[string]any{"type": "null"}},
		"channel", "market", "current", "previous", "top_products", "topics", "ai")
	site := obj(map[string]any{"code": str(), "label": str(), "market": str(), "verdict": enum("ok", "refusing", "silent", "inactive"),
		"calls": integer(), "refused": integer(), "last_at": nullable(dt)}, "code", "label", "market", "verdict", "calls", "refused", "last_at")
	attention := obj(map[string]any{"kind": enum("moderation_slow", "marketplace_held", "marketplace_failed"), "count": integer(),
		"at": nullable(dt)}, "kind", "count", "at")
	overview := obj(map[string]any{"sites": arr(site), "attention": arr(attention), "mode": enum("automatic", "hybrid", "manual"),
		"mode_overrides": integer(), "window_days": integer(), "deliveries": deliveries}, "sites", "attention", "mode", "mode_overrides")
	return []op{
		panelOp("GET", "/admin/v1/review-feeds", "Product-review feed definitions with their secret addresses (change-settings)", nil,
			okJSON(200, "The feeds.", obj(map[string]any{"items": arr(feed)}, "items"))),
		panelOp("POST", "/admin/v1/review-feeds", "Define a product-review feed: name, channel or market scope, names (as_shown or masked)",
			json(obj(map[string]any{"name": strMax(100), "channel": str(), "market": str(), "names": enum("as_shown", "masked"),
				"publisher_name": strMax(120)}, "name")),
			okJSON(201, "The feed with its address (the key in it is shown in the list too).", feed),
			"400 invalid / name_required", "400 invalid / name_too_long", "400 invalid / name", "400 invalid / publisher_name_too_long",
			"400 invalid / publisher_name", "400 invalid / channel", "400 invalid / market", "400 invalid / channel_market_mismatch", "400 invalid / names", "409 feed_limit / 20"),
		panelOp("DELETE", "/admin/v1/review-feeds/{id:rf_[0-9]+}", "Remove a product-review feed (its address answers 404 from then on)", nil,
			noContent("Removed."), "404 not_found"),
		{method: "GET", path: "/admin/v1/shared-review-feeds/{id:rf_[0-9]+}/{key:[0-9a-f]{32}}.xml", tag: "admin",
			summary: "The product-review feed in Google's Product Review Feed schema 2.3, streamed; no session: the key in the address is the credential",
			headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()},
				{name: "If-Modified-Since", desc: "Last-Modified of a copy held.", schema: str()}},
			ok: []answer{okType(200, "The feed; ETag, Last-Modified, Cache-Control private, no-cache.", "application/xml"),
				{status: 304, desc: "Unchanged since the ETag (or date) sent."}},
			errs: []string{"400 invalid / invalid", "403 forbidden / brand_inactive", "404 not_found"}},
		{method: "GET", path: "/admin/v1/metrics", tag: "admin", auth: adminAuth,
			summary: "Reviews and average per period, rating distribution, invitation funnel, moderation response time, photo share (read)",
			query:   append([]param{pChannel, q("period", "Series unit.", enum("day", "week", "month"))}, period...),
			ok:      []answer{okJSON(200, "The figures of the period.", metrics)}, errs: cat(errAdmin, periodErrs, []string{"400 invalid / period"})},
		{method: "GET", path: "/admin/v1/insights", tag: "admin", auth: adminAuth,
			summary: "The period against the previous one, top products and topics; ai is null in v1 (read)",
			query:   append([]param{pChannel, q("market", "Market (ISO 3166 alpha-2); with channel it must be the channel's.", str())}, period...),
			ok:      []answer{okJSON(200, "Insights.", insights)}, errs: cat(errAdmin, periodErrs, []string{"400 invalid / channel_market_mismatch", "400 invalid / market"})},
		{method: "GET", path: "/admin/v1/overview", tag: "admin", auth: adminAuth,
			summary: "Sites (transfers of the last 7 days and a verdict), attention list, publishing method (read)",
			query:   []param{q("channel", "Channel code: that channel's site and attention, its method in mode and 0 in mode_overrides.", str())},
			ok:      []answer{okJSON(200, "The overview.", overview)}, errs: cat(errAdmin, []string{"400 invalid / channel"})},
	}
}
