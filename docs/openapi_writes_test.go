package docs_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	stdjson "encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"reviewd/app/apptest"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/platform/platformtest"
	"reviewd/app/storefront"
	"reviewd/docs"
	"reviewd/store"
)

// writes continues the flow of TestOpenAPIAnswers with the routes that change
// something: a panel session with two-step sign-in, settings, terms, rating-topic
// lists, market rules, method statements, order connections, questions and
// answers, media, corrections, mail events and opt-outs. server, site and api are
// the keys of channel web.
func (f *flow) writes(server, site, api string) {
	t, env, do := f.t, f.env, f.do
	ctx := context.Background()
	bearer := map[string]string{"Authorization": "Bearer " + server}
	admin := map[string]string{"Authorization": "Api-Key " + api}
	siteW := map[string]string{"Origin": "https://shop.example", "X-Service-Site-Key": site}

	// An owner's panel session, then two-step sign-in turned on and used.
	env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: "Amber-Kettle-Lighthouse-42"})
	panel := f.signIn("olcay", "Amber-Kettle-Lighthouse-42")
	do("GET", "/admin/v1/session/second-step", nil, panel, 200)
	setup := do("POST", "/admin/v1/session/second-step", nil, panel, 200)
	secret, _ := setup.JSON["secret"].(string)
	do("POST", "/admin/v1/session/second-step/confirm", map[string]any{"passcode": "000000"}, panel, 400)
	do("POST", "/admin/v1/session/second-step/confirm", map[string]any{"passcode": passcode(t, secret, env.Clock.T)}, panel, 200)
	do("DELETE", "/admin/v1/session", nil, panel, 204)
	first := do("POST", "/admin/v1/session", map[string]any{"username": "olcay", "password": "Amber-Kettle-Lighthouse-42"}, nil, 200)
	if first.JSON["step"] != "second_step" {
		t.Fatalf("sign-in with two-step on: want step second_step, got %s", first)
	}
	pending := map[string]string{"Cookie": cookieOf(t, first)}
	env.Clock.Advance(time.Minute) // a passcode is good once: the next one
	in := do("POST", "/admin/v1/session/passcode", map[string]any{"passcode": passcode(t, secret, env.Clock.T)}, pending, 200)
	panel = map[string]string{"Cookie": cookieOf(t, in), "X-Service-CSRF": fmt.Sprint(in.JSON["csrf_token"])}
	env.Clock.Advance(time.Minute)
	do("POST", "/admin/v1/session/second-step/off", map[string]any{"passcode": passcode(t, secret, env.Clock.T)}, panel, 200)
	do("POST", "/admin/v1/session/email-change", map[string]any{"current": "wrong", "email": "o@shop.example"}, panel, 400)
	do("POST", "/admin/v1/session/email-change", map[string]any{"current": "Amber-Kettle-Lighthouse-42", "email": "olcay.k@shop.example"}, panel, 200)

	// Settings and the notification password.
	do("POST", "/admin/v1/settings", map[string]any{"invite_delay_days": 3, "questions_enabled": true}, admin, 200)
	do("POST", "/admin/v1/settings", map[string]any{"invite_delay_days": "soon"}, admin, 400)
	do("POST", "/admin/v1/settings/webhook-secret", nil, panel, 201)

	// Blocked terms.
	one := do("POST", "/admin/v1/terms", map[string]any{"pattern": "acme\\s+outlet", "label": "competitor"}, admin, 201)
	do("POST", "/admin/v1/terms", map[string]any{"terms": []any{"cheap copies", map[string]any{"pattern": "fake\\s+shop", "label": "fraud"}}}, admin, 200)
	terms := do("GET", "/admin/v1/terms", nil, admin, 200)
	if items, _ := terms.JSON["items"].([]any); len(items) == 2 {
		id, _ := items[0].(map[string]any)["id"].(string)
		do("DELETE", "/admin/v1/terms/"+id, nil, admin, 204)
	} else {
		t.Fatalf("terms after replacing the list: %s (added %s)", terms, one)
	}

	// Rating-topic lists.
	aspects := []any{map[string]any{"key": "warmth", "kind": "rating", "scale": 5, "label": map[string]any{"en": "Warmth", "tr": "Sıcaklık"},
		"steps": map[string]any{"en": []string{"Cold", "Cool", "Warm", "Hot", "Very hot"}, "tr": []string{"Soğuk", "Serin", "Ilık", "Sıcak", "Çok sıcak"}}}}
	made := do("POST", "/admin/v1/aspect-templates", map[string]any{"name": "Mugs", "aspects": aspects}, admin, 201)
	key, _ := made.JSON["key"].(string)
	do("POST", "/admin/v1/aspect-templates", map[string]any{"key": key, "name": "Mugs and cups"}, admin, 200)
	do("POST", "/admin/v1/aspect-templates", map[string]any{"key": "general", "name": "Mine"}, admin, 409)
	do("POST", "/admin/v1/aspect-templates/retire", map[string]any{"key": key}, admin, 200)

	// Market rules (panel only) and method statements.
	do("POST", "/admin/v1/policies", map[string]any{"market": "TR", "review_window_days": 120}, panel, 201)
	do("POST", "/admin/v1/policies", map[string]any{"market": "TR", "review_window_days": 2}, panel, 400)
	stmt := do("GET", "/admin/v1/method-statement?channel=web&lang=tr", nil, admin, 200)
	do("POST", "/admin/v1/method-statement", map[string]any{"channel": "web", "language": "tr", "external_url": ""}, admin, 200)
	fp := findString(stmt.JSON, "current_fingerprint")
	do("POST", "/admin/v1/method-statement/confirm", map[string]any{"channel": "web", "language": "tr", "fingerprint": "0"}, admin, 409)
	do("POST", "/admin/v1/method-statement/confirm", map[string]any{"channel": "web", "language": "tr", "fingerprint": fp}, admin, 200)

	// An order connection against the Shopify fake.
	shop := platformtest.StartShopify(t)
	env.App.SetOutbound(shop.Client)
	shop.SetOrders(platformtest.Fixture(t, platformtest.ShopifyFixture))
	conn := map[string]any{"platform": "shopify", "channel": "web", "base_url": platformtest.ShopifyHost,
		"client_id": shop.ClientID, "client_secret": shop.ClientSecret}
	do("POST", "/admin/v1/order-sources/check", conn, panel, 200)
	src := do("POST", "/admin/v1/order-sources", conn, panel, 201)
	do("POST", "/admin/v1/order-sources", conn, panel, 409)
	sid, _ := src.JSON["id"].(string)
	do("GET", "/admin/v1/order-sources", nil, panel, 200)
	do("GET", "/admin/v1/order-sources/"+sid, nil, panel, 200)
	do("PATCH", "/admin/v1/order-sources/"+sid, map[string]any{"interval_minutes": 30}, panel, 200)
	do("POST", "/admin/v1/order-sources/"+sid+"/check", nil, panel, 200)
	do("POST", "/admin/v1/order-sources/"+sid+"/run", nil, panel, 202)
	do("GET", "/admin/v1/diagnostics", nil, admin, 200)
	do("DELETE", "/admin/v1/order-sources/"+sid, nil, panel, 204)
	do("GET", "/admin/v1/order-sources/"+sid, nil, panel, 404)

	// A second order, reviewed under manual publishing: one review with a photo
	// approved, one rejected and corrected.
	if _, err := env.App.Brand.UpdateSettings(ctx, core.Console(), map[string]stdjson.RawMessage{
		"publishing_method": stdjson.RawMessage(`"manual"`)}); err != nil {
		t.Fatal(err)
	}
	do("POST", "/v1/ingest/orders", map[string]any{"channel": "web", "external_id": "B-1", "payment_state": "paid",
		"placed_at": "2026-05-20T09:00:00+03:00", "customer_email": "baris@example.com", "items": []any{
			map[string]any{"line_reference": "1", "variant_key": "SKU-2", "title": "Teapot", "quantity": 1},
			map[string]any{"line_reference": "2", "variant_key": "SKU-3", "title": "Cup", "quantity": 1}}}, bearer, 200)
	do("POST", "/v1/ingest/deliveries", map[string]any{"deliveries": []any{
		map[string]any{"external_id": "B-1", "line_reference": "1", "state": "delivered", "observed_at": "2026-05-22T09:00:00Z"},
		map[string]any{"external_id": "B-1", "line_reference": "2", "state": "delivered", "observed_at": "2026-05-22T09:00:00Z"}}}, bearer, 200)
	el := do("POST", "/v1/eligibility", map[string]any{"order": "B-1", "email": "baris@example.com"}, siteW, 200)
	token, _ := el.JSON["token"].(string)
	do("POST", "/v1/eligibility/token", map[string]any{"token": token}, siteW, 200)
	do("POST", "/v1/eligibility/token", map[string]any{"token": "nope"}, siteW, 403)
	up := f.upload(siteW, token, "1", photo(t))
	mid, _ := up.JSON["id"].(string)
	written := do("POST", "/v1/reviews", map[string]any{"token": token, "reviews": []any{
		map[string]any{"line_reference": "1", "rating": 5, "title": "Lovely teapot", "body": "Pours well and keeps the tea hot.", "media": []string{mid}},
		map[string]any{"line_reference": "2", "rating": 2, "title": "Small cup", "body": "Smaller than the photos suggest."}}}, siteW, 201)
	ids := map[string]string{}
	for _, r := range written.JSON["reviews"].([]any) {
		row := r.(map[string]any)
		ids[fmt.Sprint(row["line_reference"])], _ = row["id"].(string)
	}
	withPhoto, rejected := ids["1"], ids["2"]
	if withPhoto == "" || rejected == "" {
		t.Fatalf("want two written reviews, got %s", written)
	}
	do("POST", "/admin/v1/reviews/"+withPhoto+"/transition", map[string]any{"event": "approve"}, admin, 200)
	do("POST", "/admin/v1/reviews/"+rejected+"/transition", map[string]any{"event": "reject", "reason": "off_topic"}, admin, 200)
	if _, err := env.App.Reviews.ProcessMedia(ctx, env.Clock.T, 10); err != nil {
		t.Fatal(err)
	}
	file := "/media/" + mid + "/image-640.jpg"
	do("GET", file, nil, nil, 200)
	do("GET", file, nil, map[string]string{"Range": "bytes=0-99"}, 206)
	do("GET", file, nil, map[string]string{"Range": "bytes=99999999-"}, 416)
	do("HEAD", file, nil, nil, 200)
	do("GET", "/admin/v1/reviews/"+withPhoto+"/media/"+mid+"/image-640.jpg", nil, admin, 200)
	do("POST", "/v1/views", map[string]any{"product": "SKU-2", "scope": "variant", "shown": 1}, map[string]string{"Origin": "https://shop.example",
		"X-Service-Site-Key": site, "Content-Type": "text/plain"}, 204)
	do("POST", "/v1/reviews/"+withPhoto+"/report", map[string]any{"reason": "spam", "visitor_key": "v2"}, siteW, 201)
	do("DELETE", "/admin/v1/reviews/"+withPhoto+"/media/"+mid, map[string]any{"reason": "personal_data"}, admin, 204)
	do("GET", file, nil, nil, 404)

	var correction string
	if err := env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		r, err := tx.ReviewByPublicID(ctx, rejected)
		if err != nil {
			return err
		}
		link, err := env.App.Reviews.IssueCorrectionLink(ctx, tx, r.ID)
		_, correction, _ = strings.Cut(link, "#review_token=")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	do("POST", "/v1/reviews/revise", map[string]any{"token": correction, "rating": 3, "title": "Small but sturdy cup",
		"body": "Smaller than I thought, but well made."}, siteW, 200)
	do("POST", "/v1/reviews/revise", map[string]any{"token": "nope", "rating": 3}, siteW, 403)

	// Questions and answers: a brand answer, moderation of both.
	asked := do("POST", "/v1/questions", map[string]any{"product": "SKU-2", "body": "Does the lid stay on when pouring?",
		"name": "Barış", "email": "baris@example.com"}, siteW, 201)
	qid, _ := asked.JSON["id"].(string)
	if q := do("GET", "/admin/v1/questions/"+qid, nil, admin, 200); q.JSON["state"] != "published" {
		do("POST", "/admin/v1/questions/"+qid+"/transition", map[string]any{"event": "approve"}, admin, 200)
	}
	ans := do("POST", "/admin/v1/questions/"+qid+"/answer", map[string]any{"body": "Yes, the lid locks with a quarter turn."}, admin, 201)
	aid, _ := ans.JSON["id"].(string)
	do("POST", "/admin/v1/answers/"+aid+"/transition", map[string]any{"event": "hide", "reason": "other"}, admin, 200)
	do("POST", "/admin/v1/questions/"+qid+"/transition", map[string]any{"event": "hide", "reason": "other"}, admin, 200)
	do("POST", "/admin/v1/questions/"+qid+"/transition", map[string]any{"event": "hide", "reason": "other"}, admin, 409)

	// Invitations, opt-outs and mail events.
	do("POST", "/admin/v1/invites/retry", map[string]any{"channel": "web"}, admin, 200)
	do("GET", "/admin/v1/opt-outs/export", nil, admin, 200)
	do("GET", "/admin/v1/opt-outs/export?format=json", nil, admin, 200)
	do("GET", "/admin/v1/opt-outs/export?format=xlsx", nil, admin, 200)
	do("GET", "/admin/v1/reviews?export=csv", nil, admin, 200)
	do("GET", "/admin/v1/reviews?export=xlsx", nil, admin, 200)
	do("GET", "/admin/v1/reviews/"+rejected+"/trace?format=csv", nil, admin, 200)
	unsub := url.QueryEscape(env.App.Sending.UnsubscribeToken("email", "tr", "baris@example.com"))
	do("GET", "/v1/unsubscribe?t="+unsub, nil, nil, 200)
	do("POST", "/v1/unsubscribe?t="+unsub, nil, nil, 200)
	pid, psecret := env.Password("mail_events", "")
	events := `{"events":[{"type":"delivered","event_id":"e-1","message_id":"<m-1@reviewd.test>","address":"baris@example.com","occurred_at":"2026-06-01T09:00:00Z"}]}`
	ts := env.Clock.T.Format(time.RFC3339)
	mac := hmac.New(sha256.New, []byte(psecret))
	mac.Write([]byte(ts + "." + events))
	do("POST", "/v1/mail-events/generic", events, map[string]string{"X-Service-Secret": pid, "X-Service-Timestamp": ts,
		"X-Service-Signature": hex.EncodeToString(mac.Sum(nil))}, 200)
	code, err := env.App.Sending.MailAccessCode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	do("POST", "/v1/mail-events/postmark/"+code, `{"RecordType":"Delivery","MessageID":"pm-1","Recipient":"baris@example.com",`+
		`"DeliveredAt":"2026-06-01T09:00:00Z","Details":"250 ok","Metadata":{}}`, nil, 200)

	// The page script's files, and every cross-origin preflight.
	loader := storefront.WidgetAssetPath("reviews.js")
	do("GET", loader, nil, nil, 200)
	do("HEAD", loader, nil, nil, 200)
	do("GET", "/assets/0000000000000000/reviews.css", nil, nil, 200) // an old page's hash gets the running version
	for _, p := range f.paths("options") {
		path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllStringFunc(p, func(v string) string {
			switch v {
			case "{hash}":
				return storefront.AssetHash
			case "{file}":
				if strings.HasPrefix(p, "/media") {
					return "image-640.jpg"
				}
				return "reviews.js"
			case "{id}":
				if strings.HasPrefix(p, "/v1/questions") {
					return qid
				}
				if strings.HasPrefix(p, "/media") {
					return mid
				}
				return withPhoto
			}
			return "x"
		})
		do("OPTIONS", path, nil, map[string]string{"Origin": "https://shop.example", "Access-Control-Request-Method": "POST"}, 204)
	}
}

// covered fails for every operation of the document that no validated answer of
// the flow reached with a success status, except those named here with the
// reason they are left to other tests.
func (f *flow) covered() {
	f.t.Helper()
	skip := map[string]string{
		"POST /v1/questions/{id}/answers": "a buyer's answer needs the answer token of the question e-mail (app/storefront tests)",
	}
	// Operations whose answers another test of this package validates.
	elsewhere := map[string]string{
		"/admin/v1/subject-requests": "TestOpenAPIPrivacyAnswers", "/admin/v1/access-log": "TestOpenAPIPrivacyAnswers",
		"/admin/v1/audit-":                       "TestOpenAPIPrivacyAnswers",
		"/admin/v1/reviews/{id}/seller-response": "TestOpenAPIRepliesAnswers", "/admin/v1/reviews/{id}/resolution": "TestOpenAPIRepliesAnswers",
		"/admin/v1/invite-templates": "TestOpenAPIRepliesAnswers", "/admin/v1/brand-export": "TestOpenAPIRepliesAnswers",
		"/admin/v1/review-feeds": "TestOpenAPIFiguresAnswers", "/admin/v1/shared-review-feeds/": "TestOpenAPIFiguresAnswers",
		"/admin/v1/metrics": "TestOpenAPIFiguresAnswers", "/admin/v1/insights": "TestOpenAPIFiguresAnswers",
		"/admin/v1/overview": "TestOpenAPIFiguresAnswers", "/admin/v1/ai": "TestOpenAPIAIAnswers",
		"/panel/": "HTML pages for people: app/panel and the browser tests", "/admin/reviews/": "a redirect into the panel: app/panel tests",
	}
	for _, p := range accessAnswerPrefixes {
		elsewhere[p] = "TestOpenAPIAccessAnswers"
	}
	var missing []string
	for _, m := range []string{"get", "head", "post", "put", "patch", "delete", "options"} {
		for _, p := range f.paths(m) {
			op := strings.ToUpper(m) + " " + p
			if _, ok := skip[op]; ok {
				continue
			}
			if elsewhereOf(elsewhere, p) {
				continue
			}
			hit := false
			for k := range f.checked {
				if st, ok := strings.CutPrefix(k, op+" "); ok && st < "400" {
					hit = true
				}
			}
			if !hit {
				missing = append(missing, op)
			}
		}
	}
	sort.Strings(missing)
	for _, op := range missing {
		f.t.Errorf("%s: no success answer of this operation was validated against the document", op)
	}
}

func elsewhereOf(m map[string]string, path string) bool {
	for prefix := range m {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}

// paths lists the document's paths that have an operation for method (lower case).
func (f *flow) paths(method string) []string {
	var out []string
	for p, item := range docPaths(f.t) {
		if _, ok := item[method]; ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func docPaths(t *testing.T) map[string]map[string]stdjson.RawMessage {
	var doc struct {
		Paths map[string]map[string]stdjson.RawMessage
	}
	if err := stdjson.Unmarshal(docs.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Paths
}

// templateOf is the document's path template that path falls under for method:
// a literal path before one with parameters.
func templateOf(method, path string) string {
	var doc struct {
		Paths map[string]map[string]stdjson.RawMessage
	}
	if err := stdjson.Unmarshal(docs.OpenAPI, &doc); err != nil {
		return ""
	}
	u, _ := url.Parse(path)
	best, params := "", 99
	for tpl, item := range doc.Paths {
		if _, ok := item[strings.ToLower(method)]; !ok {
			continue
		}
		re := regexp.MustCompile("^" + regexp.MustCompile(`\\\{[^}/]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tpl), "[^/]+") + "$")
		if n := strings.Count(tpl, "{"); re.MatchString(u.Path) && n < params {
			best, params = tpl, n
		}
	}
	return best
}

// signIn opens a panel session and answers the headers that carry it.
func (f *flow) signIn(username, password string) map[string]string {
	f.t.Helper()
	in := f.do("POST", "/admin/v1/session", map[string]any{"username": username, "password": password}, nil, 200)
	return map[string]string{"Cookie": cookieOf(f.t, in), "X-Service-CSRF": fmt.Sprint(in.JSON["csrf_token"])}
}

// upload posts one file to POST /v1/media and wants 201.
func (f *flow) upload(headers map[string]string, token, line string, file []byte) (res apptest.Response) {
	f.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("token", token)
	_ = mw.WriteField("line_reference", line)
	w, _ := mw.CreateFormFile("file", "photo.jpg")
	_, _ = w.Write(file)
	_ = mw.Close()
	h := map[string]string{"Content-Type": mw.FormDataContentType()}
	for k, v := range headers {
		h[k] = v
	}
	return f.do("POST", "/v1/media", buf.Bytes(), h, 201)
}

func cookieOf(t *testing.T, res apptest.Response) string {
	t.Helper()
	for _, c := range (&http.Response{Header: res.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("no session cookie in %s", res)
	return ""
}

func passcode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// findString is the first string value under key anywhere in v.
func findString(v any, key string) string {
	switch x := v.(type) {
	case map[string]any:
		if s, ok := x[key].(string); ok {
			return s
		}
		for _, e := range x {
			if s := findString(e, key); s != "" {
				return s
			}
		}
	case []any:
		for _, e := range x {
			if s := findString(e, key); s != "" {
				return s
			}
		}
	}
	return ""
}

// photo is a 800 x 600 JPEG.
func photo(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := 0; y < 600; y++ {
		for x := 0; x < 800; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 120, 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
