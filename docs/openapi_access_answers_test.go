package docs_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"mime/multipart"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/app/core/marketplace"
	"reviewd/app/platform/platformtest"
	"reviewd/app/sendtest"
	"reviewd/docs"
)

// accessAnswerPrefixes are the paths whose operations TestOpenAPIAccessAnswers
// validates (covered() leaves them to it).
var accessAnswerPrefixes = []string{"/admin/v1/users", "/admin/v1/session/password", "/admin/v1/keys", "/admin/v1/secrets", "/admin/v1/channels",
	"/admin/v1/channel-requests", "/admin/v1/marketplace/", "/admin/v1/product-feeds", "/v1/ingest/products"}

var reSetPasswordLink = regexp.MustCompile(`/panel/password#token=([A-Za-z0-9_-]+)`)

// TestOpenAPIAccessAnswers checks the answers of members and passwords, keys,
// channels with their domains and requests, product ingest, product feeds and
// marketplace connections against the document, with a real panel session, real
// keys, e-mails received by the test SMTP server and a domain proved by a file
// served over https; then that every operation under those paths had a success
// answer validated.
func TestOpenAPIAccessAnswers(t *testing.T) {
	var mu sync.Mutex
	proof := ""
	files := platformtest.StartTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/.well-known/service-verification.txt" || proof == "" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(proof))
	}), "brand.example", "feeds.brand.example")
	f := &flow{t: t, v: newValidator(t, docs.OpenAPI), env: apptest.New(t, cli.TestSurfaces), checked: map[string]bool{}}
	env, do := f.env, f.do
	env.App.SetOutbound(files.Client)
	smtp := sendtest.StartSMTP(t)
	env.App.SetMailer(smtp.Mailer())
	env.Channel("web", "TR", "tr")
	server := map[string]string{"Authorization": "Bearer " + env.Key("server", "web")}
	env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: "Amber-Kettle-Lighthouse-42"})
	panel := f.signIn("olcay", "Amber-Kettle-Lighthouse-42")
	linkOf := func(to string, n int) string {
		t.Helper()
		var token string
		apptest.Eventually(t, fmt.Sprintf("e-mail %d to %s", n, to), 10*time.Second, func() (bool, string) {
			seen := 0
			for _, m := range smtp.Messages() {
				if len(m.To) > 0 && m.To[0] == to {
					if seen++; seen == n {
						if mt := reSetPasswordLink.FindStringSubmatch(m.Text); mt != nil {
							token = mt[1]
							return true, ""
						}
					}
				}
			}
			return false, fmt.Sprintf("%d messages", len(smtp.Messages()))
		})
		return token
	}

	// Members and passwords.
	do("GET", "/admin/v1/users", nil, panel, 200)
	member := do("POST", "/admin/v1/users", map[string]any{"username": "mert", "email": "mert@shop.example", "role": "moderator"}, panel, 201)
	uid := fmt.Sprint(member.JSON["id"])
	do("POST", "/admin/v1/users", map[string]any{"username": "mert", "email": "mert2@shop.example", "role": "viewer"}, panel, 400)
	do("POST", "/admin/v1/users", map[string]any{"username": "deniz", "role": "viewer"}, panel, 400)
	do("PATCH", "/admin/v1/users/"+uid, map[string]any{"role": "viewer"}, panel, 200)
	do("PATCH", "/admin/v1/users/"+uid, map[string]any{"email": "m@shop.example"}, panel, 403)
	do("POST", "/admin/v1/users/"+uid+"/password-link", nil, panel, 202)
	do("POST", "/admin/v1/session/password-reset", map[string]any{"email": "nobody@shop.example"}, nil, 202)
	do("POST", "/admin/v1/session/password-reset", map[string]any{}, nil, 400)
	do("POST", "/admin/v1/session/password-reset", map[string]any{"email": "mert@shop.example"}, nil, 202)
	token := linkOf("mert@shop.example", 3) // added, link sent again, reset
	do("POST", "/admin/v1/session/password", map[string]any{"token": token, "password": "password"}, nil, 400)
	do("POST", "/admin/v1/session/password", map[string]any{"token": token, "password": "Velvet-Harbour-Compass-19"}, nil, 200)
	do("POST", "/admin/v1/session/password", map[string]any{"token": token, "password": "Velvet-Harbour-Compass-19"}, nil, 400)
	mert := f.signIn("mert", "Velvet-Harbour-Compass-19")
	do("POST", "/admin/v1/session/password-change", map[string]any{"current_password": "wrong", "password": "Orchid-Quarry-Lantern-63"}, mert, 400)
	do("POST", "/admin/v1/session/password-change", map[string]any{"current_password": "Velvet-Harbour-Compass-19",
		"password": "Orchid-Quarry-Lantern-63"}, mert, 200)
	do("DELETE", "/admin/v1/users/"+uid, nil, panel, 204)
	do("DELETE", "/admin/v1/users/"+uid, nil, panel, 404)

	// Keys: site keys in the panel, server and API keys through the channels route.
	site := do("POST", "/admin/v1/keys", map[string]any{"kind": "site", "channel": "web", "label": "store pages"}, panel, 201)
	do("POST", "/admin/v1/keys", map[string]any{"kind": "server", "channel": "web"}, panel, 400)
	do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "shop server", "channel": "web"}, panel, 201)
	api := do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "reporting", "scopes": []string{"read", "export"}}, panel, 201)
	do("POST", "/admin/v1/channels", map[string]any{"kind": "api_key", "label": "x", "scopes": []string{"write"}}, panel, 400)
	do("GET", "/admin/v1/reviews", nil, map[string]string{"Authorization": "Api-Key " + api.JSON["key"].(string)}, 200)
	do("GET", "/admin/v1/keys", nil, map[string]string{"Authorization": "Api-Key " + api.JSON["key"].(string)}, 403)
	do("GET", "/admin/v1/keys", nil, panel, 200)
	do("DELETE", "/admin/v1/keys/"+site.JSON["id"].(string), nil, panel, 204)
	do("DELETE", "/admin/v1/keys/key_0000000000000000", nil, panel, 404)

	// Signing and mail-event passwords.
	pw := do("POST", "/admin/v1/secrets", map[string]any{"purpose": "signing", "channel": "web"}, panel, 201)
	do("POST", "/admin/v1/secrets", map[string]any{"purpose": "signing"}, panel, 400)
	do("GET", "/admin/v1/secrets", nil, panel, 200)
	do("DELETE", "/admin/v1/secrets/"+pw.JSON["id"].(string), nil, panel, 204)
	do("DELETE", "/admin/v1/secrets/pw_0000000000000000", nil, panel, 404)

	// Channels, a domain proved by a file, channel requests.
	do("POST", "/admin/v1/channels", map[string]any{"code": "web-gb", "label": "United Kingdom", "market": "GB", "language": "en",
		"brand_name": "Acme", "privacy_url": "https://shop.example/privacy"}, panel, 201)
	do("POST", "/admin/v1/channels", map[string]any{"code": "web-gb", "label": "Again", "market": "GB", "language": "en", "brand_name": "Acme"}, panel, 409)
	do("GET", "/admin/v1/channels", nil, panel, 200)
	do("PATCH", "/admin/v1/channels/web-gb", map[string]any{"label": "UK store", "support_url": "https://shop.example/help"}, panel, 200)
	do("PATCH", "/admin/v1/channels/web-gb", map[string]any{"active": false}, panel, 200)
	do("PATCH", "/admin/v1/channels/web-gb", map[string]any{"support_url": "http://shop.example/help"}, panel, 400)
	dom := do("POST", "/admin/v1/channels/web-gb/domains", map[string]any{"domain": "brand.example"}, panel, 201)
	do("POST", "/admin/v1/channels/web-gb/domains/brand.example/verify", map[string]any{"method": "file"}, panel, 400)
	mu.Lock()
	proof = dom.JSON["token"].(string)
	mu.Unlock()
	do("POST", "/admin/v1/channels/web-gb/domains/brand.example/verify", map[string]any{"method": "file"}, panel, 200)
	do("PATCH", "/admin/v1/channels/web-gb", map[string]any{"landing_url": "https://brand.example/review"}, panel, 200)
	do("DELETE", "/admin/v1/channels/web-gb/domains/brand.example", nil, panel, 409)
	do("PATCH", "/admin/v1/channels/web-gb", map[string]any{"landing_url": ""}, panel, 200)
	do("DELETE", "/admin/v1/channels/web-gb/domains/brand.example", nil, panel, 204)
	do("DELETE", "/admin/v1/channels/web-gb", nil, panel, 204)
	do("POST", "/admin/v1/channel-requests", map[string]any{"market": "DE", "label": "Germany", "note": "launch in spring"}, panel, 201)
	do("POST", "/admin/v1/channel-requests", map[string]any{"market": "FR", "label": "France"}, panel, 409)

	// Products posted by the store server, and product feeds.
	do("POST", "/v1/ingest/products", map[string]any{"products": []any{
		map[string]any{"variant_key": "MUG-BLUE", "group_key": "MUG", "name": "Blue mug", "gtin": "8690000000011"},
		map[string]any{"variant_key": "MUG-RED", "group_key": "MUG", "name": "Red mug", "catalog_id": "C-RED"}}}, server, 200)
	do("POST", "/v1/ingest/products", map[string]any{"variant_key": "LAMP", "name": "Desk lamp"}, server, 200)
	do("POST", "/v1/ingest/products", map[string]any{"name": "no key"}, server, 400)
	feed := do("POST", "/admin/v1/product-feeds", map[string]any{"url": "https://feeds.brand.example/products.json", "format": "json"}, panel, 201)
	do("POST", "/admin/v1/product-feeds", map[string]any{"url": "http://feeds.brand.example/products.json", "format": "json"}, panel, 400)
	do("GET", "/admin/v1/product-feeds", nil, panel, 200)
	do("DELETE", "/admin/v1/product-feeds/"+feed.JSON["id"].(string), nil, panel, 204)

	// Marketplace connections: a file checked and read, its reviews listed and one
	// removed; a connection without reviews deleted.
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write(marketplace.Columns)
	_ = w.WriteAll([][]string{
		{"R-1", "8690000000011", "5", "Harika", "Çok güzel bir kupa, tavsiye ederim.", "Ayşe K.", "2026-05-01", "", "", "S-1"},
		{"R-2", "C-RED", "4", "Güzel", "Kırmızısı çok canlı.", "Zeynep", "2026-05-02", "", "", "S-1"},
		{"R-3", "9999999999999", "2", "", "Kırık geldi.", "Ali", "", "", "", ""},
	})
	upload := func(path string, status int) apptest.Response {
		t.Helper()
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("file", "export.csv")
		_, _ = fw.Write(buf.Bytes())
		_ = mw.Close()
		h := map[string]string{"Content-Type": mw.FormDataContentType()}
		for k, v := range panel {
			h[k] = v
		}
		return do("POST", path, body.Bytes(), h, status)
	}
	src := do("POST", "/admin/v1/marketplace/sources", map[string]any{"platform": "trendyol", "channel": "web", "seller_id": "S-1", "route": "file"}, panel, 201)
	sid := src.JSON["id"].(string)
	do("POST", "/admin/v1/marketplace/sources", map[string]any{"platform": "trendyol", "channel": "web", "seller_id": "S-1", "route": "file"}, panel, 409)
	other := do("POST", "/admin/v1/marketplace/sources", map[string]any{"platform": "n11", "channel": "web", "seller_id": "N-1", "route": "feed",
		"feed_url": "https://feeds.brand.example/n11.json", "secret": "feed-secret"}, panel, 201)
	do("GET", "/admin/v1/marketplace/sources", nil, panel, 200)
	do("GET", "/admin/v1/marketplace/sources/"+sid, nil, panel, 200)
	do("PATCH", "/admin/v1/marketplace/sources/"+sid, map[string]any{"enabled": false}, panel, 200)
	do("PATCH", "/admin/v1/marketplace/sources/"+sid, map[string]any{"seller_id": "S-2"}, panel, 400)
	upload("/admin/v1/marketplace/sources/"+sid+"/runs", 409) // paused
	do("PATCH", "/admin/v1/marketplace/sources/"+sid, map[string]any{"enabled": true}, panel, 200)
	upload("/admin/v1/marketplace/sources/"+sid+"/check", 200)
	upload("/admin/v1/marketplace/sources/"+sid+"/runs", 202)
	apptest.Eventually(t, "the marketplace read to end", 2*time.Minute, func() (bool, string) {
		res := env.Do("GET", "/admin/v1/marketplace/sources/"+sid+"/runs", nil, panel)
		items, _ := res.JSON["items"].([]any)
		if len(items) == 0 {
			return false, res.String()
		}
		s := items[0].(map[string]any)["state"]
		return s != "queued" && s != "running", fmt.Sprint(s)
	})
	do("GET", "/admin/v1/marketplace/sources/"+sid+"/runs", nil, panel, 200)
	imported := do("GET", "/admin/v1/marketplace/imported-reviews?platform=trendyol", nil, panel, 200)
	items, _ := imported.JSON["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("imported reviews: %s", imported)
	}
	rid := items[0].(map[string]any)["id"].(string)
	do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": []string{rid}, "note": "the buyer asked"}, panel, 201)
	do("POST", "/admin/v1/marketplace/removals", map[string]any{"reviews": []string{}}, panel, 400)
	do("DELETE", "/admin/v1/marketplace/sources/"+sid, nil, panel, 409)
	do("DELETE", "/admin/v1/marketplace/sources/"+other.JSON["id"].(string), nil, panel, 204)

	// Every operation under these paths had a success answer validated.
	var missing []string
	for _, m := range []string{"get", "post", "put", "patch", "delete"} {
		for _, p := range f.paths(m) {
			if !elsewhereOf(prefixSet(accessAnswerPrefixes), p) {
				continue
			}
			op, hit := strings.ToUpper(m)+" "+p, false
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
		t.Errorf("%s: no success answer of this operation was validated against the document", op)
	}
}

func prefixSet(prefixes []string) map[string]string {
	m := map[string]string{}
	for _, p := range prefixes {
		m[p] = ""
	}
	return m
}
