package panel_test

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestRulesPages: a market rule version, a method statement confirmed with the
// fingerprint of the text shown, a watched term added and removed, a rating-topic
// list made and retired, a retry of failed invitations; a viewer sees them
// without forms and a forged post is refused.
func TestRulesPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")

	rules := b.do("GET", "/panel/rules", nil, nil)
	expectPage(t, "rules", rules, 200, `action="/panel/rules/policies"`)
	expectPage(t, "rules: the transparency report", rules, 200, `<a href="/v1/transparency/report">`)
	expectPage(t, "policy with a past start", b.do("POST", "/panel/rules/policies", url.Values{"csrf": {csrf}, "market": {"GB"},
		"valid_from": {"2020-01-01T00:00:00Z"}}, nil), 400, "invalid / valid_from_past")
	posted(t, "policy", b.do("POST", "/panel/rules/policies", url.Values{"csrf": {csrf}, "market": {"GB"}, "review_window_days": {"200"}}, nil),
		"/panel/rules?notice=policy_created")
	pl, err := f.env.App.Brand.Policies(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range pl.Items {
		found = found || (p.Market == "GB" && p.Own && p.ReviewWindowDays == 200)
	}
	if !found {
		t.Fatalf("no own GB version with 200 days: %+v", pl.Items)
	}

	// The new rule changed the statement's text: the page shows its new fingerprint.
	rules = b.do("GET", "/panel/rules", nil, nil)
	m := regexp.MustCompile(`name="channel" value="web"><input type="hidden" name="language" value="([a-z]+)"><input type="hidden" name="fingerprint" value="([^"]+)">`).
		FindStringSubmatch(rules.body)
	if m == nil {
		t.Fatalf("no confirm form of the web statement:\n%s", rules.body)
	}
	expectPage(t, "confirm a stale text", b.do("POST", "/panel/rules/method-statement/confirm", url.Values{"csrf": {csrf}, "channel": {"web"},
		"language": {m[1]}, "fingerprint": {"0000"}}, nil), 409, "")
	posted(t, "confirm", b.do("POST", "/panel/rules/method-statement/confirm", url.Values{"csrf": {csrf}, "channel": {"web"}, "language": {m[1]},
		"fingerprint": {html.UnescapeString(m[2])}}, nil), "/panel/rules?notice=statement_confirmed")
	st, _ := f.env.App.Read.MethodStatements(ctx, "web", m[1])
	if len(st.Items) == 0 || !st.Items[0].Confirmed {
		t.Fatalf("statement not confirmed: %+v", st.Items)
	}

	posted(t, "term", b.do("POST", "/panel/terms", url.Values{"csrf": {csrf}, "pattern": {"free shipping"}, "label": {"ads"}}, nil), "/panel/terms?notice=term_added")
	terms := b.do("GET", "/panel/terms", nil, nil)
	expectPage(t, "terms", terms, 200, "<code>free shipping</code>")
	tid := regexp.MustCompile(`/panel/terms/(term_[0-9]+)/remove`).FindStringSubmatch(terms.body)[1]

	aspects := `[{"key":"fit","kind":"rating","scale":3,"label":{"tr":"Kalıp","en":"Fit"},"steps":{"tr":["Dar","Tam","Bol"],"en":["Small","Right","Large"]}}]`
	expectPage(t, "topics bad json", b.do("POST", "/panel/rating-topics", url.Values{"csrf": {csrf}, "name": {"Shoes"}, "aspects": {"[{"}}, nil), 400, "invalid / aspects")
	posted(t, "topics", b.do("POST", "/panel/rating-topics", url.Values{"csrf": {csrf}, "name": {"Shoes"}, "aspects": {aspects}, "products": {"[]"}}, nil),
		"/panel/rating-topics?notice=saved")
	tl, _ := f.env.App.Brand.AspectTemplates(ctx)
	key := ""
	for _, tt := range tl {
		if tt.Name == "Shoes" {
			key = tt.Key
		}
	}
	if key == "" {
		t.Fatalf("no Shoes list: %+v", tl)
	}
	expectPage(t, "topics page", b.do("GET", "/panel/rating-topics", nil, nil), 200, "Fit")

	posted(t, "retry", b.do("POST", "/panel/invitations/retry", url.Values{"csrf": {csrf}}, nil), "/panel/invitations?notice=retried%3A0")
	expectPage(t, "retry notice", b.do("GET", "/panel/invitations?notice=retried%3A0", nil, nil), 200, "0 invitations queued again.")

	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	for _, path := range []string{"/panel/rules", "/panel/terms", "/panel/rating-topics"} {
		p := viewer.do("GET", path, nil, nil)
		if p.status != 200 || strings.Contains(p.body, `method="post" action="/panel/rules`) || strings.Contains(p.body, `method="post" action="/panel/terms`) ||
			strings.Contains(p.body, `method="post" action="/panel/rating-topics`) {
			t.Fatalf("viewer %s: %d, offers a form", path, p.status)
		}
	}
	expectPage(t, "viewer term remove", viewer.do("POST", "/panel/terms/"+tid+"/remove", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "viewer policy", viewer.do("POST", "/panel/rules/policies", url.Values{"csrf": {vcsrf}, "market": {"GB"}}, nil), 403, "scope_missing")
	expectPage(t, "viewer retire", viewer.do("POST", "/panel/rating-topics/retire", url.Values{"csrf": {vcsrf}, "key": {key}}, nil), 403, "scope_missing")
	expectPage(t, "viewer retry", viewer.do("POST", "/panel/invitations/retry", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")

	posted(t, "retire", b.do("POST", "/panel/rating-topics/retire", url.Values{"csrf": {csrf}, "key": {key}}, nil), "/panel/rating-topics?notice=topic_retired")
	posted(t, "term remove", b.do("POST", "/panel/terms/"+tid+"/remove", url.Values{"csrf": {csrf}}, nil), "/panel/terms?notice=term_removed")
	if p := b.do("GET", "/panel/terms", nil, nil); strings.Contains(p.body, "free shipping") {
		t.Fatal("the removed term is listed")
	}
}
