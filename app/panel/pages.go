package panel

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/ai"
	"reviewd/app/core/brand"
	"reviewd/app/core/held"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/core/qa"
	"reviewd/app/core/reviews"
	"reviewd/app/core/sending"
	"reviewd/app/web"
	"reviewd/store"
)

// listQuery reads page and q of a list page (the panel's page sizes are fixed).
func listQuery(r *http.Request, size int) (core.ListQuery, error) {
	l := core.ListQuery{Page: 1, PageSize: size, Sort: "newest"}
	if s := r.URL.Query().Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1_000_000 {
			return l, core.Invalid("page")
		}
		l.Page = n
	}
	q, err := web.Query(r, "q")
	if err != nil || len([]rune(q)) > 200 {
		return l, core.Invalid("q")
	}
	l.Q = q
	if r.URL.Query().Get("sort") == "oldest" {
		l.Sort = "oldest"
	}
	return l, nil
}

// pager gives the addresses of the previous and next page of a list page (of the
// page's own address, pageAddress, when a form's answer shows it).
func pager(r *http.Request, name string, page, pages int) (prev, next string) {
	path := r.URL.Path
	if r.Method == http.MethodPost {
		path = pageAddress(name, r)
	}
	q := r.URL.Query()
	q.Del("notice")
	if page > 1 {
		q.Set("page", strconv.Itoa(page-1))
		prev = path + "?" + q.Encode()
	}
	if page < pages {
		q.Set("page", strconv.Itoa(page+1))
		next = path + "?" + q.Encode()
	}
	return prev, next
}

// ---- overview ----

type bar struct {
	X, Y, W, H int
	Label      string
	Value      int
}

type overviewData struct {
	Waiting, Flagged, Reported, Questions, AnswersWaiting, FailedInvites int
	// Failing are the order connections whose last read failed; Held the
	// marketplace sources with removals held for confirmation (or failed runs).
	Failing     []orders.OrderSourceView
	Held        []marketplace.SourceView
	Weeks       []bar
	Ratings     []bar
	Funnel      []bar
	RatingTotal int
	// Figures are the last 30 days against the 30 before (nil without Insights).
	Figures *figures
	// Deliveries are the message-log attempts per route of the overview's window
	// (only with WhatsApp configured, as GET /admin/v1/overview).
	Deliveries map[string]store.RouteFigures
	// Alerts are the owner alerts holding now (golive.Alerts; the invitations
	// waiting because e-mail sending is not set up among them), for who may
	// change settings.
	Alerts []alertView
}

// bars lays out vertical bars of values in a w x h chart (labels below).
func bars(values []int, labels []string, w, h int) []bar {
	max := 1
	for _, v := range values {
		if v > max {
			max = v
		}
	}
	out := make([]bar, len(values))
	slot := w / len(values)
	for i, v := range values {
		bh := v * (h - 36) / max // 16 px above the tallest bar for its figure, 20 below for labels
		out[i] = bar{X: i*slot + 4, W: slot - 8, H: bh, Y: h - 20 - bh, Label: labels[i], Value: v}
	}
	return out
}

// hbars lays out horizontal bars (funnel, ratings) of width w.
func hbars(values []int, labels []string, w int) []bar {
	max := 1
	for _, v := range values {
		if v > max {
			max = v
		}
	}
	out := make([]bar, len(values))
	for i, v := range values {
		out[i] = bar{X: 0, Y: i * 28, W: v * w / max, H: 20, Label: labels[i], Value: v}
	}
	return out
}

// handleOverview serves GET /panel/: what needs attention and three charts.
func (h *Handler) handleOverview(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	ctx := r.Context()
	v := h.view(r, a, "overview")
	var d overviewData
	one := core.ListQuery{Page: 1, PageSize: 1, Sort: "newest"}
	if a.Can(core.PermModerate) {
		q, err := h.Reviews.ModerationQueue(ctx, a, reviews.QueueFilter{ListQuery: one})
		if err != nil {
			return err
		}
		d.Waiting, d.Flagged, d.Reported = q.Counters.Waiting, q.Counters.Flagged, q.Counters.Reported
	}
	qs, err := h.QA.ListQuestions(ctx, a, qa.QuestionFilter{ListQuery: one})
	if err != nil {
		return err
	}
	d.Questions, d.AnswersWaiting = qs.Counters.Waiting, qs.Counters.AnswersWaiting
	inv, err := h.Sending.ListInvites(ctx, a, sending.InviteFilter{ListQuery: one})
	if err != nil {
		return err
	}
	d.FailedInvites = inv.Counters.Failed
	if d.Alerts, err = h.alerts(ctx, a, v.Lang); err != nil {
		return err
	}
	if a.Can(core.PermWrite) {
		// As GET /admin/v1/order-sources and GET /admin/v1/marketplace/sources
		// (change-settings).
		src, err := h.Orders.ListOrderSources(ctx)
		if err != nil {
			return err
		}
		for _, s := range src.Items {
			if s.LastError != nil || s.Failures > 0 {
				d.Failing = append(d.Failing, s)
			}
		}
		mk, err := h.Marketplace.ListSources(ctx)
		if err != nil {
			return err
		}
		for _, s := range mk.Items {
			if s.Attention != nil {
				d.Held = append(d.Held, s)
			}
		}
	}
	created := inv.Counters.Queued + inv.Counters.Sent + inv.Counters.Failed + inv.Counters.Skipped
	reviewed := int(float64(inv.Counters.Sent)*inv.Counters.Conversion + 0.5)
	d.Funnel = hbars([]int{created, inv.Counters.Sent, reviewed},
		[]string{v.T("funnel_created"), v.T("funnel_sent"), v.T("funnel_reviewed")}, 260)
	if d.Figures, err = h.figures(ctx); err != nil {
		return err
	}
	if h.Insights != nil {
		ov, err := h.Insights.Overview(ctx, "")
		if err != nil {
			return err
		}
		d.Deliveries = ov.Deliveries
	}

	ratings := make([]int, 5)
	for i := range ratings {
		l, err := h.Reviews.ListAdminReviews(ctx, a, reviews.AdminReviewFilter{ListQuery: one,
			State: core.ReviewPublished, Rating: 5 - i})
		if err != nil {
			return err
		}
		ratings[i] = l.Total
		d.RatingTotal += l.Total
	}
	d.Ratings = hbars(ratings, []string{"5★", "4★", "3★", "2★", "1★"}, 300)

	const weeks = 8
	loc := v.Loc
	now := time.Now().In(loc)
	end := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc).AddDate(0, 0, 1)
	counts, err := h.Reviews.ReviewsPerWeek(ctx, end, weeks)
	if err != nil {
		return err
	}
	labels := make([]string, weeks)
	for i := range labels {
		labels[i] = end.AddDate(0, 0, -7*(weeks-i)).Format("02.01")
	}
	d.Weeks = bars(counts, labels, 400, 160)
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// ---- moderation queue ----

type queueData struct {
	List    reviews.ModerationQueueList
	At      string
	Mode    string
	Current *reviewView
	Reasons []brand.CodeLabel
	Q       string
	Page    int
}

// reviewView is a review detail with the reason lists its forms offer.
type reviewView struct {
	reviews.AdminReviewDetail
	RejectReasons []brand.CodeLabel
	RemoveReasons []brand.CodeLabel
	MediaReasons  []brand.CodeLabel
	// NoteForm (reply, resolution) was refused; NoteBody is its text, shown again
	// (or the reply draft asked for).
	NoteForm, NoteBody string
	// Drafts offers reply drafts (ai.provider is not off); Drafted marks a draft.
	Drafts, Drafted bool
}

// ErrWords is the prefix of the words of a refusal of this page's forms: a pin's
// refusals have their own ("pin_err_parent_review_not_published").
func (d *reviewView) ErrWords() string {
	if d.NoteForm == "featured" {
		return "pin_"
	}
	return ""
}

func (h *Handler) reviewView(r *http.Request, a *core.Actor, id, lang string) (*reviewView, error) {
	d, err := h.Reviews.AdminReviewDetailOf(r.Context(), a, id)
	if err != nil {
		return nil, err
	}
	return &reviewView{AdminReviewDetail: d, RejectReasons: brand.Reasons(brand.ReasonsReviewRejection, lang),
		RemoveReasons: brand.Reasons(brand.ReasonsReviewRemoval, lang),
		MediaReasons:  brand.Reasons(brand.ReasonsMediaRemoval, lang), Drafts: h.AI.On()}, nil
}

// queuePageSize is how many waiting reviews one queue page lists.
const queuePageSize = 50

// handleQueue serves GET /panel/queue: the reviews awaiting approval, oldest
// first, with the focused one (at) shown in full; mode=one shows only it.
func (h *Handler) handleQueue(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, queuePageSize)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("sort") == "" {
		l.Sort = "oldest"
	}
	v := h.view(r, a, "queue")
	list, err := h.Reviews.ModerationQueue(r.Context(), a, reviews.QueueFilter{ListQuery: l})
	if err != nil {
		return err
	}
	d := queueData{List: list, Mode: r.URL.Query().Get("mode"), Q: l.Q, Page: l.Page,
		Reasons: brand.Reasons(brand.ReasonsReviewRejection, v.Lang)}
	if d.Mode != "one" {
		d.Mode = "list"
	}
	at := r.URL.Query().Get("at")
	found := false
	for _, it := range list.Items {
		found = found || it.ID == at
	}
	if !found && len(list.Items) > 0 {
		at = list.Items[0].ID
	}
	d.At = at
	if at != "" {
		if d.Current, err = h.reviewView(r, a, at, v.Lang); err != nil {
			return err
		}
	}
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handleQueueItem serves GET /panel/queue/item/<id>: the focused review's panel
// (text, media, checks, reports, actions) as an HTML fragment for the script.
func (h *Handler) handleQueueItem(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := h.view(r, a, "queue")
	cur, err := h.reviewView(r, a, web.Vars(r)["id"], v.Lang)
	if err != nil {
		return err
	}
	v.Data = queueData{Current: cur, At: cur.ID, Reasons: cur.RejectReasons}
	return h.fragment(w, v, "item")
}

// handleBulk serves POST /panel/queue/bulk: ids (repeated), action, reason
// (reviews.BulkModerate, as POST /admin/v1/moderation/bulk).
func (h *Handler) handleBulk(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := reviews.BulkInput{IDs: r.PostForm["ids"], Action: r.PostForm.Get("action"), Reason: r.PostForm.Get("reason")}
	if in.IDs == nil {
		in.IDs = []string{}
	}
	out, err := h.Reviews.BulkModerate(r.Context(), a, in)
	if err != nil {
		return err
	}
	return back(w, r, "/panel/queue", "bulk:"+strconv.Itoa(out.Count))
}

// ---- reviews ----

type reviewsData struct {
	List                                      reviews.AdminReviewList
	Q, State, Rating, Channel, Flag, Reported string
	Query                                     string // the filters as a query string, for export links
	Prev, Next                                string
	States                                    []string
}

// handleReviews serves GET /panel/reviews: the review list with the admin list's
// filters and export links.
func (h *Handler) handleReviews(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 25)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := reviews.AdminReviewFilter{ListQuery: l, State: q.Get("state"), Channel: q.Get("channel"), Market: q.Get("market")}
	if s := q.Get("rating"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 5 {
			return core.Invalid("rating")
		}
		f.Rating = n
	}
	f.FlagOpen, f.Reported = q.Get("flag_open") == "1", q.Get("reported") == "1"
	list, err := h.Reviews.ListAdminReviews(r.Context(), a, f)
	if err != nil {
		return err
	}
	v := h.view(r, a, "reviews")
	d := reviewsData{List: list, Q: l.Q, State: f.State, Rating: q.Get("rating"), Channel: f.Channel,
		Flag: q.Get("flag_open"), Reported: q.Get("reported"),
		States: []string{core.ReviewPending, core.ReviewPublished, core.ReviewRejected, core.ReviewHidden, core.ReviewRemoved}}
	eq := q
	eq.Del("page")
	eq.Del("notice")
	d.Query = eq.Encode()
	if l.Page > 1 {
		eq.Set("page", strconv.Itoa(l.Page-1))
		d.Prev = "/panel/reviews?" + eq.Encode()
	}
	if l.Page < list.Pages {
		eq.Set("page", strconv.Itoa(l.Page+1))
		d.Next = "/panel/reviews?" + eq.Encode()
	}
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handleReview serves GET /panel/reviews/<id>: the detail with proof, history,
// checks, reports, media (with removal) and the trace download.
func (h *Handler) handleReview(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := h.view(r, a, "review")
	d, err := h.reviewView(r, a, web.Vars(r)["id"], v.Lang)
	if err != nil {
		return err
	}
	h.heldOf(r, v, d.ID)
	v.Loc = v.zoneOf(d.Channel) // the review's dates as its channel's pages show them
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// handleOpenInPanel serves GET /admin/reviews/<id>, the open-in-panel address of
// the exports: the panel's review page.
func (h *Handler) handleOpenInPanel(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	http.Redirect(w, r, "/panel/reviews/"+web.Vars(r)["id"], http.StatusSeeOther)
	return nil
}

// handleReviewTransition serves POST /panel/reviews/<id>/transition: event and
// reason (reviews.TransitionReview, as POST /admin/v1/reviews/<id>/transition).
func (h *Handler) handleReviewTransition(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := reviews.ReviewTransitionInput{Event: r.PostForm.Get("event"), Reason: r.PostForm.Get("reason")}
	id := web.Vars(r)["id"]
	var err error
	if strings.TrimSpace(in.Event) == reviews.EventRemove && r.PostForm.Get("confirm") != "1" {
		err = errUnconfirmed // removing is for good: the form's box must be ticked
	} else if held.Holds(strings.TrimSpace(in.Event)) && h.Held != nil {
		err = h.hold(w, r, a, id, in) // approve and reject wait out their undo window (undo.go)
	} else if _, err = h.Reviews.TransitionReview(r.Context(), a, id, in); err == nil {
		return back(w, r, "/panel/reviews/"+id, in.Event)
	}
	if err != nil && !wantsJSON(r) {
		// A refusal (a reason not chosen, for one) is shown on the review's page.
		d, derr := h.reviewView(r, a, id, language(r))
		if derr != nil {
			return err
		}
		return h.refused(w, r, a, "review", d, err)
	}
	return err
}

// handleMediaRemove serves POST /panel/reviews/<id>/media/<file_id>/remove:
// reason (reviews.RemoveReviewMedia, as DELETE /admin/v1/reviews/<id>/media/<file_id>).
func (h *Handler) handleMediaRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	vars := web.Vars(r)
	if err := h.Reviews.RemoveReviewMedia(r.Context(), a, vars["id"], vars["file_id"], r.PostForm.Get("reason")); err != nil {
		return err
	}
	return back(w, r, "/panel/reviews/"+vars["id"], "media_removed")
}

// handleReportsResolve serves POST /panel/reviews/<id>/reports/resolve: note
// (reviews.ResolveReports, as POST /admin/v1/reviews/<id>/reports/resolve).
func (h *Handler) handleReportsResolve(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	if _, err := h.Reviews.ResolveReports(r.Context(), a, id, r.PostForm.Get("note")); err != nil {
		return err
	}
	return back(w, r, "/panel/reviews/"+id, "reports_resolved")
}

// ---- questions ----

type questionsData struct {
	List                 qa.QuestionPage
	Q, State, Prev, Next string
}

// handleInvitations serves GET /panel/invitations: invitations with counters and
// the latest message log, the retry of failed invitations and the opt-out lookup.
func (h *Handler) handleInvitations(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showInvitations(w, r, a, nil)
}

func (h *Handler) showInvitations(w http.ResponseWriter, r *http.Request, a *core.Actor, opt *optOutResult) error {
	l, err := listQuery(r, 25)
	if err != nil {
		return err
	}
	st := r.URL.Query().Get("state")
	inv, err := h.Sending.ListInvites(r.Context(), a, sending.InviteFilter{ListQuery: l, State: st})
	if err != nil {
		return err
	}
	logs, err := h.Sending.ListSendLogs(r.Context(), a, sending.SendLogFilter{ListQuery: core.ListQuery{Page: 1,
		PageSize: 15, Sort: "newest"}})
	if err != nil {
		return err
	}
	d := invitationsData{Invites: inv, Logs: logs, State: st, OptOuts: opt}
	d.Prev, d.Next = pager(r, "invitations", inv.Page, inv.Pages)
	return h.show(w, r, a, "invitations", d)
}

// ---- settings ----

// handleSettings serves GET /panel/settings: the settings form.
func (h *Handler) handleSettings(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	s, err := h.Brand.SettingsOf(r.Context())
	if err != nil {
		return err
	}
	d := settingsPage{SettingsView: s}
	if h.AI.On() {
		st, err := h.AI.Status(r.Context())
		if err != nil {
			return err
		}
		d.AI = &st
	}
	v := h.view(r, a, "settings")
	v.Data = d
	h.render(w, r, http.StatusOK, v)
	return nil
}

// settingsPage is the settings form's data: the settings and, while ai.provider
// is not off, the AI package's status (its switches are shown then only).
type settingsPage struct {
	brand.SettingsView
	AI *ai.StatusView
}

// settingsText and settingsNumber are the form fields sent as they are; booleans
// come as checkboxes with a marker field.
var (
	settingsText   = []string{"time_zone", "send_window", "publishing_method", "reply_tone", "invite_delivery", "reminder_delivery", "webhook_url", "support_url", "sender_address"}
	settingsNumber = []string{"invite_delay_days", "daily_limit", "reminder_after_days", "warning_limit"}
	settingsBool   = []string{"questions_enabled", "whatsapp_fallback_email", "ai_summary_enabled", "ai_translation_enabled"}
)

// handleSettingsSave serves POST /panel/settings: the fields of the form that
// changed (brand.UpdateSettings, as POST /admin/v1/settings).
func (h *Handler) handleSettingsSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	cur, err := h.Brand.SettingsOf(r.Context())
	if err != nil {
		return err
	}
	var curMap map[string]json.RawMessage
	raw, _ := json.Marshal(cur)
	_ = json.Unmarshal(raw, &curMap)
	fields := map[string]json.RawMessage{}
	for _, k := range settingsText {
		if vals, ok := r.PostForm[k]; ok {
			b, _ := json.Marshal(strings.TrimSpace(vals[0]))
			if string(b) != string(curMap[k]) {
				fields[k] = b
			}
		}
	}
	for _, k := range settingsNumber {
		if vals, ok := r.PostForm[k]; ok {
			s := strings.TrimSpace(vals[0])
			b, _ := json.Marshal(s) // not a number: the service answers invalid / <field>
			if n, err := strconv.Atoi(s); err == nil {
				b, _ = json.Marshal(n)
			}
			if string(b) != string(curMap[k]) {
				fields[k] = b
			}
		}
	}
	for _, k := range settingsBool {
		if r.PostForm.Get(k+"_shown") == "1" {
			b, _ := json.Marshal(r.PostForm.Get(k) == "1")
			if string(b) != string(curMap[k]) {
				fields[k] = b
			}
		}
	}
	if len(fields) == 0 {
		return back(w, r, "/panel/settings", "unchanged")
	}
	if _, err := h.Brand.UpdateSettings(r.Context(), a, fields); err != nil {
		return err
	}
	return back(w, r, "/panel/settings", "saved")
}

// handleWhatsAppTest serves POST /panel/settings/whatsapp-test: the invitation
// template to the number typed (as POST /admin/v1/settings/whatsapp-test).
func (h *Handler) handleWhatsAppTest(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if _, err := h.Sending.SendWhatsAppTest(r.Context(), a, r.PostForm.Get("phone")); err != nil {
		return err
	}
	return back(w, r, "/panel/settings", "whatsapp_test_sent")
}
