package docs_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/docs"
)

// TestOpenAPIPrivacyAnswers checks the JSON answers of the personal-data requests,
// the access log, the audit log and the audit file against the document.
func TestOpenAPIPrivacyAnswers(t *testing.T) {
	v := newValidator(t, docs.OpenAPI)
	env := apptest.New(t, cli.TestSurfaces)
	env.Channel("web", "TR", "tr")
	admin := map[string]string{"Authorization": "Api-Key " + env.Key("api", "", "read", "export")}
	env.User(access.NewUser{Username: "olcay", Email: "olcay@shop.example", Role: "owner", Password: "correct horse battery staple 7"})
	in := env.Do("POST", "/admin/v1/session", map[string]any{"username": "olcay", "password": "correct horse battery staple 7"}, nil)
	var cookie string
	for _, c := range (&http.Response{Header: in.Header}).Cookies() {
		if c.Name == access.SessionCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	csrf, _ := in.JSON["csrf_token"].(string)
	panel := map[string]string{"Cookie": cookie, "X-Service-CSRF": csrf}

	do := func(method, path string, body any, headers map[string]string, status int) apptest.Response {
		t.Helper()
		res := env.Do(method, path, body, headers)
		if res.Status != status {
			t.Fatalf("want %d, got %s", status, res)
		}
		req := httptest.NewRequest(method, env.URL+path, nil)
		hr := &http.Response{StatusCode: res.Status, Header: res.Header, Body: io.NopCloser(bytes.NewReader(res.Body)), Request: req}
		if ok, errs := v.ValidateHttpResponse(req, hr); !ok {
			for _, e := range errs {
				t.Errorf("%s %s -> %d: %s: %s", method, path, res.Status, e.Message, e.Reason)
				for _, se := range e.SchemaValidationErrors {
					t.Errorf("    %s", se.Reason)
				}
			}
		}
		if res.Status >= 400 {
			if err := codeListed(method, path, res); err != "" {
				t.Error(err)
			}
		}
		return res
	}

	created := do("POST", "/admin/v1/subject-requests", map[string]any{"kind": "access", "identifier": "lena@mail.example"}, panel, 201)
	id, _ := created.JSON["id"].(string)
	do("POST", "/admin/v1/subject-requests", map[string]any{"kind": "access"}, panel, 400)
	do("GET", "/admin/v1/subject-requests", nil, panel, 200)
	do("GET", "/admin/v1/subject-requests", nil, admin, 403)
	do("GET", "/admin/v1/subject-requests/"+id+"?preview=1", nil, panel, 200)
	do("POST", "/admin/v1/subject-requests/"+id+"/copy", map[string]any{"identifier": "lena@mail.example"}, panel, 409)
	do("POST", "/admin/v1/subject-requests/"+id+"/complete", nil, panel, 200)
	do("POST", "/admin/v1/subject-requests/"+id+"/copy", map[string]any{"identifier": "lena@mail.example"}, panel, 200)
	do("POST", "/admin/v1/subject-requests/"+id+"/copy", map[string]any{"identifier": "other@mail.example"}, panel, 400)
	do("POST", "/admin/v1/subject-requests/"+id+"/refuse", map[string]any{"reason": "late"}, panel, 409)
	do("GET", "/admin/v1/subject-requests/dsr_999", nil, panel, 404)
	do("GET", "/admin/v1/access-log", nil, admin, 200)
	do("GET", "/admin/v1/access-log?via=email", nil, admin, 400)
	do("GET", "/admin/v1/audit-log?sessions=1", nil, admin, 200)
	do("POST", "/admin/v1/audit-log/export", map[string]any{"rows": "x"}, admin, 400)
	f := do("POST", "/admin/v1/audit-file", map[string]any{"channel": "web", "start": "2026-05-01", "end": "2026-06-01"}, admin, 201)
	do("POST", "/admin/v1/audit-file", map[string]any{"channel": "web", "market": "GB", "start": "2026-05-01", "end": "2026-06-01"}, admin, 400)
	do("GET", "/admin/v1/audit-file/af_999", nil, admin, 404)
	if res := env.Do("GET", "/admin/v1/audit-file/"+f.JSON["id"].(string), nil, admin); res.Status != 200 || res.Header.Get("X-Service-Fingerprint") == "" {
		t.Fatalf("audit file: %s", res)
	}
}
