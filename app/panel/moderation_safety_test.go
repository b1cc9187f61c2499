package panel_test

import (
	"context"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"reviewd/app/apptest"
	"reviewd/app/core/brandexport"
	"reviewd/store"
)

// TestRejectNeedsAChosenReason: the reason lists of reject and remove start
// empty (nothing preselected); a rejection without a reason changes nothing and
// says so in words on the review's page; reject and remove stand apart from hide,
// in a destructive block.
func TestRejectNeedsAChosenReason(t *testing.T) {
	f := newFixture(t)
	id := writeAsCustomer(t, f, "GB-2001", "Lid leaks", "The lid leaks when the mug is tipped, otherwise fine.")
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	for _, path := range []string{"/panel/queue?at=" + id, "/panel/reviews/" + id} {
		p := b.do("GET", path, nil, nil)
		for _, sel := range regexp.MustCompile(`(?s)<select[^>]*name="reason"[^>]*>.*?</select>`).FindAllString(p.body, -1) {
			if strings.Contains(sel, " selected>") && !strings.Contains(sel, `<option value="" selected>`) {
				t.Fatalf("%s: a reason is preselected: %s", path, sel)
			}
			if !strings.Contains(sel, `<option value="" selected>Choose a reason…</option>`) {
				t.Fatalf("%s: the reason list does not start empty: %s", path, sel)
			}
		}
	}
	p := b.do("GET", "/panel/reviews/"+id, nil, nil)
	safe := regexp.MustCompile(`(?s)<div class="actions" data-safe-actions>(.*?)</div>`).FindStringSubmatch(p.body)
	destructive := regexp.MustCompile(`(?s)<div class="destructive" data-destructive-actions>(.*?)</div></div>`).FindStringSubmatch(p.body)
	if safe == nil || destructive == nil || strings.Contains(safe[1], `value="reject"`) ||
		!strings.Contains(destructive[1], `value="reject"`) || !strings.Contains(destructive[1], `class="danger"`) {
		t.Fatalf("reject is not set apart:\n%s", p.body)
	}
	expectPage(t, "reject required", p, 200, `<select id="r-reject" name="reason" required>`)

	before, _ := f.state(id)
	refused := b.do("POST", "/panel/reviews/"+id+"/transition", url.Values{"csrf": {csrf}, "event": {"reject"}, "reason": {""}}, nil)
	expectPage(t, "reject without reason", refused, 400, "Choose a reason first: nothing was changed.")
	expectPage(t, "still the review page", refused, 400, `data-destructive-actions`)
	tr := b.do("POST", "/panel/reviews/"+id+"/transition", url.Values{"csrf": {csrf}, "event": {"reject"}, "reason": {""}},
		map[string]string{"Accept-Language": "tr"})
	expectPage(t, "reject without reason in Turkish", tr, 400, "Önce bir gerekçe seçin: hiçbir şey değişmedi.")
	if st, _ := f.state(id); st != before {
		t.Fatalf("a rejection without a reason changed the review: %s", st)
	}
	posted(t, "reject with reason", b.do("POST", "/panel/reviews/"+id+"/transition",
		url.Values{"csrf": {csrf}, "event": {"reject"}, "reason": {"off_topic"}}, nil), "/panel/reviews/"+id+"?notice=held_reject&undo="+id)
	f.applyHeld()
	if st, _ := f.state(id); st != "rejected" {
		t.Fatalf("state after rejection: %s", st)
	}
}

// TestBrandExportSizesAndRefresh: archive sizes read as people read them (KB, MB;
// a decimal comma in Turkish), and the page refreshes itself while an archive is
// being built, not once none is.
func TestBrandExportSizesAndRefresh(t *testing.T) {
	f := newFixture(t)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	if p := b.do("GET", "/panel/brand-export", nil, nil); strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("the page refreshes with nothing being built")
	}
	ctx := context.Background()
	var building store.BrandExport
	if err := f.env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		building, err = tx.CreateBrandExport(ctx, "", f.env.Clock.Now().Add(72*time.Hour))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	p := b.do("GET", "/panel/brand-export", nil, nil)
	expectPage(t, "refresh while building", p, 200, `<meta http-equiv="refresh" content="5">`)
	expectPage(t, "says it refreshes", p, 200, "this page refreshes itself")
	if err := f.env.App.DB.WithTx(ctx, func(tx *store.Tx) error {
		building.State, building.Size, building.File, building.SHA256 = brandexport.StateFailed, 0, "", ""
		building.Error = "stopped"
		return tx.FinishBrandExport(ctx, building)
	}); err != nil {
		t.Fatal(err)
	}
	posted(t, "start", b.do("POST", "/panel/brand-export", url.Values{"csrf": {csrf}}, nil), "/panel/brand-export?notice=export_started")
	var size int64
	apptest.Eventually(t, "archive ready", 20*time.Second, func() (bool, string) {
		l, err := f.env.App.Exports.List(ctx)
		if err != nil || len(l) == 0 {
			return false, "none"
		}
		size = l[0].Size
		return l[0].State == brandexport.StateReady, l[0].State
	})
	p = b.do("GET", "/panel/brand-export", nil, nil)
	if strings.Contains(p.body, `http-equiv="refresh"`) {
		t.Fatal("the page still refreshes with nothing being built")
	}
	want := regexp.MustCompile(`<span title="` + strconv.FormatInt(size, 10) + ` B">[0-9]+(\.[0-9])? (KB|MB)</span>`)
	if !want.MatchString(p.body) || strings.Contains(p.body, strconv.FormatInt(size, 10)+" B</td>") {
		t.Fatalf("size of %d bytes not readable:\n%s", size, p.body)
	}
}
