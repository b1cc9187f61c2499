package panel_test

import (
	"context"
	"html"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
	"reviewd/assets"
)

// TestThemeSave: the themes page's save form makes the chosen layout and theme
// the channel's own (as PATCH /admin/v1/channels/<code>); the page then shows it
// in use and the component is served in it. A form without CSRF, a viewer's
// forged post and an unknown theme (its text in Turkish) are refused and change
// nothing; a viewer sees no save button.
func TestThemeSave(t *testing.T) {
	f := newFixture(t)
	owner := newBrowser(t, f.env)
	csrf := owner.signIn("olive", "owner-password-1")
	expectPage(t, "site key", owner.do("POST", "/panel/keys", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"site"}}, nil), 200, `id="new-secret"`)
	p := owner.do("GET", "/panel/themes?channel=web&product=SKU-1&theme=night&style=sidebar", nil, nil)
	expectPage(t, "in use", p, 200, "In use on the channel <code>web</code>: Warm · Cards")
	expectPage(t, "save form", p, 200, `<input type="hidden" name="theme" value="night"><input type="hidden" name="style" value="sidebar">`)
	expectPage(t, "save button", p, 200, "Use on the channel: Night · Sidebar</button>")

	save := url.Values{"csrf": {csrf}, "channel": {"web"}, "product": {"SKU-1"}, "theme": {"night"}, "style": {"sidebar"}}
	expectPage(t, "without csrf", owner.do("POST", "/panel/themes", url.Values{"channel": {"web"}, "theme": {"night"}, "style": {"sidebar"}}, nil),
		403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	vp := viewer.do("GET", "/panel/themes?channel=web&product=SKU-1&theme=night", nil, nil)
	expectPage(t, "viewer page", vp, 200, "In use on the channel")
	if strings.Contains(vp.body, "Use on the channel:") {
		t.Fatal("a viewer is offered the save button")
	}
	forged := url.Values{"csrf": {vcsrf}, "channel": {"web"}, "theme": {"night"}, "style": {"sidebar"}}
	expectPage(t, "viewer save", viewer.do("POST", "/panel/themes", forged, nil), 403, "scope_missing")
	bad := url.Values{"csrf": {csrf}, "channel": {"web"}, "theme": {"neon"}, "style": {"sidebar"}}
	expectPage(t, "unknown theme", owner.do("POST", "/panel/themes", bad, map[string]string{"Accept-Language": "tr"}), 400,
		"Bu tema bileşenin sekiz temasından biri değil.")
	bad.Set("theme", "night")
	bad.Set("style", "grid")
	expectPage(t, "unknown layout", owner.do("POST", "/panel/themes", bad, nil), 400, "invalid / review_style")
	if ch, err := f.env.App.DB.Read().ChannelByCode(context.Background(), "web"); err != nil || ch.Style != "cards" || ch.Theme != "warm" {
		t.Fatalf("refused saves changed the channel: %v %s %s", err, ch.Style, ch.Theme)
	}

	posted(t, "save", owner.do("POST", "/panel/themes", save, nil), "/panel/themes?channel=web&product=SKU-1&notice=saved")
	p = owner.do("GET", "/panel/themes?channel=web&product=SKU-1", nil, nil)
	expectPage(t, "saved", p, 200, "In use on the channel <code>web</code>: Night · Sidebar")
	expectPage(t, "preview in the saved look", p, 200, `data-theme="night"`)
	expectPage(t, "nothing to save", p, 200, " disabled>Use on the channel: Night · Sidebar</button>")
	log := owner.do("GET", "/panel/audit-log?action=channel.changed", nil, nil)
	expectPage(t, "activity", log, 200, "channel.changed")
}

// TestThemesWithoutChannel: an unknown channel in the address is refused with
// invalid / channel; a brand without a channel gets the page with the choices and
// a line saying a channel comes first, not an error.
func TestThemesWithoutChannel(t *testing.T) {
	f := newFixture(t)
	owner := newBrowser(t, f.env)
	owner.signIn("olive", "owner-password-1")
	expectPage(t, "unknown channel", owner.do("GET", "/panel/themes?channel=nope", nil, nil), 400, "invalid / channel")

	env := apptest.New(t, cli.TestSurfaces)
	env.User(access.NewUser{Username: "olive", Email: "olive@example.com", Role: "owner", Password: "owner-password-1"})
	empty := newBrowser(t, env)
	empty.signIn("olive", "owner-password-1")
	p := empty.do("GET", "/panel/themes", nil, nil)
	expectPage(t, "no channel", p, 200, "Add a channel first")
	expectPage(t, "choices", p, 200, `<option value="night">Night</option>`)
}

// scriptAttributes are the data-* attributes the page script reads: of a
// component container (el.dataset.reviewX, a.reviewX with a = el.dataset) and of
// its own script tag (CFG.x with CFG = the script's dataset), read from the
// script's source.
func scriptAttributes(t *testing.T) (container, script map[string]bool) {
	t.Helper()
	src, err := fs.ReadFile(assets.Widget, "widget/reviews.js")
	if err != nil {
		t.Fatal(err)
	}
	kebab := func(camel string) string {
		return "data-" + regexp.MustCompile(`[A-Z]`).ReplaceAllStringFunc(camel, func(m string) string { return "-" + strings.ToLower(m) })
	}
	container, script = map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:dataset|\ba)\.(review[A-Za-z]+)`).FindAllStringSubmatch(string(src), -1) {
		container[kebab(m[1])] = true
	}
	for _, m := range regexp.MustCompile(`\bCFG\.([a-z][A-Za-z]*)`).FindAllStringSubmatch(string(src), -1) {
		script[kebab(m[1])] = true
	}
	if !container["data-review-product"] || !container["data-review-theme"] || !script["data-key"] {
		t.Fatalf("script attributes not found: %v %v", container, script)
	}
	return container, script
}

// checkSnippet asserts that a page's copyable snippet is the contract's markup:
// a container whose every data-* attribute the script reads, and the loader with
// the channel's site key; it returns the container's attributes.
func checkSnippet(t *testing.T, name, body, siteKey string) map[string]string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<pre class="snippet" id="[^"]+">(.*?)</pre>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("%s: no snippet:\n%s", name, body)
	}
	snippet := html.UnescapeString(m[1])
	container, script := scriptAttributes(t)
	tags := regexp.MustCompile(`<(div|script)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*>`).FindAllStringSubmatch(snippet, -1)
	if len(tags) != 2 || tags[0][1] != "div" || tags[1][1] != "script" {
		t.Fatalf("%s: snippet %q", name, snippet)
	}
	attrs := func(s string) map[string]string {
		out := map[string]string{}
		for _, a := range regexp.MustCompile(`([a-z-]+)(?:="([^"]*)")?`).FindAllStringSubmatch(s, -1) {
			out[a[1]] = a[2]
		}
		return out
	}
	div, tag := attrs(tags[0][2]), attrs(tags[1][2])
	for k := range div {
		if !container[k] {
			t.Errorf("%s: the script does not read %s of the container (%q)", name, k, snippet)
		}
	}
	for k := range tag {
		if strings.HasPrefix(k, "data-") && !script[k] {
			t.Errorf("%s: the script does not read %s of its tag (%q)", name, k, snippet)
		}
	}
	if tag["data-key"] != siteKey || !strings.HasSuffix(tag["src"], "/v1/widget.js") || div["data-review-product"] == "" {
		t.Fatalf("%s: snippet %q", name, snippet)
	}
	return div
}

// TestEmbedSnippet: the keys page shows each channel's product-page snippet with
// its site key, and the themes page the snippet of the previewed product, theme
// and layout; every attribute is one the page script reads (docs/page-contract.md).
func TestEmbedSnippet(t *testing.T) {
	f := newFixture(t)
	owner := newBrowser(t, f.env)
	csrf := owner.signIn("olive", "owner-password-1")
	if p := owner.do("GET", "/panel/keys", nil, nil); strings.Contains(p.body, `class="snippet"`) {
		t.Fatal("a snippet without a site key")
	}
	created := owner.do("POST", "/panel/keys", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"site"}}, nil)
	key := regexp.MustCompile(`id="new-secret">([^<]+)<`).FindStringSubmatch(created.body)
	if key == nil {
		t.Fatalf("no site key: %s", created.body)
	}
	div := checkSnippet(t, "keys", owner.do("GET", "/panel/keys", nil, nil).body, key[1])
	if div["data-review-product"] != "YOUR-PRODUCT-CODE" {
		t.Fatalf("keys snippet: %v", div)
	}
	p := owner.do("GET", "/panel/themes?channel=web&product=SKU-1&theme=night&style=sidebar", nil, nil)
	div = checkSnippet(t, "themes", p.body, key[1])
	if div["data-review-product"] != "SKU-1" || div["data-review-theme"] != "night" || div["data-review-style"] != "sidebar" {
		t.Fatalf("themes snippet: %v", div)
	}
	for _, wrong := range []string{`data-theme=&#34;`, `data-style=&#34;`, `data-theme="night" data-style`} {
		if strings.Contains(p.body, wrong) {
			t.Fatalf("themes page names an attribute the script does not read: %s", wrong)
		}
	}
}
