package admin_test

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"reviewd/app"
	"reviewd/app/admin"
	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/ai"
)

// pathSamples fills the path variables of the route table with values that match
// their patterns (and name nothing that exists).
var pathSamples = map[string]string{
	"{id}":                          "r_aaaaaaaaaaaaaaaaaaaa",
	"{file_id}":                     "m_aaaaaaaaaaaaaaaaaaaa",
	"{file_name}":                   "original.jpg",
	"{id:term_[0-9]+}":              "term_999",
	"{id:q_[a-z2-7]{20}}":           "q_aaaaaaaaaaaaaaaaaaaa",
	"{id:a_[a-z2-7]{20}}":           "a_aaaaaaaaaaaaaaaaaaaa",
	"{id:conn_[0-9]+}":              "conn_999",
	"{id:[0-9]+}":                   "999",
	"{id:key_[0-9a-f]{16}}":         "key_0000000000000000",
	"{id:pw_[0-9a-f]{16}}":          "pw_0000000000000000",
	"{code}":                        "nope",
	"{domain}":                      "nope.example",
	"{id:sr_[0-9]+}":                "sr_999",
	"{id:[0-9a-z_]+}":               "x_999",
	"{provider}":                    "generic",
	"{access_code}":                 "x",
	"{hash:[0-9a-f]{16}}":           "0000000000000000",
	"{file:reviews\\.(?:js|css)}":   "reviews.js",
	"{id:af_[0-9]+}":                "af_999",
	"{id:dsr_[0-9]+}":               "dsr_999",
	"{id:mks_[0-9]+}":               "mks_999",
	"{id:pf_[0-9]+}":                "pf_999",
	"{id:tpl_[0-9]+}":               "tpl_999",
	"{id:bx_[0-9]+}":                "bx_999",
	"{id:rf_[0-9]+}":                "rf_999",
	"{id:aireq_[0-9]+}":             "aireq_999",
	"{key:[0-9a-f]{32}}":            "00000000000000000000000000000000",
	"{code:" + channelCodeRe + "}":  "nope",
	"{domain:" + domainNameRe + "}": "nope.example",
}

// The channel code and domain patterns of the route table.
const (
	channelCodeRe = `[A-Za-z0-9][A-Za-z0-9_.-]{0,31}`
	domainNameRe  = `[A-Za-z0-9][A-Za-z0-9.-]{0,252}`
)

var rePathVar = regexp.MustCompile(`\{[^{}]*(\{[0-9,]+\}[^{}]*)*\}`)

func samplePath(t *testing.T, path string) string {
	t.Helper()
	return rePathVar.ReplaceAllStringFunc(path, func(v string) string {
		s, ok := pathSamples[v]
		if !ok {
			t.Fatalf("no sample value for %s in %s; add one to pathSamples", v, path)
		}
		return s
	})
}

// TestRolesRouteByRoute walks the whole admin route table with a panel session of
// each role: a role without the route's permission gets 403 forbidden /
// scope_missing, a role with it gets past the guard (whatever the handler then
// answers to an empty body and unknown ids).
func TestRolesRouteByRoute(t *testing.T) {
	// ai.provider builtin (the default), so the AI package's routes are mounted.
	env := apptest.NewWith(t, cli.TestSurfaces, func(c *app.Config) {
		c.AI = ai.Config{Provider: ai.ProviderBuiltin, DailyRequests: ai.DefaultDailyRequests, MinReviews: ai.DefaultMinReviews}
	})
	env.Channel("web-tr", "TR", "tr")
	env.NoLimits()
	const pw = "Amber-Canyon-63"
	browsers := map[string]*browser{}
	for _, role := range core.Roles {
		env.User(access.NewUser{Username: "m-" + role, Email: role + "@shop.example", Role: role, Password: pw})
		b := newBrowser(t, env)
		expect(t, b.signIn("m-"+role, pw), 200, "")
		browsers[role] = b
	}
	routes := admin.RouteTable()
	checked := 0
	for _, rt := range routes {
		if rt.Open {
			continue
		}
		path := samplePath(t, rt.Path)
		for _, role := range core.Roles {
			b := browsers[role]
			res := b.do(rt.Method, path, map[string]any{}, true)
			allowed := admin.RoleAllows(rt, role)
			switch {
			case !allowed && (res.Status != 403 || res.Code() != "forbidden / scope_missing"):
				t.Errorf("%s %s as %s: want 403 forbidden / scope_missing, got %s", rt.Method, rt.Path, role, res)
			case allowed && (res.Code() == "forbidden / scope_missing" || res.Status == 401 || res.Status >= 500):
				t.Errorf("%s %s as %s: refused a permitted role: %s", rt.Method, rt.Path, role, res)
			}
			checked++
			if rt.Method == "DELETE" && rt.Path == "/admin/v1/session" && allowed {
				expect(t, b.signIn("m-"+role, pw), 200, "")
			}
		}
	}
	if checked < 4*50 {
		t.Fatalf("only %d role and route pairs checked", checked)
	}
}

// TestRolesOfSensitiveRoutes states, apart from the route table, which roles reach
// the member, key, settings and moderation routes (CONTRACT, "Panel session").
func TestRolesOfSensitiveRoutes(t *testing.T) {
	want := map[string]string{
		"GET /admin/v1/users":                            "owner",
		"POST /admin/v1/users":                           "owner",
		"DELETE /admin/v1/users/{id:[0-9]+}":             "owner",
		"POST /admin/v1/users/{id:[0-9]+}/password-link": "owner",
		"GET /admin/v1/keys":                             "owner manager",
		"POST /admin/v1/keys":                            "owner manager",
		"POST /admin/v1/channels":                        "owner manager",
		"POST /admin/v1/settings":                        "owner manager",
		"POST /admin/v1/policies":                        "owner manager",
		"GET /admin/v1/order-sources":                    "owner manager",
		"POST /admin/v1/moderation/bulk":                 "owner manager moderator",
		"GET /admin/v1/reviews/{id}/trace":               "owner manager",
		"GET /admin/v1/reviews":                          "owner manager moderator viewer",
	}
	seen := 0
	for _, rt := range admin.RouteTable() {
		w, ok := want[rt.Method+" "+rt.Path]
		if !ok {
			continue
		}
		seen++
		var got []string
		for _, role := range core.Roles {
			if admin.RoleAllows(rt, role) {
				got = append(got, role)
			}
		}
		if strings.Join(got, " ") != w {
			t.Errorf("%s %s: roles %v, want %s", rt.Method, rt.Path, got, w)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d routes found in the table", seen, len(want))
	}
}

// roleMatrix renders the route table as the permission matrix of docs/decisions.md.
func roleMatrix() string {
	var sb strings.Builder
	sb.WriteString("| method | path | callers | permission | owner | manager | moderator | viewer |\n")
	sb.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, rt := range admin.RouteTable() {
		callers, perm := "panel session", rt.Perm
		switch {
		case rt.Open:
			callers, perm = "anyone", "none"
		case rt.KeyCallable:
			callers = "key or panel session"
		}
		fmt.Fprintf(&sb, "| %s | `%s` | %s | %s |", rt.Method, rt.Path, callers, perm)
		for _, role := range core.Roles {
			mark := "no"
			if rt.Open || admin.RoleAllows(rt, role) {
				mark = "yes"
			}
			fmt.Fprintf(&sb, " %s |", mark)
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// TestRoleMatrixDocumented: docs/decisions.md carries the matrix of the route table
// as it is.
func TestRoleMatrixDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/decisions.md")
	if err != nil {
		t.Fatal(err)
	}
	want := roleMatrix()
	if !strings.Contains(string(doc), want) {
		t.Fatalf("docs/decisions.md does not carry the role matrix of the route table; it should read:\n\n%s", want)
	}
}
