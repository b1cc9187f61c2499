package panel

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/panel/texts"
)

// TestRouteTableMirrorsAdminPermissions holds each panel route's permission equal
// to the permission of the /admin/v1/ route it mirrors: one rule, whichever way a
// user acts.
func TestRouteTableMirrorsAdminPermissions(t *testing.T) { checkMirrors(t) }

// checkMirrors holds each panel route's permission equal to the permission of the
// /admin/v1/ route it names first (read from app/admin/routes.go). Two pages
// differ on purpose: the overview (read) shows each figure only with the
// permission of its admin route, and the queue's review fragment needs the
// queue's permission (moderate), more than the review read it calls.
func checkMirrors(t *testing.T) {
	src, err := os.ReadFile("../admin/routes.go")
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{"channelCode": "code", "domainName": "domain"}
	perms := map[string]string{}
	line := regexp.MustCompile(`\{"([A-Z]+)", "([^"]+)"(?: \+ (\w+) \+ "([^"]*)")?(?: \+ (\w+) \+ "([^"]*)")?, \w+, (core\.Perm\w+|"")`)
	names := map[string]string{"core.PermRead": core.PermRead, "core.PermModerate": core.PermModerate, "core.PermExport": core.PermExport,
		"core.PermWrite": core.PermWrite, "core.PermUsers": core.PermUsers, "core.PermPersonalData": core.PermPersonalData,
		"core.PermMarketRules": core.PermMarketRules, `""`: ""}
	param := regexp.MustCompile(`\{(\w+)(?::[^}]*\})?\}?`)
	for _, m := range line.FindAllStringSubmatch(string(src), -1) {
		path := m[2]
		if m[3] != "" {
			path += "{" + consts[m[3]] + "}" + m[4]
		}
		if m[5] != "" {
			path += "{" + consts[m[5]] + "}" + m[6]
		}
		path = param.ReplaceAllStringFunc(path, func(s string) string { return "{" + strings.SplitN(strings.Trim(s, "{}"), ":", 2)[0] + "}" })
		perms[m[1]+" "+path] = names[m[7]]
	}
	if len(perms) < 80 {
		t.Fatalf("read %d admin routes only", len(perms))
	}
	h := &Handler{}
	for _, rt := range h.routes() {
		if rt.mirrors == "" || rt.perm == "" || rt.path == "/panel/" || rt.path == "/panel/queue/item/{id}" {
			continue
		}
		first := strings.SplitN(rt.mirrors, ",", 2)[0]
		want, ok := perms[first]
		if !ok {
			t.Errorf("%s %s mirrors %q: not in the admin route table", rt.method, rt.path, first)
			continue
		}
		if rt.perm != want {
			t.Errorf("%s %s needs %q, the admin route %s %q", rt.method, rt.path, rt.perm, first, want)
		}
	}
}

// TestMessagesInBothLanguages: every text of the panel exists in tr and en.
func TestMessagesInBothLanguages(t *testing.T) {
	for _, pair := range [][2]string{{"en", "tr"}, {"tr", "en"}} {
		for k := range texts.Messages[pair[0]] {
			if _, ok := texts.Messages[pair[1]][k]; !ok {
				t.Errorf("%q has no %s text", k, pair[1])
			}
		}
	}
}
