package docs_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	validator "github.com/pb33f/libopenapi-validator"

	"reviewd/app"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/sendtest"
	"reviewd/docs"
)

// TestOpenAPIAnswers runs a representative flow through the real server
// (ingest, storefront reads, admin lists and details, refusals) and checks every
// answer's status, content type and body against the document's description of
// its route.
func TestOpenAPIAnswers(t *testing.T) {
	f := newFlow(t)
	env, do := f.env, f.do
	env.Channel("web", "TR", "tr")
	server := env.Key("server", "web")
	site := env.Key("site", "web")
	api := env.Key("api", "", "read", "moderate", "export", "write")
	if _, err := env.App.Brand.UpdateSettings(context.Background(), core.Console(), map[string]stdjson.RawMessage{
		"questions_enabled": stdjson.RawMessage(`true`)}); err != nil {
		t.Fatal(err)
	}
	bearer := map[string]string{"Authorization": "Bearer " + server}
	origin := map[string]string{"Origin": "https://shop.example"}
	admin := map[string]string{"Authorization": "Api-Key " + api}
	// Service.
	do("GET", "/healthz", nil, nil, 200)
	res := do("GET", "/openapi.json", nil, nil, 200)
	if res.Header.Get("ETag") == "" || !strings.Contains(res.Header.Get("Cache-Control"), "public") {
		t.Errorf("GET /openapi.json: want ETag and public Cache-Control, got %v", res.Header)
	}
	if !bytes.Equal(res.Body, docs.OpenAPI) {
		t.Errorf("GET /openapi.json does not serve docs/openapi.json")
	}
	do("GET", "/openapi.json", nil, map[string]string{"If-None-Match": res.Header.Get("ETag")}, 304)

	// Ingest.
	order := map[string]any{"channel": "web", "external_id": "A-1", "payment_state": "paid", "placed_at": "2026-05-20T09:00:00+03:00",
		"customer_email": "ayse@example.com",
		"items":          []any{map[string]any{"line_reference": "1", "variant_key": "SKU-1", "title": "Mug", "quantity": 1}}}
	do("POST", "/v1/ingest/orders", order, bearer, 200)
	do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "orders": []any{order}}, bearer, 200)
	do("POST", "/v1/ingest/deliveries", map[string]any{"deliveries": []any{map[string]any{"external_id": "A-1", "line_reference": "1",
		"state": "delivered", "observed_at": "2026-05-22T09:00:00Z"}}}, bearer, 200)
	do("POST", "/v1/ingest/orders", "{", bearer, 400)
	do("POST", "/v1/ingest/orders", map[string]any{"external_id": "A-2"}, bearer, 400)
	do("POST", "/v1/ingest/orders", order, map[string]string{"Authorization": "Bearer nope"}, 401)
	do("POST", "/v1/ingest/orders", order, nil, 401)
	do("POST", "/admin/v1/ingest/check", map[string]any{"kind": "order", "body": order}, nil, 200)
	do("GET", "/admin/v1/ingest/stats", nil, admin, 200)

	// Storefront.
	do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&product=SKU-1", nil, origin, 200)
	do("GET", "/v1/reviews/list?channel=web&product=SKU-1", nil, bearer, 200)
	do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&product=SKU-1&rating=9", nil, origin, 400)
	do("GET", "/v1/reviews/list?key=nope&product=SKU-1", nil, origin, 403)
	do("GET", "/v1/ssr?channel=web&product=SKU-1", nil, bearer, 200)
	do("GET", "/v1/ssr?channel=web&product=SKU-1&style=round", nil, bearer, 400)
	do("GET", "/v1/reviews/badges?key="+url.QueryEscape(site)+"&products=SKU-1,SKU-2", nil, origin, 200)
	do("GET", "/v1/reviews/badges?key="+url.QueryEscape(site)+"&products=", nil, origin, 400)
	do("GET", "/v1/ssr/badges?channel=web&products=SKU-1&theme=night", nil, bearer, 200)
	do("GET", "/v1/reviews/carousel?key="+url.QueryEscape(site), nil, origin, 200)
	do("GET", "/v1/ssr/carousel?channel=web&theme=night", nil, bearer, 200)
	do("GET", "/v1/ssr/carousel?channel=web&theme=pink", nil, bearer, 400)
	do("GET", "/v1/reviews/all?key="+url.QueryEscape(site)+"&rating=5&verified=1", nil, origin, 200)
	do("GET", "/v1/reviews/all?key="+url.QueryEscape(site)+"&rating=9", nil, origin, 400)
	do("GET", "/v1/ssr/all?channel=web&page=2", nil, bearer, 200)
	do("GET", "/v1/questions?key="+url.QueryEscape(site)+"&product=SKU-1", nil, origin, 200)
	q := do("POST", "/v1/questions", map[string]any{"product": "SKU-1", "body": "Is it dishwasher safe?", "name": "Ayşe Yılmaz", "email": "ayse@example.com"},
		map[string]string{"Origin": "https://shop.example", "X-Service-Site-Key": site}, 201)
	do("GET", "/v1/viewer?channel=web&product=SKU-1", nil, map[string]string{"Authorization": "Bearer " + server, "X-Service-Customer": "ayse@example.com"}, 200)
	do("GET", "/v1/viewer/order?channel=web&order=A-1", nil, map[string]string{"Authorization": "Bearer " + server, "X-Service-Customer": "ayse@example.com"}, 200)
	do("GET", "/v1/viewer?key="+url.QueryEscape(site)+"&product=SKU-1", nil, origin, 403)
	siteW := map[string]string{"Origin": "https://shop.example", "X-Service-Site-Key": site}
	do("POST", "/v1/eligibility", map[string]any{"order": "A-9", "email": "ayse@example.com"}, siteW, 403)
	el := do("POST", "/v1/eligibility", map[string]any{"order": "A-1", "email": "ayse@example.com"}, siteW, 200)
	token, _ := el.JSON["token"].(string)
	do("POST", "/v1/reviews", map[string]any{"token": token, "reviews": []any{map[string]any{"line_reference": "1", "rating": 9, "title": "Great mug",
		"body": "Keeps coffee warm for a long time, sturdy handle."}}}, siteW, 400)
	written := do("POST", "/v1/reviews", map[string]any{"token": token, "reviews": []any{map[string]any{"line_reference": "1", "rating": 5,
		"title": "Great mug", "body": "Keeps coffee warm for a long time, sturdy handle.", "author_name": "Ayşe Yılmaz"}}}, siteW, 201)
	rows, _ := written.JSON["reviews"].([]any)
	if len(rows) != 1 {
		t.Fatalf("want one written review, got %s", written)
	}
	reviewID, _ := rows[0].(map[string]any)["id"].(string)
	list := do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&product=SKU-1", nil, origin, 200)
	if n, _ := list.JSON["total"].(float64); n != 1 {
		t.Fatalf("want the written review listed, got %s", list)
	}
	do("GET", "/v1/ssr?channel=web&product=SKU-1", nil, bearer, 200)
	do("POST", "/v1/reviews/"+reviewID+"/helpful", map[string]any{"vote": "up", "visitor_key": "v1"}, siteW, 200)
	do("POST", "/v1/reviews/"+reviewID+"/report", map[string]any{"reason": "nope", "visitor_key": "v1"}, siteW, 400)
	do("POST", "/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa/helpful", map[string]any{"vote": "up", "visitor_key": "v1"}, siteW, 404)
	do("DELETE", "/v1/reviews/list", nil, nil, 405)

	do("GET", "/v1/widget.js", nil, nil, 200)
	do("HEAD", "/v1/widget.js", nil, nil, 200)
	do("OPTIONS", "/v1/reviews/list", nil, map[string]string{"Origin": "https://shop.example", "Access-Control-Request-Method": "GET"}, 204)
	do("GET", "/static/reviews.css", nil, nil, 200)
	do("GET", "/v1/method-statement?key="+url.QueryEscape(site), nil, nil, 200)
	do("GET", "/v1/method-statement.css", nil, nil, 200)
	do("GET", "/media/m_aaaaaaaaaaaaaaaaaaaa/full.jpg", nil, nil, 404)

	// Transparency log: the written review's publication, signed by the job.
	receipt, _ := rows[0].(map[string]any)["receipt"].(string)
	if _, _, err := env.App.Transparency.SignCheckpoint(context.Background()); err != nil {
		t.Fatal(err)
	}
	do("GET", "/v1/transparency/checkpoint", nil, nil, 200)
	do("GET", "/v1/transparency/key", nil, nil, 200)
	do("GET", "/v1/transparency/entries?start=0&end=10", nil, nil, 200)
	do("GET", "/v1/transparency/entries?start=x&end=10", nil, nil, 400)
	do("GET", "/v1/transparency/proof/inclusion?index=0&size=1", nil, nil, 200)
	do("GET", "/v1/transparency/proof/inclusion?index=1&size=1", nil, nil, 400)
	do("GET", "/v1/transparency/proof/consistency?from=1&to=1", nil, nil, 200)
	do("GET", "/v1/transparency/proof/consistency?from=0&to=1", nil, nil, 400)
	do("GET", "/v1/transparency/tile/8/0/000.p/1", nil, nil, 200)
	do("GET", "/v1/transparency/tile/8/data/000.p/1", nil, nil, 200)
	do("GET", "/v1/transparency/tile/8/0/000", nil, nil, 404)
	do("GET", "/v1/transparency/tile/8/0/0", nil, nil, 400)
	do("GET", "/v1/transparency/report", nil, nil, 200)
	do("GET", "/v1/transparency/report?from=nope", nil, nil, 400)
	do("GET", "/v1/transparency/receipt/"+reviewID+"?token="+url.QueryEscape(receipt), nil, nil, 200)
	do("GET", "/v1/transparency/receipt/"+reviewID+"?token=nope", nil, nil, 403)
	do("GET", "/v1/transparency/receipt/"+reviewID, nil, nil, 401)

	// Mail.
	do("POST", "/v1/mail-events/generic", map[string]any{"events": []any{}}, nil, 401)
	do("POST", "/v1/mail-events/sendgrid/nope", []any{}, nil, 404)
	do("GET", "/v1/unsubscribe?t=nope", nil, nil, 400)
	do("POST", "/v1/unsubscribe?t=nope", nil, nil, 400)

	// Admin.
	do("GET", "/admin/v1/whoami", nil, admin, 200)
	do("GET", "/admin/v1/whoami", nil, nil, 401)
	do("GET", "/admin/v1/reviews", nil, admin, 200)
	do("GET", "/admin/v1/reviews/r_aaaaaaaaaaaaaaaaaaaa", nil, admin, 404)
	do("GET", "/admin/v1/reviews/"+reviewID, nil, admin, 200)
	do("PUT", "/admin/v1/reviews/"+reviewID+"/featured", nil, admin, 200)
	do("GET", "/v1/reviews/list?key="+url.QueryEscape(site)+"&product=SKU-1", nil, origin, 200)
	do("GET", "/v1/reviews/carousel?key="+url.QueryEscape(site), nil, origin, 200)
	do("GET", "/v1/ssr/all?channel=web", nil, bearer, 200)
	do("DELETE", "/admin/v1/reviews/"+reviewID+"/featured", nil, admin, 204)
	do("DELETE", "/admin/v1/reviews/"+reviewID+"/featured", nil, admin, 404)
	do("POST", "/admin/v1/reviews/"+reviewID+"/transition", map[string]any{"event": "approve", "reason": "ok"}, admin, 409)
	do("POST", "/admin/v1/reviews/"+reviewID+"/transition", map[string]any{"event": "hide", "reason": "other"}, admin, 200)
	do("GET", "/admin/v1/reviews/"+reviewID+"/trace", nil, admin, 200)
	do("POST", "/admin/v1/reviews/"+reviewID+"/reports/resolve", map[string]any{}, admin, 200)
	do("GET", "/admin/v1/moderation/queue", nil, admin, 200)
	do("GET", "/admin/v1/questions", nil, admin, 200)
	if id, _ := q.JSON["id"].(string); id != "" {
		do("GET", "/admin/v1/questions/"+id, nil, admin, 200)
	}
	do("GET", "/admin/v1/invites", nil, admin, 200)
	do("GET", "/admin/v1/send-logs", nil, admin, 200)
	do("GET", "/admin/v1/reasons", nil, admin, 200)
	do("GET", "/admin/v1/settings", nil, admin, 200)
	do("GET", "/admin/v1/policies", nil, admin, 200)
	do("GET", "/admin/v1/terms", nil, admin, 200)
	do("GET", "/admin/v1/aspect-templates", nil, admin, 200)
	do("GET", "/admin/v1/method-statement", nil, admin, 200)
	do("GET", "/admin/v1/diagnostics", nil, admin, 200)
	do("POST", "/admin/v1/opt-outs/check", map[string]any{"addresses": []string{"ayse@example.com"}}, admin, 200)
	do("POST", "/admin/v1/moderation/bulk", map[string]any{"ids": []string{"r_aaaaaaaaaaaaaaaaaaaa"}, "action": "approve", "reason": "ok"}, admin, 200)
	do("GET", "/admin/v1/order-sources", nil, admin, 403)

	// Panel session: sign-in, the session, CSRF-guarded sign-out.
	env.User(access.NewUser{Username: "ayla", Email: "ayla@shop.example", Role: "moderator", Password: "correct horse battery staple 7"})
	do("POST", "/admin/v1/session", map[string]any{"username": "ayla", "password": "wrong password entirely"}, nil, 401)
	in := do("POST", "/admin/v1/session", map[string]any{"username": "ayla", "password": "correct horse battery staple 7"}, nil, 200)
	var cookie string
	for _, c := range (&http.Response{Header: in.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	csrf, _ := in.JSON["csrf_token"].(string)
	if cookie == "" || csrf == "" {
		t.Fatalf("sign-in set no session cookie or csrf token: %s", in)
	}
	do("GET", "/admin/v1/session", nil, map[string]string{"Cookie": cookie}, 200)
	do("GET", "/admin/v1/reviews", nil, map[string]string{"Cookie": cookie}, 200)
	do("DELETE", "/admin/v1/session", nil, map[string]string{"Cookie": cookie}, 403)
	do("DELETE", "/admin/v1/session", nil, map[string]string{"Cookie": cookie, "X-Service-CSRF": csrf}, 204)
	do("GET", "/admin/v1/session", nil, map[string]string{"Cookie": cookie}, 401)

	// Metrics, mounted when metrics.token is set.
	menv := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) { c.Metrics.Token = "metrics-token" })
	for _, c := range []struct {
		auth   string
		status int
	}{{"", 401}, {"Bearer wrong", 401}, {"Bearer metrics-token", 200}} {
		res := menv.Do("GET", "/metrics", nil, map[string]string{"Authorization": c.auth})
		if res.Status != c.status {
			t.Fatalf("want %d, got %s", c.status, res)
		}
		f.validate("GET", "/metrics", res)
	}

	// The WhatsApp webhook, mounted answering when WhatsApp is configured.
	graph := sendtest.StartGraph(t)
	wenv := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.Outbound = app.Outbound{Resolve: []string{graph.Resolve}, CAFile: graph.CAFile}
		c.WhatsApp = app.WhatsApp{PhoneNumberID: "1", AccessToken: "t", AppSecret: "s", VerifyToken: "v", InviteTemplate: "i",
			APIURL: sendtest.GraphURL}
	})
	wenv.Channel("web", "TR", "tr")
	wenv.User(access.NewUser{Username: "wa", Email: "wa@shop.example", Role: "owner", Password: "Amber-Kettle-Lighthouse-42"})
	win := wenv.Do("POST", "/admin/v1/session", map[string]any{"username": "wa", "password": "Amber-Kettle-Lighthouse-42"}, nil)
	wpanel := map[string]string{"Cookie": cookieOf(t, win), "X-Service-CSRF": fmt.Sprint(win.JSON["csrf_token"])}
	for _, phone := range []string{"0532 123 45 67", "12"} {
		res = wenv.Do("POST", "/admin/v1/settings/whatsapp-test", map[string]any{"phone": phone}, wpanel)
		f.validate("POST", "/admin/v1/settings/whatsapp-test", res)
	}
	wapi := map[string]string{"Authorization": "Api-Key " + wenv.Key("api", "", "read")}
	for _, p := range []string{"/admin/v1/metrics", "/admin/v1/overview"} {
		res = wenv.Do("GET", p, nil, wapi)
		if res.JSON["deliveries"] == nil {
			t.Fatalf("%s: no deliveries with WhatsApp configured: %s", p, res)
		}
		f.validate("GET", p, res)
	}
	res = wenv.Do("GET", "/v1/messaging/whatsapp?hub.mode=subscribe&hub.verify_token=v&hub.challenge=42", nil, nil)
	f.validate("GET", "/v1/messaging/whatsapp", res)
	res = wenv.Do("GET", "/v1/messaging/whatsapp?hub.mode=subscribe&hub.verify_token=w&hub.challenge=42", nil, nil)
	f.validate("GET", "/v1/messaging/whatsapp", res)
	hook := `{"object":"whatsapp_business_account","entry":[]}`
	mac := hmac.New(sha256.New, []byte("s"))
	mac.Write([]byte(hook))
	res = wenv.Do("POST", "/v1/messaging/whatsapp", hook, map[string]string{"X-Hub-Signature-256": "sha256=" + hex.EncodeToString(mac.Sum(nil))})
	f.validate("POST", "/v1/messaging/whatsapp", res)
	res = wenv.Do("POST", "/v1/messaging/whatsapp", hook, nil)
	f.validate("POST", "/v1/messaging/whatsapp", res)

	f.writes(server, site, api)
	f.covered()
}

// flow runs requests against a real server and validates every answer against
// the document; checked holds "METHOD /template STATUS" of each validated answer.
type flow struct {
	t       *testing.T
	v       validator.Validator
	env     *apptest.Env
	checked map[string]bool
}

func newFlow(t *testing.T) *flow {
	return &flow{t: t, v: newValidator(t, docs.OpenAPI), env: apptest.New(t, cli.TestSurfaces), checked: map[string]bool{}}
}

// do sends one request, wants status, and validates the answer: status, content
// type and body against the route's description, and an error's code against the
// codes the document lists for the route and status.
func (f *flow) do(method, path string, body any, headers map[string]string, status int) apptest.Response {
	t := f.t
	t.Helper()
	res := f.env.Do(method, path, body, headers)
	if res.Status != status {
		t.Fatalf("%s %s: want %d, got %s", method, path, status, res)
	}
	f.validate(method, path, res)
	return res
}

func (f *flow) validate(method, path string, res apptest.Response) {
	t := f.t
	t.Helper()
	if rest, ok := strings.CutPrefix(path, "/v1/transparency/tile/"); ok {
		// A tile path spans segments, which an OpenAPI path parameter cannot
		// match: it is validated as one segment.
		path = "/v1/transparency/tile/" + strings.ReplaceAll(rest, "/", "~")
	}
	vm := method
	if res.Status == http.StatusMethodNotAllowed {
		vm = http.MethodGet // a refused method has no operation; every operation of the path documents 405
	}
	req := httptest.NewRequest(vm, f.env.URL+path, nil)
	hr := &http.Response{StatusCode: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)), Request: req}
	if ok, errs := f.v.ValidateHttpResponse(req, hr); !ok {
		for _, e := range errs {
			t.Errorf("%s %s -> %d: %s: %s", method, path, res.Status, e.Message, e.Reason)
			for _, se := range e.SchemaValidationErrors {
				t.Errorf("    %s", se.Reason)
			}
		}
		t.Logf("answer: %s", res)
	}
	if res.Status >= 400 && res.Status != http.StatusMethodNotAllowed && res.JSON != nil {
		if err := codeListed(method, path, res); err != "" {
			t.Error(err)
		}
	}
	if dump := os.Getenv("REVIEWD_OPENAPI_DUMP"); dump != "" && res.Status < 300 {
		f.t.Logf("answer of %s %s: %d %s", method, path, res.Status, res.Body)
	}
	if tpl := templateOf(method, path); tpl != "" {
		f.checked[method+" "+tpl+" "+strconv.Itoa(res.Status)] = true
	}
}

// TestOpenAPIValidatorRefuses makes sure the answer validation is not vacuous: an
// answer with an undocumented status, one without a required field and an error
// body without detail are refused.
func TestOpenAPIValidatorRefuses(t *testing.T) {
	v := newValidator(t, docs.OpenAPI)
	for _, c := range []struct {
		method, path string
		status       int
		body         string
	}{
		{"GET", "/healthz", 418, `{"ok":true,"version":"x","schema_version":1}`},
		{"GET", "/healthz", 200, `{"version":"x","schema_version":1}`},
		{"POST", "/v1/ingest/orders", 200, `{"accepted":"one","orders":[]}`},
		{"POST", "/v1/ingest/orders", 400, `{"error":"invalid"}`},
		{"GET", "/v1/reviews/list", 200, `{"reviews":[{"id":"r_x"}]}`},
	} {
		req := httptest.NewRequest(c.method, "http://reviewd.test"+c.path, nil)
		hr := &http.Response{StatusCode: c.status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(c.body)), Request: req}
		if ok, _ := v.ValidateHttpResponse(req, hr); ok {
			t.Errorf("%s %s -> %d %s passed validation; want refused", c.method, c.path, c.status, c.body)
		}
	}
}

// codeListed checks that an error answer's "error / detail" is among the codes
// the document lists for the operation and status (x-error-codes); a listed code
// ending in "<value>" matches any value, one without a detail matches the error.
func codeListed(method, path string, res apptest.Response) string {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Codes []string `json:"x-error-codes"`
			}
		}
	}
	if err := stdjson.Unmarshal(docs.OpenAPI, &doc); err != nil {
		return err.Error()
	}
	u, _ := url.Parse(path)
	for tpl, item := range doc.Paths {
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\{[^}/]+\\}`).ReplaceAllString(regexp.QuoteMeta(tpl), "[^/]+") + "$")
		if !re.MatchString(u.Path) {
			continue
		}
		o, ok := item[strings.ToLower(method)]
		if !ok {
			continue
		}
		codes := o.Responses[strconv.Itoa(res.Status)].Codes
		got, _ := res.JSON["error"].(string)
		detail, _ := res.JSON["detail"].(string)
		for _, c := range codes {
			e, d, hasDetail := strings.Cut(c, " / ")
			if e != got {
				continue
			}
			if !hasDetail || d == detail {
				return ""
			}
			if i := strings.Index(d, "<"); i >= 0 && strings.HasPrefix(detail, d[:i]) {
				return ""
			}
		}
		return fmt.Sprintf("%s %s -> %d %s / %s: not among the document's codes %v", method, path, res.Status, got, detail, codes)
	}
	return fmt.Sprintf("%s %s: no operation in the document", method, path)
}
