package docs_test

import (
	"net/http"
	"strings"
	"testing"

	"reviewd/app/core/access"
)

// TestOpenAPIFiguresAnswers checks the answers of the product-review feeds (the
// definitions in a panel session and the feed at its address, 200 and 304) and of
// the metrics, insights and overview against the document.
func TestOpenAPIFiguresAnswers(t *testing.T) {
	f := newFlow(t)
	env := f.env
	env.Channel("web", "TR", "tr")
	admin := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read")}
	env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: "correct horse battery staple 7"})
	in := f.do("POST", "/admin/v1/session", map[string]any{"username": "olcay", "password": "correct horse battery staple 7"}, nil, 200)
	var cookie string
	for _, c := range (&http.Response{Header: in.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	csrf, _ := in.JSON["csrf_token"].(string)
	panel := map[string]string{"Cookie": cookie, "X-Service-CSRF": csrf}

	created := f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "Google", "channel": "web"}, panel, 201)
	f.do("POST", "/admin/v1/review-feeds", map[string]any{"name": "Google", "channel": "nope"}, panel, 400)
	f.do("GET", "/admin/v1/review-feeds", nil, panel, 200)
	path := strings.TrimPrefix(created.JSON["url"].(string), "http://reviewd.test")
	feed := f.do("GET", path, nil, nil, 200)
	f.do("GET", path, nil, map[string]string{"If-None-Match": feed.Header.Get("ETag")}, 304)
	f.do("GET", strings.Replace(path, "/rf_", "/rf_9", 1), nil, nil, 404)
	f.do("GET", "/admin/v1/metrics?channel=web&period=week", nil, admin, 200)
	f.do("GET", "/admin/v1/metrics?channel=nope", nil, admin, 400)
	f.do("GET", "/admin/v1/insights?market=TR", nil, admin, 200)
	f.do("GET", "/admin/v1/insights?market=GB&channel=web", nil, admin, 400)
	f.do("GET", "/admin/v1/overview", nil, admin, 200)
	f.do("DELETE", "/admin/v1/review-feeds/"+created.JSON["id"].(string), nil, panel, 204)
}
