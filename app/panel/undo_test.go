package panel_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"reviewd/app"
	"reviewd/app/core"
	"reviewd/app/core/held"
	"reviewd/app/core/reviews"
	"reviewd/store"
	"reviewd/store/storetest"
)

// trail counts what a review has left in the records: history entries,
// transparency-log entries and activity entries (the audit log).
type trail struct{ history, log, activity int }

func (f *fixture) trail(id string) trail {
	f.t.Helper()
	ctx := context.Background()
	q := f.env.App.DB.Read()
	_, ev := f.state(id)
	size, err := q.TransparencySize(ctx)
	if err != nil {
		f.t.Fatal(err)
	}
	_, n, err := q.ListActivity(ctx, store.ActivityFilter{TargetType: "review", TargetID: id, Limit: 100})
	if err != nil {
		f.t.Fatal(err)
	}
	return trail{history: len(ev), log: int(size), activity: n}
}

// listed reports whether the storefront's list answer of the channel shows a review.
func (f *fixture) listed(server, product, id string) bool {
	f.t.Helper()
	res := f.env.Do("GET", "/v1/reviews/list?channel=web&product="+product, nil, map[string]string{"Authorization": "Bearer " + server})
	if res.Status != http.StatusOK {
		f.t.Fatalf("storefront list: %s", res)
	}
	return strings.Contains(string(res.Body), id)
}

// TestUndoTakesBackAHeldApproval: an approve from the panel's plain form leaves the
// queue at once but takes effect only after the undo window; until then the
// storefront does not show it and nothing is logged. Undo puts the review back in
// the queue, and the pair leaves one activity entry and nothing in the history or
// the transparency log.
func TestUndoTakesBackAHeldApproval(t *testing.T) {
	f := newFixture(t)
	ids := f.waiting(2)
	server := f.env.Key("server", "web")
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	before := f.trail(ids[0])

	res := b.do("POST", "/panel/reviews/"+ids[0]+"/transition", url.Values{"csrf": {csrf}, "event": {"approve"},
		"back": {"/panel/queue"}}, nil)
	posted(t, "approve", res, "/panel/queue?notice=held_approve&undo="+ids[0])
	if st, _ := f.state(ids[0]); st != core.ReviewPending {
		t.Fatalf("state inside the window: %s", st)
	}
	if f.listed(server, "SKU-0", ids[0]) {
		t.Fatal("the storefront shows a held approval")
	}
	if got := f.trail(ids[0]); got != before {
		t.Fatalf("records inside the window: %+v, before %+v", got, before)
	}
	q := b.do("GET", res.location, nil, nil)
	expectPage(t, "queue after approve", q, 200, `<span>Approved</span> · <form method="post" action="/panel/reviews/`+ids[0]+`/undo">`)
	if strings.Contains(q.body, `<li data-id="`+ids[0]+`"`) || !strings.Contains(q.body, `data-live="waiting">1<`) {
		t.Fatalf("the held review is still in the queue:\n%s", q.body)
	}
	// A second decision on a held review is refused.
	again := b.do("POST", "/panel/reviews/"+ids[0]+"/transition", url.Values{"csrf": {csrf}, "event": {"reject"}, "reason": {"off_topic"}}, nil)
	expectPage(t, "second decision", again, 409, "transition_refused / event_not_available")

	undo := b.do("POST", "/panel/reviews/"+ids[0]+"/undo", url.Values{"csrf": {csrf}, "back": {"/panel/queue?at=" + ids[0]}}, nil)
	posted(t, "undo", undo, "/panel/queue?at="+ids[0]+"&notice=undone")
	back := b.do("GET", undo.location, nil, nil)
	expectPage(t, "queue after undo", back, 200, `<li data-id="`+ids[0]+`" class="current"`)
	expectPage(t, "undone notice", back, 200, "Undone: the review is back where it was.")

	f.env.Clock.T = f.env.Clock.T.Add(held.Window + time.Second)
	if n, err := f.env.App.Held.ApplyDue(context.Background(), f.env.Clock.T); err != nil || n != 0 {
		t.Fatalf("apply after an undo: %d %v", n, err)
	}
	after := f.trail(ids[0])
	if st, _ := f.state(ids[0]); st != core.ReviewPending || f.listed(server, "SKU-0", ids[0]) {
		t.Fatalf("after undo: %s", st)
	}
	if after.history != before.history || after.log != before.log || after.activity != before.activity+1 {
		t.Fatalf("records after approve and undo: %+v, before %+v (one activity entry only)", after, before)
	}
	acts, _, _ := f.env.App.DB.Read().ListActivity(context.Background(), store.ActivityFilter{TargetID: ids[0], Limit: 1})
	if len(acts) != 1 || acts[0].Action != "review.decision_undone" || acts[0].ActorName != "olive" ||
		!strings.Contains(acts[0].Detail, `"event":"approve"`) {
		t.Fatalf("the undo's record: %+v", acts)
	}
	// Once the window has passed there is nothing to undo.
	expectPage(t, "undo again", b.do("POST", "/panel/reviews/"+ids[0]+"/undo", url.Values{"csrf": {csrf}}, nil),
		409, "transition_refused / undo_window_closed")
}

// TestHeldDecisionTakesEffect: a held approve and a held reject take effect when
// the window ends, each as one ordinary decision in the name of who decided
// (history, transparency log, activity), and the script's JSON answer names the
// held decision.
func TestHeldDecisionTakesEffect(t *testing.T) {
	f := newFixture(t)
	ids := f.waiting(2)
	server := f.env.Key("server", "web")
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	before := f.trail(ids[0])
	res := b.do("POST", "/panel/reviews/"+ids[0]+"/transition", url.Values{"csrf": {csrf}, "event": {"approve"}},
		map[string]string{"Accept": "application/json"})
	var d held.Decision
	if res.status != 200 || json.Unmarshal([]byte(res.body), &d) != nil || d.Review != ids[0] || d.Event != "approve" ||
		!d.Until.Equal(f.env.Clock.T.Add(held.Window)) {
		t.Fatalf("held answer: %d %s", res.status, res.body)
	}
	posted(t, "reject", b.do("POST", "/panel/reviews/"+ids[1]+"/transition", url.Values{"csrf": {csrf}, "event": {"reject"},
		"reason": {"off_topic"}}, nil), "/panel/reviews/"+ids[1]+"?notice=held_reject&undo="+ids[1])
	expectPage(t, "review page while held", b.do("GET", "/panel/reviews/"+ids[1], nil, nil), 200,
		`<span>Rejected</span> · <form method="post" action="/panel/reviews/`+ids[1]+`/undo">`)

	ctx := context.Background()
	f.env.Clock.T = f.env.Clock.T.Add(held.Window - time.Second)
	if n, err := f.env.App.Held.ApplyDue(ctx, f.env.Clock.T); err != nil || n != 0 {
		t.Fatalf("applied inside the window: %d %v", n, err)
	}
	f.env.Clock.T = f.env.Clock.T.Add(2 * time.Second)
	if n, err := f.env.App.Held.ApplyDue(ctx, f.env.Clock.T); err != nil || n != 2 {
		t.Fatalf("applied after the window: %d %v", n, err)
	}
	st, ev := f.state(ids[0])
	if st != core.ReviewPublished || ev[len(ev)-1].Event != "approve" || ev[len(ev)-1].ActorName != "olive" {
		t.Fatalf("after the window: %s %+v", st, ev)
	}
	if got := f.trail(ids[0]); got.history != before.history+1 || got.log != before.log+2 || got.activity != before.activity+1 {
		t.Fatalf("records of one approve: %+v, before %+v", got, before)
	}
	if !f.listed(server, "SKU-0", ids[0]) {
		t.Fatal("the approved review is not on the storefront")
	}
	if st, _ := f.state(ids[1]); st != core.ReviewRejected {
		t.Fatalf("held reject after the window: %s", st)
	}
	if n, err := f.env.App.Held.ApplyDue(ctx, f.env.Clock.T); err != nil || n != 0 {
		t.Fatalf("applied twice: %d %v", n, err)
	}
	expectPage(t, "undo after the window", b.do("POST", "/panel/reviews/"+ids[0]+"/undo", url.Values{"csrf": {csrf}}, nil),
		409, "undo_window_closed")
}

// TestHeldDecisionSurvivesARestart: a decision held when the process stops is in
// the database; the next process applies it when the window has passed.
func TestHeldDecisionSurvivesARestart(t *testing.T) {
	f := newFixture(t)
	ids := f.waiting(1)
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	posted(t, "approve", b.do("POST", "/panel/reviews/"+ids[0]+"/transition", url.Values{"csrf": {csrf}, "event": {"approve"},
		"back": {"/panel/queue"}}, nil), "/panel/queue?notice=held_approve&undo="+ids[0])
	cfg := f.env.App.Config
	f.env.HTTP.Close()
	if err := f.env.App.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := app.Open(context.Background(), cfg, storetest.SchemaSQL(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	now := f.env.Clock.T.Add(held.Window + time.Second)
	a.DB.Now = func() time.Time { return now }
	if n, err := a.Held.ApplyDue(context.Background(), now); err != nil || n != 1 {
		t.Fatalf("apply after a restart: %d %v", n, err)
	}
	r, err := a.DB.Read().ReviewByPublicID(context.Background(), ids[0])
	if err != nil || r.State != core.ReviewPublished {
		t.Fatalf("after a restart: %+v %v", r.State, err)
	}
}

// applyHeld moves the clock past the undo window and applies the held decisions.
func (f *fixture) applyHeld() {
	f.t.Helper()
	f.env.Clock.T = f.env.Clock.T.Add(held.Window + time.Second)
	if _, err := f.env.App.Held.ApplyDue(context.Background(), f.env.Clock.T); err != nil {
		f.t.Fatal(err)
	}
}

// TestRemoveNeedsConfirmation: removing is for good and is not held, so the review
// page's remove form asks for a ticked box; without it nothing changes.
func TestRemoveNeedsConfirmation(t *testing.T) {
	f := newFixture(t)
	id := f.waiting(1)[0]
	b := newBrowser(t, f.env)
	csrf := b.signIn("olive", "owner-password-1")
	page := b.do("GET", "/panel/reviews/"+id, nil, nil)
	expectPage(t, "review page", page, 200, `<input type="checkbox" name="confirm" value="1" required> I understand: remove this review for good`)
	before := f.trail(id)
	refused := b.do("POST", "/panel/reviews/"+id+"/transition", url.Values{"csrf": {csrf}, "event": {"remove"}, "reason": {"fake"}}, nil)
	expectPage(t, "remove without the box", refused, 400, "Tick the box to confirm; nothing was changed.")
	if st, _ := f.state(id); st != core.ReviewPending || f.trail(id) != before {
		t.Fatalf("an unconfirmed removal changed the review: %s", st)
	}
	posted(t, "remove", b.do("POST", "/panel/reviews/"+id+"/transition", url.Values{"csrf": {csrf}, "event": {"remove"},
		"reason": {"fake"}, "confirm": {"1"}}, nil), "/panel/reviews/"+id+"?notice=remove")
	if st, _ := f.state(id); st != core.ReviewRemoved {
		t.Fatalf("after a confirmed removal: %s", st)
	}
}

// TestUndoBeforeTheMoveWins: a held decision is applied in one transaction with the
// deletion of its row, so an undo that took the row first leaves the review where
// it was: a move whose row is gone is rolled back whole (no state, history or
// transparency-log entry).
func TestUndoBeforeTheMoveWins(t *testing.T) {
	f := newFixture(t)
	id := f.waiting(1)[0]
	before := f.trail(id)
	_, err := f.env.App.Reviews.TransitionReviewWith(context.Background(), core.Console(), id,
		reviews.ReviewTransitionInput{Event: reviews.EventApprove}, func(*store.Tx, store.Review) error { return held.ErrUndoClosed })
	if err != held.ErrUndoClosed {
		t.Fatalf("move whose row was taken: %v", err)
	}
	if st, _ := f.state(id); st != core.ReviewPending {
		t.Fatalf("state after the refused move: %s", st)
	}
	if after := f.trail(id); after != before {
		t.Fatalf("records after the refused move: %+v, before %+v", after, before)
	}
}
