package panel_test

import (
	"context"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core/brandexport"
)

// TestReviewNotesForms: the seller reply and the resolution note of the review
// page. A reply to a review still waiting is refused with the code and its text
// in the user's language, next to the form that keeps the text; once published,
// the reply is published, changed and withdrawn and the resolution note saved and
// removed, each in the review's history; a form without CSRF and a viewer's forged
// post are refused, and a viewer sees no forms.
func TestReviewNotesForms(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id := f.waiting(1)[0]
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	base := "/panel/reviews/" + id

	expectPage(t, "review page", b.do("GET", base, nil, nil), 200, `action="`+base+`/seller-response"`)
	p := b.do("POST", base+"/seller-response", url.Values{"csrf": {csrf}, "body": {"Thanks for the kind words."}}, map[string]string{"Accept-Language": "tr"})
	expectPage(t, "reply to a waiting review", p, 409, "seller_response_refused / parent_review_not_published")
	for _, want := range []string{"Yalnızca yayımlanmış bir yoruma yanıt verilebilir.", `id="reply-e"`, "Thanks for the kind words.</textarea>"} {
		if !strings.Contains(p.body, want) {
			t.Fatalf("refused reply without %q:\n%s", want, p.body)
		}
	}
	expectPage(t, "empty resolution", b.do("POST", base+"/resolution", url.Values{"csrf": {csrf}, "body": {"  "}}, nil), 400, `id="res-e"`)
	posted(t, "approve", b.do("POST", base+"/transition", url.Values{"csrf": {csrf}, "event": {"approve"}}, nil), base+"?notice=held_approve&undo="+id)
	f.applyHeld()

	expectPage(t, "reply without csrf", b.do("POST", base+"/seller-response", url.Values{"body": {"x"}}, nil), 403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer reply", viewer.do("POST", base+"/seller-response", url.Values{"csrf": {vcsrf}, "body": {"x"}}, nil), 403, "scope_missing")
	expectPage(t, "viewer resolution", viewer.do("POST", base+"/resolution", url.Values{"csrf": {vcsrf}, "body": {"x"}}, nil), 403, "scope_missing")

	posted(t, "reply", b.do("POST", base+"/seller-response", url.Values{"csrf": {csrf}, "body": {"Thanks for the kind words."}}, nil), base+"?notice=reply_published")
	expectPage(t, "second reply", b.do("POST", base+"/seller-response", url.Values{"csrf": {csrf}, "body": {"Again"}}, nil), 409, "seller_response_open")
	posted(t, "change", b.do("POST", base+"/seller-response/change", url.Values{"csrf": {csrf}, "body": {"Thank you, Ada."}}, nil), base+"?notice=reply_changed")
	posted(t, "resolution", b.do("POST", base+"/resolution", url.Values{"csrf": {csrf}, "body": {"Replaced the strap."}}, nil), base+"?notice=resolution_saved")
	page := b.do("GET", base, nil, nil)
	for _, want := range []string{"Thank you, Ada.</blockquote>", "Replaced the strap.</blockquote>", "<td>Reply changed</td>", "<td>Resolution note added</td>",
		`action="` + base + `/seller-response/remove"`} {
		if !strings.Contains(page.body, want) {
			t.Fatalf("review page without %q:\n%s", want, page.body)
		}
	}
	d, err := f.env.App.Reviews.AdminReviewDetailOf(ctx, nil, id)
	if err != nil || d.SellerResponse == nil || d.SellerResponse.Body != "Thank you, Ada." || d.Resolution == nil {
		t.Fatalf("notes not stored: %v %+v %+v", err, d.SellerResponse, d.Resolution)
	}
	if vp := viewer.do("GET", base, nil, nil); vp.status != 200 || strings.Contains(vp.body, "/seller-response") || !strings.Contains(vp.body, "Thank you, Ada.") {
		t.Fatalf("viewer's review page: %d\n%s", vp.status, vp.body)
	}

	posted(t, "withdraw", b.do("POST", base+"/seller-response/remove", url.Values{"csrf": {csrf}}, nil), base+"?notice=reply_withdrawn")
	posted(t, "remove note", b.do("POST", base+"/resolution/remove", url.Values{"csrf": {csrf}}, nil), base+"?notice=resolution_removed")
	if d, _ = f.env.App.Reviews.AdminReviewDetailOf(ctx, nil, id); d.SellerResponse != nil || d.Resolution != nil {
		t.Fatalf("notes left: %+v %+v", d.SellerResponse, d.Resolution)
	}
}

const templateHTML = `<p>Hello {{customer_name}}, how was {{products}}?</p>{{review_button}}<script>alert(1)</script>`

// TestInviteTemplatesPage: a template refused with the code next to its field,
// previewed in a sandboxed frame (the script of the HTML removed, the frame's
// document escaped into srcdoc), saved, edited, and removed; a form without CSRF
// and a viewer's forged post and page are refused.
func TestInviteTemplatesPage(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "templates page", b.do("GET", "/panel/invite-templates", nil, nil), 200, "No templates of your own")
	expectPage(t, "templates page in Turkish", b.do("GET", "/panel/invite-templates", nil, map[string]string{"Accept-Language": "tr"}), 200, "Davet şablonları")

	form := url.Values{"csrf": {csrf}, "type": {"invitation"}, "language": {"en"}, "market": {"GB"}, "subject": {"How was {{products}}?"},
		"html": {`<p>Hello {{customer_name}}</p>`}}
	p := b.do("POST", "/panel/invite-templates", form, nil)
	expectPage(t, "template without the button", p, 400, "invalid / cta_required")
	if !strings.Contains(p.body, `id="tp-html-e"`) || !strings.Contains(p.body, "The e-mail needs the review button") {
		t.Fatalf("refusal not next to the HTML field:\n%s", p.body)
	}
	form.Set("subject", "{{nope}}")
	form.Set("html", templateHTML)
	expectPage(t, "unknown placeholder in the subject", b.do("POST", "/panel/invite-templates", form, nil), 400, `id="tp-subject-e"`)
	form.Set("subject", "How was {{products}}?")

	p = b.do("POST", "/panel/invite-templates/preview", form, nil)
	expectPage(t, "preview", p, 200, `<iframe class="preview" sandbox=""`)
	src := regexp.MustCompile(`srcdoc="([^"]*)"`).FindStringSubmatch(p.body)
	if src == nil || strings.Contains(html.UnescapeString(src[1]), "<script") || !strings.Contains(html.UnescapeString(src[1]), "Hello") {
		t.Fatalf("preview frame: %v\n%s", src, p.body)
	}
	if _, err := f.env.App.Sending.InviteTemplates(ctx); err != nil {
		t.Fatal(err)
	}
	if items, _ := f.env.App.Sending.InviteTemplates(ctx); len(items) != 0 {
		t.Fatalf("a preview saved a template: %+v", items)
	}

	posted(t, "save", b.do("POST", "/panel/invite-templates", form, nil), "/panel/invite-templates?notice=template_saved")
	items, err := f.env.App.Sending.InviteTemplates(ctx)
	if err != nil || len(items) != 1 {
		t.Fatalf("templates: %v %+v", err, items)
	}
	tid := items[0].ID
	edit := b.do("GET", "/panel/invite-templates?edit="+tid, nil, nil)
	expectPage(t, "edit form", edit, 200, `name="id" value="`+tid+`"`)
	form.Set("id", tid)
	form.Set("subject", "Your {{products}}")
	posted(t, "edit", b.do("POST", "/panel/invite-templates", form, nil), "/panel/invite-templates?notice=template_saved")
	if items, _ = f.env.App.Sending.InviteTemplates(ctx); len(items) != 1 || items[0].Subject != "Your {{products}}" {
		t.Fatalf("template not changed: %+v", items)
	}
	// Incentive: a reward tied to the rating is refused next to the box; a reward
	// for any review is saved marked and the edit form keeps the mark.
	form.Set("incentive", "1")
	form.Set("html", `<p>A coupon for your 5-star review!</p>{{review_button}}`)
	p = b.do("POST", "/panel/invite-templates", form, nil)
	expectPage(t, "conditional incentive", p, 400, "invalid / incentive_conditional")
	if !strings.Contains(p.body, `id="tp-inc-e"`) || !strings.Contains(p.body, "offer it for any review") {
		t.Fatalf("refusal not next to the incentive box:\n%s", p.body)
	}
	form.Set("html", `<p>A coupon for any review, good or bad.</p>{{review_button}}`)
	posted(t, "incentive", b.do("POST", "/panel/invite-templates", form, nil), "/panel/invite-templates?notice=template_saved")
	if items, _ = f.env.App.Sending.InviteTemplates(ctx); len(items) != 1 || !items[0].Incentive {
		t.Fatalf("incentive not saved: %+v", items)
	}
	expectPage(t, "edit form keeps the incentive", b.do("GET", "/panel/invite-templates?edit="+tid, nil, nil), 200,
		`name="incentive" value="1" checked`)
	form.Del("incentive")

	expectPage(t, "remove without csrf", b.do("POST", "/panel/invite-templates/"+tid+"/remove", url.Values{}, nil), 403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer remove", viewer.do("POST", "/panel/invite-templates/"+tid+"/remove", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "viewer page", viewer.do("GET", "/panel/invite-templates", nil, nil), 403, "scope_missing")
	posted(t, "remove", b.do("POST", "/panel/invite-templates/"+tid+"/remove", url.Values{"csrf": {csrf}}, nil), "/panel/invite-templates?notice=template_removed")
	if items, _ = f.env.App.Sending.InviteTemplates(ctx); len(items) != 0 {
		t.Fatalf("template left: %+v", items)
	}
}

// TestReviewFeedsPage: a feed refused with the code next to its field, created
// with its address and copy button, read by its address, and removed (with the
// activity entries of the admin route); a viewer is refused.
func TestReviewFeedsPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "feeds page", b.do("GET", "/panel/review-feeds", nil, nil), 200, "No feeds yet.")
	p := b.do("POST", "/panel/review-feeds", url.Values{"csrf": {csrf}, "name": {"Google"}, "market": {"gb"}, "names": {"masked"}}, nil)
	expectPage(t, "bad market", p, 400, `id="f-market-e"`)
	expectPage(t, "no name", b.do("POST", "/panel/review-feeds", url.Values{"csrf": {csrf}, "names": {"masked"}}, nil), 400, `id="f-name-e"`)
	posted(t, "create", b.do("POST", "/panel/review-feeds", url.Values{"csrf": {csrf}, "name": {"Google Shopping"}, "channel": {"web"},
		"names": {"masked"}}, nil), "/panel/review-feeds?notice=feed_created")
	page := b.do("GET", "/panel/review-feeds", nil, nil)
	m := regexp.MustCompile(`<code id="feed-url-0">([^<]+)</code> <button type="button" class="small" data-copy="feed-url-0"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatalf("no feed address with a copy button:\n%s", page.body)
	}
	feedURL := html.UnescapeString(m[1])
	u, err := url.Parse(feedURL)
	if err != nil {
		t.Fatal(err)
	}
	if res := newBrowser(t, f.env).do("GET", u.Path, nil, nil); res.status != 200 || !strings.Contains(res.body, "<feed") {
		t.Fatalf("feed address answers %d:\n%.300s", res.status, res.body)
	}
	fid := regexp.MustCompile(`/panel/review-feeds/(rf_[0-9]+)/remove`).FindStringSubmatch(page.body)[1]

	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer page", viewer.do("GET", "/panel/review-feeds", nil, nil), 403, "scope_missing")
	expectPage(t, "viewer remove", viewer.do("POST", "/panel/review-feeds/"+fid+"/remove", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	expectPage(t, "remove without csrf", b.do("POST", "/panel/review-feeds/"+fid+"/remove", url.Values{}, nil), 403, "csrf_missing")
	posted(t, "remove", b.do("POST", "/panel/review-feeds/"+fid+"/remove", url.Values{"csrf": {csrf}}, nil), "/panel/review-feeds?notice=feed_removed")
	if l, _ := f.env.App.Feeds.Feeds(context.Background()); len(l.Items) != 0 {
		t.Fatalf("feed left: %+v", l.Items)
	}
	log := b.do("GET", "/panel/audit-log?action=review_feed.created", nil, nil)
	expectPage(t, "activity of the feed", log, 200, "review_feed.created")
}

// TestBrandExportPage: an archive started from the form is built in the
// background and offered for download when ready; a moderator (no export
// permission) is refused the page and the form, a form without CSRF too.
func TestBrandExportPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "export page", b.do("GET", "/panel/brand-export", nil, nil), 200, "No archives.")
	expectPage(t, "start without csrf", b.do("POST", "/panel/brand-export", url.Values{}, nil), 403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer start", viewer.do("POST", "/panel/brand-export", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	posted(t, "start", b.do("POST", "/panel/brand-export", url.Values{"csrf": {csrf}}, nil), "/panel/brand-export?notice=export_started")
	var id string
	apptest.Eventually(t, "archive ready", 20*time.Second, func() (bool, string) {
		l, err := f.env.App.Exports.List(context.Background())
		if err != nil || len(l) != 1 {
			return false, fmt.Sprint(err, l)
		}
		id = l[0].ID
		return l[0].State == brandexport.StateReady, l[0].State
	})
	page := b.do("GET", "/panel/brand-export", nil, nil)
	expectPage(t, "ready archive", page, 200, `href="/admin/v1/brand-export/`+id+`/download"`)
	dl := b.do("GET", "/admin/v1/brand-export/"+id+"/download", nil, nil)
	if dl.status != 200 || !strings.HasPrefix(dl.body, "PK") {
		t.Fatalf("download: %d", dl.status)
	}
}

// TestSettingsWarningLimit: the alerts field of the settings page saves
// warning_limit; a value out of range is refused with its text.
func TestSettingsWarningLimit(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	expectPage(t, "settings", b.do("GET", "/panel/settings", nil, nil), 200, `name="warning_limit" type="number" min="0" max="100" value="3"`)
	expectPage(t, "out of range", b.do("POST", "/panel/settings", url.Values{"csrf": {csrf}, "warning_limit": {"101"}}, nil), 400, "Between 0 and 100.")
	posted(t, "save", b.do("POST", "/panel/settings", url.Values{"csrf": {csrf}, "warning_limit": {"0"}}, nil), "/panel/settings?notice=saved")
	if s, err := f.env.App.Brand.SettingsOf(context.Background()); err != nil || s.WarningLimit != 0 {
		t.Fatalf("warning_limit: %v %d", err, s.WarningLimit)
	}
}

// TestOverviewFigures: the overview shows the last 30 days from the brand's
// figures (reviews received against the 30 days before, time to a decision) in
// the user's language.
func TestOverviewFigures(t *testing.T) {
	f := newFixture(t)
	f.waiting(3)
	b := newBrowser(t, f.env)
	b.signIn("olive", "owner-password-1")
	p := b.do("GET", "/panel/", nil, nil)
	expectPage(t, "overview", p, 200, `<strong>3</strong><span>Reviews received</span><span class="change up">&#43;3 against the 30 days before</span>`)
	expectPage(t, "overview figures", p, 200, `<strong>0</strong><span>Waiting over 48 hours</span>`)
	if strings.Contains(p.body, "<strong>0</strong><span>Published</span><span") {
		t.Fatal("a change is shown where both periods are empty")
	}
	expectPage(t, "overview in Turkish", b.do("GET", "/panel/", nil, map[string]string{"Accept-Language": "tr"}), 200, "Son 30 gün")
}

// TestThemesPage: the page component of a product rendered in the chosen theme
// and layout inside a sandboxed frame with the component's style sheet; a viewer
// may look; an unknown theme is the component's refusal.
func TestThemesPage(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	b.signIn("victor", "viewer-password-1")
	// Without a site key in use the component is not served (409 refused / no_site_key).
	expectPage(t, "no site key", b.do("GET", "/panel/themes?channel=web&product=SKU-1", nil, nil), 200, "The channel has no site key in use")
	owner := newBrowser(t, f.env)
	csrf := owner.signIn("olive", "owner-password-1")
	expectPage(t, "site key", owner.do("POST", "/panel/keys", url.Values{"csrf": {csrf}, "channel": {"web"}, "label": {"site"}}, nil), 200, `id="new-secret"`)
	p := b.do("GET", "/panel/themes?channel=web&product=SKU-1&theme=night&style=sidebar", nil, nil)
	expectPage(t, "themes", p, 200, `<iframe class="preview component" sandbox="allow-same-origin" data-fit`)
	src := regexp.MustCompile(`srcdoc="([^"]*)"`).FindStringSubmatch(p.body)
	if src == nil || !strings.Contains(html.UnescapeString(src[1]), "/static/reviews.css") || !strings.Contains(html.UnescapeString(src[1]), "night") {
		t.Fatalf("preview frame: %v\n%s", src, p.body)
	}
	expectPage(t, "chosen", p, 200, `<option value="night" selected>`)
	expectPage(t, "unknown theme", b.do("GET", "/panel/themes?channel=web&product=SKU-1&theme=neon", nil, nil), 200, "invalid / theme")
}

// TestFeaturedPinForm: the review page's Pin button (CSRF as the other forms).
// An unpublished review and a 4th pin of one product are refused in plain words
// next to the button, with their codes; a pinned review shows Unpin; a viewer
// cannot pin.
func TestFeaturedPinForm(t *testing.T) {
	f := newFixture(t)
	ids := f.waiting(121) // 0, 40, 80 and 120 are reviews of SKU-0
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	page := func(id string) string { return "/panel/reviews/" + id }

	expectPage(t, "review page", b.do("GET", page(ids[0]), nil, nil), 200, `action="`+page(ids[0])+`/featured"`)
	p := b.do("POST", page(ids[0])+"/featured", url.Values{"csrf": {csrf}}, nil)
	expectPage(t, "pin a waiting review", p, 409, "refused / parent_review_not_published")
	if !strings.Contains(p.body, "Only a published review can be selected.") || !strings.Contains(p.body, `id="pin-e"`) {
		t.Fatalf("refusal without words:\n%s", p.body)
	}
	for _, i := range []int{0, 40, 80, 120} {
		posted(t, "approve", b.do("POST", page(ids[i])+"/transition", url.Values{"csrf": {csrf}, "event": {"approve"}}, nil),
			page(ids[i])+"?notice=held_approve&undo="+ids[i])
	}
	f.applyHeld() // past the undo window: published
	expectPage(t, "pin without csrf", b.do("POST", page(ids[0])+"/featured", url.Values{}, nil), 403, "csrf_missing")
	viewer := newBrowser(t, f.env)
	vcsrf := viewer.signIn("victor", "viewer-password-1")
	expectPage(t, "viewer pin", viewer.do("POST", page(ids[0])+"/featured", url.Values{"csrf": {vcsrf}}, nil), 403, "scope_missing")
	for _, i := range []int{0, 40, 80} {
		posted(t, "pin", b.do("POST", page(ids[i])+"/featured", url.Values{"csrf": {csrf}}, nil), page(ids[i])+"?notice=featured_pinned")
	}
	p = b.do("POST", page(ids[120])+"/featured", url.Values{"csrf": {csrf}}, map[string]string{"Accept-Language": "tr"})
	expectPage(t, "4th pin", p, 409, "pin_limit")
	if !strings.Contains(p.body, "Bu ürünün zaten 3 seçili yorumu var.") {
		t.Fatalf("limit refusal without words:\n%s", p.body)
	}
	pinned := b.do("GET", page(ids[0]), nil, nil)
	for _, want := range []string{`action="` + page(ids[0]) + `/featured/remove"`, "This review is shown first in its product&#39;s list.", "<td>Pinned to the top</td>"} {
		if !strings.Contains(pinned.body, want) {
			t.Fatalf("pinned page without %q:\n%s", want, pinned.body)
		}
	}
	posted(t, "unpin", b.do("POST", page(ids[0])+"/featured/remove", url.Values{"csrf": {csrf}}, nil), page(ids[0])+"?notice=featured_unpinned")
	posted(t, "pin the 4th", b.do("POST", page(ids[120])+"/featured", url.Values{"csrf": {csrf}}, nil), page(ids[120])+"?notice=featured_pinned")
}
