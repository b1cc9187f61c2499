package admin_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/sendtest"
	"reviewd/store"
)

// TestReviewTransitions walks every review event from every state, with the
// refusal codes, and checks what a move writes.
func TestReviewTransitions(t *testing.T) {
	m := newModEnv(t)
	cases := []struct {
		name          string
		from          string
		anonymized    bool
		event, reason string
		status        int
		code          string
		to            string
	}{
		{"approve pending", core.ReviewPending, false, "approve", "", 200, "", core.ReviewPublished},
		{"reject pending", core.ReviewPending, false, "reject", "off_topic", 200, "", core.ReviewRejected},
		{"reject published", core.ReviewPublished, false, "reject", "profanity", 200, "", core.ReviewRejected},
		{"hide published", core.ReviewPublished, false, "hide", "", 200, "", core.ReviewHidden},
		{"unhide hidden", core.ReviewHidden, false, "unhide", "", 200, "", core.ReviewPublished},
		{"remove pending", core.ReviewPending, false, "remove", "fake", 200, "", core.ReviewRemoved},
		{"remove rejected", core.ReviewRejected, false, "remove", "legal_order", 200, "", core.ReviewRemoved},
		{"remove hidden", core.ReviewHidden, false, "remove", "duplicate", 200, "", core.ReviewRemoved},
		{"reject without reason", core.ReviewPending, false, "reject", "", 400, "invalid / reason_required", ""},
		{"reject unknown reason", core.ReviewPending, false, "reject", "boring", 400, "invalid / reason", ""},
		{"remove without reason", core.ReviewPublished, false, "remove", "", 400, "invalid / reason_required", ""},
		{"remove with a rejection reason", core.ReviewPublished, false, "remove", "off_topic", 400, "invalid / reason", ""},
		{"no event", core.ReviewPending, false, "", "", 400, "invalid / event_required", ""},
		{"unknown event", core.ReviewPending, false, "publish", "", 400, "invalid / event", ""},
		{"approve published", core.ReviewPublished, false, "approve", "", 409, "transition_refused / event_not_available", ""},
		{"approve rejected", core.ReviewRejected, false, "approve", "", 409, "transition_refused / event_not_available", ""},
		{"hide pending", core.ReviewPending, false, "hide", "", 409, "transition_refused / event_not_available", ""},
		{"unhide published", core.ReviewPublished, false, "unhide", "", 409, "transition_refused / event_not_available", ""},
		{"reject hidden", core.ReviewHidden, false, "reject", "off_topic", 409, "transition_refused / event_not_available", ""},
		{"remove removed", core.ReviewRemoved, false, "remove", "fake", 409, "transition_refused / event_not_available", ""},
		{"approve anonymised", core.ReviewPending, true, "approve", "", 409, "transition_refused / review_anonymized", ""},
		{"unhide anonymised", core.ReviewHidden, true, "unhide", "", 409, "transition_refused / review_anonymized", ""},
		{"reject anonymised", core.ReviewPending, true, "reject", "personal_data", 200, "", core.ReviewRejected},
		{"remove anonymised", core.ReviewHidden, true, "remove", "data_subject_request", 200, "", core.ReviewRemoved},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, _ := m.write(review{author: "Ayşe Yılmaz"})
			if c.from != core.ReviewPending {
				m.setState(id, c.from)
			}
			if c.anonymized {
				m.anonymize(id)
			}
			before := len(m.history(id))
			res := m.transition(id, c.event, c.reason)
			if res.Status != c.status || (c.code != "" && res.Code() != c.code) {
				t.Fatalf("got %d %s, want %d %s (%s)", res.Status, res.Code(), c.status, c.code, res.Body)
			}
			r := m.get(id)
			if c.status != 200 {
				if r.State != c.from || len(m.history(id)) != before {
					t.Fatalf("refused move changed the review: %s, history %d -> %d", r.State, before, len(m.history(id)))
				}
				return
			}
			if r.State != c.to || res.JSON["state"] != c.to || res.JSON["id"] != id {
				t.Fatalf("state %s, answer %s", r.State, res.Body)
			}
			if got, want := strs(res.JSON["available_events"]), reviews.AvailableReviewEvents(c.to, c.anonymized); !slices.Equal(got, want) {
				t.Fatalf("available_events %v, want %v", got, want)
			}
			h := m.history(id)
			last := h[len(h)-1]
			if len(h) != before+1 || last.Event != c.event || last.FromState != c.from || last.ToState != c.to ||
				last.Reason != c.reason || last.ActorType != core.ViaAPIKey {
				t.Fatalf("history entry %+v (entries %d -> %d)", last, before, len(h))
			}
			found := false
			for _, a := range activityEntries(t, m.env, "review."+c.event) {
				found = found || a.TargetID == id
			}
			if !found {
				t.Fatalf("activity review.%s for %s missing", c.event, id)
			}
			if c.to == core.ReviewPublished && r.PublishedAt.IsZero() {
				t.Fatal("published_at not set")
			}
		})
	}

	t.Run("unknown review and permissions", func(t *testing.T) {
		expect(t, m.transition("r_aaaaaaaaaaaaaaaaaaaa", "approve", ""), 404, "not_found / not_found")
		id, _ := m.write(review{})
		expect(t, m.do("POST", "/admin/v1/reviews/"+id+"/transition", map[string]any{"event": "approve"}, m.read), 403,
			"forbidden / scope_missing")
		expect(t, m.do("POST", "/admin/v1/reviews/"+id+"/transition", `{"event": 5}`, m.mod), 400, "invalid / event")
	})

	t.Run("approve closes check findings", func(t *testing.T) {
		id, _ := m.write(review{body: "Write me at someone@mail.example for details."})
		if !m.get(id).FlagOpen {
			t.Fatal("flag not set by the check")
		}
		expect(t, m.transition(id, "approve", ""), 200, "")
		r := m.get(id)
		n, _ := m.env.App.DB.Read().CountOpenChecks(m.ctx, r.ID)
		if r.FlagOpen || n != 0 {
			t.Fatalf("flag %v, open findings %d", r.FlagOpen, n)
		}
	})
}

// TestAvailableEvents: the events each state offers, without approve and unhide
// for an anonymised review.
func TestAvailableEvents(t *testing.T) {
	m := newModEnv(t)
	want := map[string][]string{
		core.ReviewPending:   {"approve", "reject", "remove"},
		core.ReviewPublished: {"reject", "hide", "remove"},
		core.ReviewHidden:    {"unhide", "remove"},
		core.ReviewRejected:  {"remove"},
		core.ReviewRemoved:   {},
	}
	wantAnon := map[string][]string{
		core.ReviewPending: {"reject", "remove"},
		core.ReviewHidden:  {"remove"},
	}
	for state, events := range want {
		for _, anon := range []bool{false, true} {
			id := m.raw("web", state)
			if anon {
				m.anonymize(id)
				if w, ok := wantAnon[state]; ok {
					events = w
				}
			}
			res := m.do("GET", "/admin/v1/reviews/"+id, nil, m.read)
			expect(t, res, 200, "")
			if got := strs(res.JSON["available_events"]); !slices.Equal(got, events) {
				t.Errorf("%s (anonymised %v): %v, want %v", state, anon, got, events)
			}
		}
	}
}

// TestRejectionNotice: a rejection sends the rejection notice with a correction
// link by e-mail at once; the link opens the review for correction.
func TestRejectionNotice(t *testing.T) {
	m := newModEnv(t)
	smtp := sendtest.StartSMTP(t)
	m.env.App.SetMailer(smtp.Mailer())
	id, ext := m.write(review{email: "ayse@mail.example", author: "Ayşe", product: "Red mug"})
	expect(t, m.transition(id, "reject", "off_topic"), 200, "")
	msgs := notices(smtp)
	if len(msgs) != 1 || msgs[0].To[0] != "ayse@mail.example" {
		t.Fatalf("messages %+v", msgs)
	}
	text := msgs[0].Text
	if !strings.Contains(text, "#review_token=") || !strings.Contains(text, "Ürünle veya alışverişle ilgili değil") {
		t.Fatalf("notice text:\n%s", text)
	}
	o, _ := m.env.App.DB.Read().OrderByExternalID(m.ctx, ext)
	invs, _ := m.env.App.DB.Read().InvitationsOfOrder(m.ctx, o.ID)
	var notice store.Invitation
	for _, inv := range invs {
		if inv.Kind == sending.MsgRejection {
			notice = inv
		}
	}
	if notice.State != sending.StateSent || notice.TemplateKey != "rejection:off_topic" || notice.ReviewID != m.get(id).ID {
		t.Fatalf("notice %+v", notice)
	}
	// The correction link's token revises the review.
	tok := regexp.MustCompile(`https://shop\.example/review#review_token=(\S+)`).FindStringSubmatch(text)[1]
	if _, err := m.env.App.Reviews.ReviseReview(m.ctx, &core.Actor{Via: core.ViaSiteKey}, m.channel("web"), reviews.ReviseInput{
		Token: tok, Rating: []byte("5"), Body: "Better now."}); err != nil {
		t.Fatalf("revise with the notice's link: %v", err)
	}
	if r := m.get(id); r.State != core.ReviewPending || r.Body != "Better now." {
		t.Fatalf("revised review %+v", r)
	}

	// Bulk rejections notify too; a review without an order gets none.
	id2, _ := m.write(review{email: "mehmet@mail.example"})
	raw := m.raw("web", core.ReviewPending)
	res := m.do("POST", "/admin/v1/moderation/bulk", map[string]any{"ids": []string{id2, raw}, "action": "reject",
		"reason": "advertising"}, m.mod)
	expect(t, res, 200, "")
	if res.JSON["count"] != float64(2) || len(notices(smtp)) != 2 || notices(smtp)[1].To[0] != "mehmet@mail.example" {
		t.Fatalf("bulk: %s, %d messages", res.Body, len(notices(smtp)))
	}
}

// TestBulkModeration: the 200 cap, the body codes, and that only reviews awaiting
// approval change (anonymised ones, other states and unknown ids are skipped).
func TestBulkModeration(t *testing.T) {
	m := newModEnv(t)
	bulk := func(body any, h map[string]string) map[string]any {
		t.Helper()
		res := m.do("POST", "/admin/v1/moderation/bulk", body, h)
		expect(t, res, 200, "")
		return res.JSON
	}
	many := make([]string, 201)
	for i := range many {
		many[i] = fmt.Sprintf("r_%020d", i)
	}
	for _, c := range []struct {
		name string
		body any
		code string
	}{
		{"201 ids", map[string]any{"ids": many, "action": "approve"}, "invalid / ids"},
		{"no ids", map[string]any{"action": "approve"}, "invalid / ids_required"},
		{"ids not strings", map[string]any{"ids": []int{1}, "action": "approve"}, "invalid / ids"},
		{"no action", map[string]any{"ids": []string{"r_x"}}, "invalid / action_required"},
		{"unknown action", map[string]any{"ids": []string{"r_x"}, "action": "hide"}, "invalid / action"},
		{"reject without reason", map[string]any{"ids": []string{"r_x"}, "action": "reject"}, "invalid / reason_required"},
		{"reject unknown reason", map[string]any{"ids": []string{"r_x"}, "action": "reject", "reason": "meh"}, "invalid / reason"},
	} {
		expect(t, m.do("POST", "/admin/v1/moderation/bulk", c.body, m.mod), 400, c.code)
	}
	expect(t, m.do("POST", "/admin/v1/moderation/bulk", map[string]any{"ids": []string{}, "action": "approve"}, m.read), 403,
		"forbidden / scope_missing")

	p1, p2, p3 := m.raw("web", core.ReviewPending), m.raw("web", core.ReviewPending), m.raw("web-gb", core.ReviewPending)
	pub := m.raw("web", core.ReviewPublished)
	anon := m.raw("web", core.ReviewPending)
	m.anonymize(anon)
	out := bulk(map[string]any{"ids": []string{p1, p2, p3, p1, pub, anon, "r_aaaaaaaaaaaaaaaaaaaa", "nonsense"},
		"action": "approve"}, m.mod)
	if out["count"] != float64(3) || out["skipped"] != float64(4) {
		t.Fatalf("approve: %v", out)
	}
	for _, id := range []string{p1, p2, p3} {
		if r := m.get(id); r.State != core.ReviewPublished || m.history(id)[0].Event != "approve" {
			t.Fatalf("%s: %s", id, r.State)
		}
	}
	if m.get(pub).State != core.ReviewPublished || m.get(anon).State != core.ReviewPending {
		t.Fatal("skipped reviews changed")
	}
	if got := strs(out["skipped_ids"]); !slices.Equal(got, []string{pub, anon, "r_aaaaaaaaaaaaaaaaaaaa", "nonsense"}) {
		t.Fatalf("skipped_ids %v", got)
	}
	// Reject: the same rule; anonymised reviews are skipped too.
	p4 := m.raw("web", core.ReviewPending)
	out = bulk(map[string]any{"ids": []string{p4, p1, anon}, "action": "reject", "reason": "profanity"}, m.mod)
	if out["count"] != float64(1) || out["skipped"] != float64(2) || m.get(p4).State != core.ReviewRejected {
		t.Fatalf("reject: %v", out)
	}
	if h := m.history(p4); h[0].Reason != "profanity" || h[0].ToState != core.ReviewRejected {
		t.Fatalf("history %+v", h)
	}
	// Exactly 200 is accepted.
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = m.raw("web", core.ReviewPending)
	}
	if out = bulk(map[string]any{"ids": ids, "action": "approve"}, m.mod); out["count"] != float64(200) || out["skipped"] != float64(0) {
		t.Fatalf("200: %v", out)
	}
	if _, n, _ := m.env.App.DB.Read().ListActivity(m.ctx, store.ActivityFilter{Action: "review.approve"}); n != 203 {
		t.Fatalf("%d approve activity entries, want 203", n)
	}
}

// TestModerationQueue: the reviews awaiting approval with counters, the channel
// filter and counters.elsewhere.
func TestModerationQueue(t *testing.T) {
	m := newModEnv(t)
	a, _ := m.write(review{author: "Ayşe Yılmaz", product: "Red mug", title: "Lovely"})
	flagged, _ := m.write(review{body: "Call me on 0532 123 45 67 please."})
	gb, _ := m.write(review{channel: "web-gb", email: "jo@mail.example"})
	pub := m.raw("web", core.ReviewPublished)
	m.report(pub, "spam", "v1")
	imported := m.raw("web", core.ReviewPending, func(r *store.Review) {
		r.Origin, r.SourcePlatform, r.SourceName = core.OriginImported, "trendyol", "Trendyol"
	})
	gbCh := m.channel("web-gb")
	m.tx(func(tx *store.Tx) error {
		for i, state := range []string{"pending", "pending", "published"} {
			if _, err := tx.CreateQuestion(m.ctx, store.Question{PublicID: fmt.Sprintf("q_test%016d", i), ChannelID: gbCh.ID,
				Market: "GB", Scope: "variant", VariantKey: "SKU-1", Language: "en", Body: "Is it big?", State: state}); err != nil {
				return err
			}
		}
		return nil
	})

	res := m.do("GET", "/admin/v1/moderation/queue", nil, m.mod)
	expect(t, res, 200, "")
	counters := res.JSON["counters"].(map[string]any)
	if res.JSON["total"] != float64(4) || counters["waiting"] != float64(4) || counters["flagged"] != float64(1) ||
		counters["reported"] != float64(1) {
		t.Fatalf("queue: %s", res.Body)
	}
	if e := counters["elsewhere"].(map[string]any); e["reviews"] != float64(0) || e["responses"] != float64(0) {
		t.Fatalf("elsewhere without channel: %v", e)
	}
	rows := map[string]map[string]any{}
	for _, it := range items(res) {
		rows[it["id"].(string)] = it
	}
	if r := rows[a]; r["product_name"] != "Red mug" || r["source"] != nil || r["author"] != "Ayşe Yılmaz" || r["flag_open"] != false ||
		r["channel"] != "web" || r["state"] != "pending" {
		t.Fatalf("row %v", r)
	}
	if rows[flagged]["flag_open"] != true {
		t.Fatalf("flagged row %v", rows[flagged])
	}
	if src := rows[imported]["source"].(map[string]any); src["platform"] != "trendyol" || src["name"] != "Trendyol" {
		t.Fatalf("imported row source %v", src)
	}

	res = m.do("GET", "/admin/v1/moderation/queue?channel=web", nil, m.mod)
	expect(t, res, 200, "")
	counters = res.JSON["counters"].(map[string]any)
	if res.JSON["total"] != float64(3) || counters["waiting"] != float64(3) || counters["reported"] != float64(1) {
		t.Fatalf("channel web: %s", res.Body)
	}
	if e := counters["elsewhere"].(map[string]any); e["reviews"] != float64(1) || e["responses"] != float64(2) {
		t.Fatalf("elsewhere of web: %v", e)
	}
	res = m.do("GET", "/admin/v1/moderation/queue?channel=web-gb", nil, m.mod)
	if e := res.JSON["counters"].(map[string]any)["elsewhere"].(map[string]any); res.JSON["total"] != float64(1) ||
		items(res)[0]["id"] != gb || e["reviews"] != float64(3) || e["responses"] != float64(0) {
		t.Fatalf("channel web-gb: %s", res.Body)
	}
	res = m.do("GET", "/admin/v1/moderation/queue?q=red+mug", nil, m.mod)
	if res.JSON["total"] != float64(1) || items(res)[0]["id"] != a || len(m.accessLog("reviews.searched")) != 1 {
		t.Fatalf("q: %s", res.Body)
	}
	expect(t, m.do("GET", "/admin/v1/moderation/queue?channel=nope", nil, m.mod), 400, "invalid / channel")
	expect(t, m.do("GET", "/admin/v1/moderation/queue?page_size=500", nil, m.mod), 400, "invalid / page_size")
	expect(t, m.do("GET", "/admin/v1/moderation/queue", nil, m.read), 403, "forbidden / scope_missing")
	// Approving empties the queue by one.
	expect(t, m.transition(a, "approve", ""), 200, "")
	if res := m.do("GET", "/admin/v1/moderation/queue?channel=web", nil, m.mod); res.JSON["counters"].(map[string]any)["waiting"] != float64(2) {
		t.Fatalf("after approve: %s", res.Body)
	}
}
