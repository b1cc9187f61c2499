package docs_test

// The route descriptions docs/openapi.json is generated from: one op per mounted
// method and path, written with the router's own path template (gorilla/mux, with
// its patterns), so the walking test can compare them with what is mounted.

// op describes one operation.
type op struct {
	method, path string // path as mounted (mux template)
	tag, summary string
	auth         []string // security alternatives (names of schemes; "a+b" needs both); nil: public
	query        []param
	headers      []param
	body         *body
	ok           []answer
	errs         []string // "status error / detail" or "status error"
	// errHTML: refusals (not the router's 405) are HTML pages for people, not
	// JSON error bodies.
	errHTML bool
}

// param is one query or header parameter.
type param struct {
	name, desc string
	required   bool
	schema     map[string]any
}

// body is a request body.
type body struct {
	ctype  string
	schema map[string]any
}

// answer is one success answer.
type answer struct {
	status      int
	desc, ctype string
	schema      map[string]any
}

// Schema helpers.
func str() map[string]any            { return map[string]any{"type": "string"} }
func strMax(n int) map[string]any    { return map[string]any{"type": "string", "maxLength": n} }
func integer() map[string]any        { return map[string]any{"type": "integer"} }
func boolean() map[string]any        { return map[string]any{"type": "boolean"} }
func anyv() map[string]any           { return map[string]any{} }
func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
func arr(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}
func enum(vals ...string) map[string]any { return map[string]any{"type": "string", "enum": vals} }
func nullable(s map[string]any) map[string]any {
	return map[string]any{"oneOf": []any{s, map[string]any{"type": "null"}}}
}

// obj is an object schema; required names the properties that must be present.
// Unknown properties are allowed (spec 3, versioning rule 2: new answer fields may
// be added within a version and callers ignore them).
func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// anyObj is an object whose fields are described in the spec's prose only.
func anyObj() map[string]any { return map[string]any{"type": "object"} }

func q(name, desc string, s map[string]any) param { return param{name: name, desc: desc, schema: s} }
func qreq(name, desc string, s map[string]any) param {
	return param{name: name, desc: desc, schema: s, required: true}
}
func json(s map[string]any) *body { return &body{ctype: "application/json", schema: s} }
func okJSON(status int, desc string, s map[string]any) answer {
	return answer{status: status, desc: desc, ctype: "application/json", schema: s}
}
func okType(status int, desc, ctype string) answer {
	return answer{status: status, desc: desc, ctype: ctype}
}

// also adds answers to an operation.
func also(o op, more ...answer) op { o.ok = append(o.ok, more...); return o }

func noContent(desc string) answer { return answer{status: 204, desc: desc} }

// Security alternatives.
var (
	adminAuth   = []string{"apiKey", "panelSession+csrf"}
	panelOnly   = []string{"panelSession+csrf"}
	ingestAuth  = []string{"serverKey", "signature+signatureSecret+signatureTimestamp"}
	siteRead    = []string{"siteKey", "serverKey"}
	siteWrite   = []string{"siteKeyHeader"}
	serverOnly  = []string{"serverKey"}
	mailSigned  = []string{"signature+signatureSecret+signatureTimestamp"}
	metricsAuth = []string{"metricsToken"}
)

// Error code sets shared by many routes.
var (
	errQuery   = []string{"400 invalid / invalid", "429 rate_limited"}
	errBody    = []string{"400 invalid_json", "400 invalid / body_invalid", "400 invalid / body_empty", "413 invalid / body_too_large"}
	errAdmin   = []string{"401 refused / credentials_missing", "401 refused / unknown_key", "401 refused / malformed_key", "401 refused / revoked_key", "401 refused / session_invalid", "403 forbidden / scope_missing", "403 forbidden / brand_inactive", "403 forbidden / csrf_missing", "429 rate_limited", "400 invalid / invalid"}
	errNotFnd  = []string{"404 not_found"}
	errIngest  = []string{"401 refused / unknown_key", "401 refused / malformed_key", "401 refused / revoked_key", "403 refused / scope_missing", "401 signature_refused / signature_missing", "401 signature_refused / timestamp_missing", "401 signature_refused / timestamp_invalid", "401 signature_refused / timestamp_outside_window", "401 signature_refused / signature_mismatch", "401 signature_refused / secret_unknown", "429 rate_limited"}
	errFields  = []string{"400 invalid / field_missing: <field>", "400 invalid / field_invalid: <field>", "400 invalid / field_too_long: <field>", "400 invalid / batch_too_large: 100"}
	errSite    = []string{"403 refused / origin_missing", "403 refused / origin_unverified: <domain>", "403 refused / unknown_site_key", "403 refused / revoked_site_key", "403 refused / channel_inactive", "403 refused / unknown_channel", "403 refused / unknown_key", "403 refused / malformed_key", "403 refused / revoked_key", "403 refused / tenant_inactive", "403 refused / scope_missing", "400 invalid / invalid", "429 rate_limited"}
	errToken   = []string{"401 token_required", "403 token_refused / token_unknown", "403 token_refused / token_expired", "403 token_refused / token_spent", "403 token_refused / token_wrong_kind", "403 token_refused / token_foreign_tenant", "403 token_refused / token_foreign_market"}
	errPanel   = []string{"403 forbidden / panel_session_required", "403 refused / panel_session_required"}
	errTransit = []string{"400 invalid / event", "400 invalid / reason_required", "400 invalid / reason", "409 transition_refused"}
)

// cat joins error code lists.
func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Common parameters.
var (
	pPage     = q("page", "Page number, 1–1000, clamped.", integer())
	pPageSize = q("page_size", "Rows per page, clamped.", integer())
	pChannel  = q("channel", "Channel code; limits the list and its counters.", str())
	pQ        = q("q", "Search words.", strMax(100))
	pLang     = q("lang", "Language: tr or en; otherwise the channel's language.", str())
	pKey      = q("key", "Site key (store page reads).", str())
	pProduct  = qreq("product", "Product code (data-review-product), up to 128 chars.", strMax(128))
	pScope    = q("scope", "variant (default) or group.", enum("variant", "group"))
	pFormat   = q("format", "Download format.", enum("csv", "xlsx", "json"))
	pSort     = q("sort", "Sort option.", str())
	listQuery = []param{pPage, pPageSize, pQ, pChannel, pSort}
	hCustomer = param{name: "X-Service-Customer", desc: "Signed-in customer's email address.", required: true, schema: strMax(254)}
)

// transitionBody is the body of review, question and answer transitions.
var transitionBody = json(obj(map[string]any{"event": str(), "reason": str()}, "event"))

// listAnswer is the shared list envelope.
func listAnswer(desc string, item map[string]any) answer {
	return okJSON(200, desc, obj(map[string]any{"items": arr(item), "total": integer(), "page": integer(), "pages": integer(), "page_size": integer()},
		"items", "total", "page", "pages", "page_size"))
}

// ops is every operation reviewd mounts (the CLI's serve wiring, with metrics.token set).
func ops() []op {
	var out []op
	out = append(out, serviceOps()...)
	out = append(out, ingestOps()...)
	out = append(out, mailOps()...)
	out = append(out, storefrontOps()...)
	out = append(out, adminOps()...)
	out = append(out, privacyOps()...)
	out = append(out, aiOps()...)
	out = append(out, accessOps()...)
	out = append(out, channelsOps()...)
	out = append(out, marketOps()...)
	out = append(out, figuresOps()...)
	out = append(out, panelOps()...)
	out = append(out, repliesOps()...)
	return out
}

func serviceOps() []op {
	return []op{
		{method: "GET", path: "/healthz", tag: "service", summary: "Liveness and version",
			ok: []answer{okJSON(200, "Running.", ref("Health"))}},
		{method: "GET", path: "/openapi.json", tag: "service", summary: "This OpenAPI document",
			headers: []param{{name: "If-None-Match", desc: "ETag of a copy held.", schema: str()}},
			ok:      []answer{okType(200, "The document; Cache-Control public, max-age=300; ETag.", "application/json"), {status: 304, desc: "Unchanged since the ETag sent."}}},
		{method: "GET", path: "/metrics", tag: "service", summary: "Prometheus metrics (mounted only when metrics.token is set)", auth: metricsAuth,
			ok:   []answer{okType(200, "Prometheus text exposition format.", "text/plain")},
			errs: []string{"401 refused / credentials_missing", "401 refused / credentials_invalid", "429 rate_limited"}},
	}
}

func ingestOps() []op {
	order := obj(map[string]any{
		"channel": strMax(32), "external_id": strMax(128), "payment_state": enum("pending", "paid", "partially_refunded", "refunded", "voided"),
		"market": str(), "language": enum("tr", "en"), "placed_at": map[string]any{"type": "string", "format": "date-time"},
		"customer_email": strMax(254), "customer_key": strMax(128), "customer_phone": strMax(32), "items": arr(ref("OrderLine")),
	}, "external_id", "payment_state", "placed_at", "items")
	orders := obj(map[string]any{"channel": str(), "orders": map[string]any{"type": "array", "items": order, "minItems": 1, "maxItems": 100}}, "orders")
	delivery := obj(map[string]any{"external_id": strMax(128), "line_reference": strMax(128), "state": str(), "source": str(),
		"observed_at": map[string]any{"type": "string", "format": "date-time"}}, "external_id", "state", "observed_at")
	deliveries := obj(map[string]any{"channel": str(), "deliveries": map[string]any{"type": "array", "items": delivery, "maxItems": 100}}, "deliveries")
	ingestErr := cat(errIngest, errBody, errFields, []string{"403 refused / tenant_inactive", "400 invalid / market_required", "400 invalid / market_without_policy: <market>", "400 invalid / channel_unknown", "400 invalid / market_channel_mismatch: <market>"})
	return []op{
		{method: "POST", path: "/v1/ingest/orders", tag: "ingest", summary: "Receive one order or a batch of up to 100 (all or none saved)", auth: ingestAuth,
			body: json(map[string]any{"oneOf": []any{order, orders}}),
			ok: []answer{okJSON(200, "Accepted.", obj(map[string]any{"accepted": integer(),
				"orders": arr(obj(map[string]any{"external_id": str(), "id": str()}, "external_id", "id"))}, "accepted", "orders"))},
			errs: ingestErr},
		{method: "POST", path: "/v1/ingest/deliveries", tag: "ingest", summary: "Receive one delivery record or up to 100", auth: ingestAuth,
			body: json(map[string]any{"oneOf": []any{delivery, deliveries}}),
			ok: []answer{okJSON(200, "Accepted; unknown lines are listed, not refused.", obj(map[string]any{"accepted": integer(),
				"unknown": arr(obj(map[string]any{"external_id": str(), "line": str()}))}, "accepted", "unknown"))},
			errs: cat(ingestErr, []string{"400 invalid / status_unmapped: <path>/<value>"})},
		{method: "POST", path: "/admin/v1/ingest/check", tag: "ingest", summary: "Dry run of an order or delivery body; no credentials, nothing saved; limited per IP",
			body: json(obj(map[string]any{"kind": enum("order", "delivery"), "body": anyv()}, "kind", "body")),
			ok:   []answer{okJSON(200, "Whether the body would be accepted, how many records, and the refusal it would get (error: \"code / detail\").", ref("IngestCheck"))},
			errs: cat(errBody, []string{"400 invalid / kind", "403 forbidden / brand_inactive", "429 rate_limited"})},
		{method: "GET", path: "/admin/v1/ingest/stats", tag: "ingest", summary: "Orders received, request figures of 7 days, recent requests", auth: adminAuth,
			query: []param{pChannel},
			ok:    []answer{okJSON(200, "Figures.", ref("IngestStats"))},
			errs:  cat(errAdmin, []string{"400 invalid / channel"})},
	}
}

// mailEvent is one event of the generic mail-event format.
var mailEvent = obj(map[string]any{"type": enum("delivered", "deferred", "bounced", "complained", "opened", "unsubscribed"),
	"event_id": strMax(200), "message_id": strMax(998), "address": str(), "detail": strMax(1000), "occurred_at": str()}, "type", "event_id")

func mailOps() []op {
	counts := obj(map[string]any{"accepted": integer(), "matched": integer(), "duplicates": integer(), "ignored": integer(), "opted_out": integer()},
		"accepted", "matched", "duplicates", "ignored", "opted_out")
	return []op{
		{method: "POST", path: "/v1/mail-events/generic", tag: "mail", summary: "Email delivery events, one or {events:[...]} up to 500, signed with the mail-events password", auth: mailSigned,
			body: json(map[string]any{"oneOf": []any{mailEvent, obj(map[string]any{"events": map[string]any{"type": "array", "maxItems": 500, "items": mailEvent}}, "events")}}),
			ok:   []answer{okJSON(200, "Counts.", counts)},
			errs: cat(errIngest[4:], errBody, []string{"400 invalid / batch_too_large: 500", "400 invalid / field_missing: <field>", "400 invalid / field_invalid: <field>"})},
		{method: "POST", path: "/v1/mail-events/{provider}/{code}", tag: "mail", summary: "A mail provider's own event format; the address carries the brand's access code",
			body: &body{ctype: "application/json", schema: anyv()}, ok: []answer{okJSON(200, "Counts.", counts)},
			errs: cat(errBody, []string{"404 not_found", "400 invalid / body_invalid", "429 rate_limited"})},
		{method: "GET", path: "/v1/unsubscribe", tag: "mail", summary: "Stop-link confirmation page",
			query: []param{qreq("t", "Sealed stop token from the message.", str()), pLang},
			ok:    []answer{okType(200, "HTML page with the confirmation button.", "text/html")},
			errs:  []string{"400 invalid / t", "429 rate_limited"}, errHTML: true},
		{method: "POST", path: "/v1/unsubscribe", tag: "mail", summary: "Stop further messages (RFC 8058 one-click POST)",
			query: []param{qreq("t", "Sealed stop token from the message.", str()), pLang},
			ok:    []answer{okType(200, "Confirmation (HTML for a browser form, empty for one-click).", "text/html")},
			errs:  []string{"400 invalid / t", "429 rate_limited"}, errHTML: true},
		{method: "GET", path: "/v1/messaging/whatsapp", tag: "mail", summary: "WhatsApp webhook subscription handshake (404 without WhatsApp configured)",
			query: []param{qreq("hub.mode", "subscribe.", str()), qreq("hub.verify_token", "whatsapp.verify_token.", str()),
				qreq("hub.challenge", "Echoed back.", strMax(256))},
			ok:   []answer{okType(200, "hub.challenge as plain text.", "text/plain")},
			errs: []string{"400 invalid / hub.challenge", "403 forbidden / verify_token_invalid", "404 not_found"}},
		{method: "POST", path: "/v1/messaging/whatsapp", tag: "mail", summary: "WhatsApp status events and incoming messages (a stop word opts the number out), signed by Meta",
			headers: []param{{name: "X-Hub-Signature-256", desc: "sha256=<hex HMAC-SHA256 of the raw body with whatsapp.app_secret>.", required: true, schema: str()}},
			body:    &body{ctype: "application/json", schema: obj(map[string]any{"object": str(), "entry": arr(anyObj())}, "entry")},
			ok: []answer{okJSON(200, "Counts.", obj(map[string]any{"statuses": integer(), "matched": integer(), "messages": integer(),
				"opted_out": integer()}, "statuses", "matched", "messages", "opted_out"))},
			errs: cat(errBody, []string{"401 signature_refused / signature_invalid", "404 not_found"})},
	}
}
