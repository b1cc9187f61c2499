package panel_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"reviewd/app/apptest"
	"reviewd/app/cli"
	"reviewd/app/core/access"
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
