package docs_test

import "reviewd/app/core"

// channelsOps describes the channel, domain and channel-request endpoints: panel
// session only (a key gets 403 forbidden / scope_missing).
func channelsOps() []op {
	const tag = "admin"
	code := "{code:[A-Za-z0-9][A-Za-z0-9_.-]{0,31}}"
	domain := "{domain:[A-Za-z0-9][A-Za-z0-9.-]{0,252}}"
	p := func(method, path, summary string, query []param, b *body, ok answer, errs ...string) op {
		e := cat(errAdmin, errPanel, errs)
		if b != nil {
			e = cat(e, errBody)
		}
		return op{method: method, path: path, tag: tag, summary: summary, auth: panelOnly, query: query, body: b, ok: []answer{ok}, errs: e}
	}
	domainRow := obj(map[string]any{"domain": str(), "verified": boolean()}, "domain", "verified")
	row := obj(map[string]any{"code": str(), "label": str(), "market": str(), "language": enum("tr", "en"), "brand_name": str(),
		"sender_address": str(), "support_url": str(), "privacy_url": str(), "landing_url": str(),
		"review_style": enum(core.Styles...), "review_theme": enum(core.Themes...), "active": boolean(), "domains": arr(domainRow), "time_zone": str()},
		"code", "label", "market", "language", "brand_name", "sender_address", "support_url", "privacy_url", "landing_url",
		"review_style", "review_theme", "active", "domains")
	request := obj(map[string]any{"id": str(), "state": enum("open", "granted"), "market": str(), "label": str(), "note": str(),
		"created_at": map[string]any{"type": "string", "format": "date-time"}}, "id", "state")
	quota := obj(map[string]any{"limit": integer(), "open": integer(), "request": nullable(request)}, "limit", "open", "request")
	list := obj(map[string]any{"items": arr(row), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer(),
		"quota": quota}, "items", "total", "page", "pages", "page_size", "quota")
	key := obj(map[string]any{"id": str(), "kind": enum("server", "api"), "key": str(), "scopes": arr(str()), "channel": nullable(str()),
		"label": str()}, "id", "kind", "key", "scopes", "channel", "label")
	create := obj(map[string]any{"kind": enum("website", "api_key"), "code": strMax(32), "label": strMax(120), "market": str(),
		"language": enum("tr", "en"), "brand_name": strMax(120), "landing_url": strMax(500), "support_url": strMax(500),
		"privacy_url": strMax(500), "sender_address": strMax(254), "channel": str(), "scopes": arr(enum("read", "moderate", "export", "write")),
		"time_zone": strMax(64)})
	change := obj(map[string]any{"label": strMax(120), "brand_name": strMax(120), "sender_address": strMax(254), "support_url": strMax(500),
		"privacy_url": strMax(500), "landing_url": strMax(500), "review_style": enum(core.Styles...),
		"review_theme": enum(core.Themes...), "active": boolean(), "time_zone": strMax(64)})
	pending := obj(map[string]any{"domain": str(), "verified": boolean(), "token": str(), "path": str(), "dns_name": str()},
		"domain", "verified", "token", "path", "dns_name")
	urlErrs := []string{"400 invalid / landing_url", "400 invalid / privacy_url_not_https", "400 invalid / privacy_url_too_long",
		"400 invalid / support_url", "400 invalid / sender_address", "400 invalid / sender_domain_unverified", "400 invalid / time_zone",
		"502 sender_domain_check_failed / dns_unreachable"}
	return []op{
		p("GET", "/admin/v1/channels", "Channels with their domains and the channel allowance (quota)", []param{pPage, pPageSize, pQ, pSort}, nil,
			okJSON(200, "Channel rows by code, plus quota (limit, open, request).", list)),
		p("POST", "/admin/v1/channels", "Create a website channel, or with kind api_key a server key (no scopes) or an admin API key (scopes); the key is shown this once", nil,
			json(create), okJSON(201, "The channel row, or for kind api_key the key.", map[string]any{"oneOf": []any{row, key}}),
			cat(urlErrs, []string{"400 invalid / kind", "400 invalid / code", "400 invalid / market", "400 invalid / language",
				"400 invalid / label", "400 invalid / brand_name", "409 channel_exists", "409 channel_quota",
				"400 invalid / scopes_required", "400 invalid / unknown_scope: <permission>", "400 invalid / scope_reserved: write",
				"400 invalid / channel_required", "400 invalid / channel"})...),
		p("PATCH", "/admin/v1/channels/"+code, "Change a channel; active false turns it off, true on; review_style and review_theme are the page component's layout and theme (the list and SSR answers follow at once)",
			nil, json(change), okJSON(200, "The channel row.", row), cat(errNotFnd, urlErrs, []string{"400 invalid / label",
				"400 invalid / brand_name", "400 invalid / review_style", "400 invalid / review_theme", "400 invalid / active"})...),
		p("DELETE", "/admin/v1/channels/"+code, "Delete a channel without reviews, orders, questions or connection", nil, nil,
			noContent("Deleted."), "404 not_found", "409 channel_in_use"),
		p("POST", "/admin/v1/channels/"+code+"/domains", "Add a domain to prove: a file at path or a TXT record at dns_name holding token", nil,
			json(obj(map[string]any{"domain": strMax(253)}, "domain")), okJSON(201, "The domain with its proof token.", pending),
			"404 not_found", "400 invalid / domain"),
		p("POST", "/admin/v1/channels/"+code+"/domains/"+domain+"/verify", "Check a domain's proof by file or TXT record", nil,
			json(obj(map[string]any{"method": enum("file", "dns")}, "method")), okJSON(200, "Verified.", domainRow),
			"404 not_found", "400 invalid / method", "400 proof_refused / proof_not_found", "400 proof_refused / token_mismatch",
			"400 proof_refused / dns_value_mismatch", "400 proof_refused / dns_unreachable"),
		p("DELETE", "/admin/v1/channels/"+code+"/domains/"+domain, "Remove a domain from a channel", nil, nil, noContent("Removed."),
			"404 not_found", "409 domain_in_statement / <channel>/<language>", "409 domain_in_use / channels: <codes>",
			"409 sender_domain_refused / sender_domain_in_use"),
		p("POST", "/admin/v1/channel-requests", "Request another channel beyond the allowance", nil,
			json(obj(map[string]any{"market": str(), "label": strMax(120), "note": strMax(1000)}, "market", "label")),
			okJSON(201, "The open request.", request), "400 invalid / market", "400 invalid / label", "400 invalid / note", "409 channel_request_open"),
	}
}
