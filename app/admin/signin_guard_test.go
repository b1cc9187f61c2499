package admin_test

import "testing"

// TestSignInRefusesCrossSiteForms: a page on another site cannot sign a visitor's
// browser into its own account (login CSRF): text/plain forms and cross-site
// Origin or Sec-Fetch-Site are refused; same-origin browsers and plain API
// clients sign in.
func TestSignInRefusesCrossSiteForms(t *testing.T) {
	env := newPanelEnv(t)
	body := `{"username":"` + panelUser + `","password":"` + panelPassword + `"}`
	cases := []struct {
		name    string
		headers map[string]string
		status  int
		want    string
	}{
		{"text/plain form", map[string]string{"Content-Type": "text/plain"}, 400, "invalid_json / invalid_json"},
		{"urlencoded form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 400, "invalid_json / invalid_json"},
		{"no content type", map[string]string{"Content-Type": ""}, 400, "invalid_json / invalid_json"},
		{"cross-site origin", map[string]string{"Origin": "https://evil.example"}, 403, "forbidden / cross_site_request"},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403, "forbidden / cross_site_request"},
		{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site"}, 403, "forbidden / cross_site_request"},
		{"same origin browser", map[string]string{"Origin": env.URL, "Sec-Fetch-Site": "same-origin"}, 200, ""},
		{"API client", nil, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := env.Do("POST", "/admin/v1/session", []byte(body), c.headers)
			expect(t, res, c.status, c.want)
			if c.status == 200 && res.JSON["authenticated"] != true {
				t.Fatalf("not signed in: %s", res.Body)
			}
		})
	}
}
