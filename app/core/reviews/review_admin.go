package reviews

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	chk "reviewd/app/core/checks"
	"reviewd/app/core/readmodel"
	"reviewd/store"
)

// Admin review list and detail (spec 3, "Resources and their fields").

// EntryPointImport lists only imported reviews (GET /admin/v1/reviews?entry_point=import).
const EntryPointImport = "import"

// MaxReviewExport is the most rows one review-list export carries.
const MaxReviewExport = 100000

// MaxResolveNote is the longest note of POST /admin/v1/reviews/<id>/reports/resolve.
const MaxResolveNote = 1000

// reviewStates lists every review state.
var reviewStates = []string{core.ReviewPending, core.ReviewPublished, core.ReviewRejected, core.ReviewHidden, core.ReviewRemoved}

// AdminReviewFilter selects reviews for GET /admin/v1/reviews and the moderation
// queue.
type AdminReviewFilter struct {
	core.ListQuery
	State      string
	Channel    string // channel code
	Market     string
	Rating     int
	FlagOpen   bool
	Reported   bool
	EntryPoint string // "" or import
	NotHeld    bool   // leave out reviews with a held panel decision
}

// ReviewSource names the platform an imported review came from.
type ReviewSource struct {
	Platform string `json:"platform"`
	Name     string `json:"name"`
}

// AdminReviewRow is one row of the admin review list: the review fields plus
// product_name, flag_open and source (null for own reviews). author is the full
// name as written.
type AdminReviewRow struct {
	ID             string         `json:"id"`
	Channel        string         `json:"channel"`
	Market         string         `json:"market"`
	Language       string         `json:"language"`
	State          string         `json:"state"`
	Experience     string         `json:"experience"`
	Origin         string         `json:"origin"`
	Rating         int            `json:"rating"`
	Title          string         `json:"title"`
	Body           string         `json:"body"`
	Author         string         `json:"author"`
	NameHidden     bool           `json:"name_hidden"`
	Verified       bool           `json:"verified"`
	Incentivized   bool           `json:"incentivized,omitempty"` // only when true
	VariantKey     string         `json:"variant_key"`
	GroupKey       string         `json:"group_key"`
	ProductName    string         `json:"product_name"`
	Aspects        map[string]int `json:"aspects"`
	FlagOpen       bool           `json:"flag_open"`
	ReportsOpen    int            `json:"reports_open"`
	MediaCount     int            `json:"media_count"`
	HelpfulCount   int            `json:"helpful_count"`
	UnhelpfulCount int            `json:"unhelpful_count"`
	Anonymized     bool           `json:"anonymized"`
	Source         *ReviewSource  `json:"source"`
	SubmittedAt    time.Time      `json:"submitted_at"`
	PublishedAt    *time.Time     `json:"published_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
}

// AdminReviewList is the answer of GET /admin/v1/reviews (shared list contract).
type AdminReviewList struct {
	Items    []AdminReviewRow `json:"items"`
	Total    int              `json:"total"`
	Page     int              `json:"page"`
	Pages    int              `json:"pages"`
	PageSize int              `json:"page_size"`
}

func AdminRowOf(r store.AdminReviewRow) AdminReviewRow {
	row := AdminReviewRow{ID: r.PublicID, Channel: r.ChannelCode, Market: r.Market, Language: r.Language, State: r.State,
		Experience: r.Experience, Origin: r.Origin, Rating: r.Rating, Title: r.Title, Body: r.Body, Author: r.AuthorName,
		NameHidden: r.HideName, Verified: core.Verified(r.Review), Incentivized: r.Incentivized, VariantKey: r.VariantKey, GroupKey: r.GroupKey,
		ProductName: r.ProductName, Aspects: brand.StoredAspects(r.Aspects), FlagOpen: r.FlagOpen, ReportsOpen: r.ReportsOpen,
		MediaCount: r.MediaCount, HelpfulCount: r.HelpfulCount, UnhelpfulCount: r.UnhelpfulCount,
		Anonymized: !r.AnonymizedAt.IsZero(), SubmittedAt: r.SubmittedAt, PublishedAt: moderationTime(r.PublishedAt),
		UpdatedAt: r.UpdatedAt}
	if r.Origin == core.OriginImported {
		row.Source = &ReviewSource{Platform: r.SourcePlatform, Name: r.SourceName}
	}
	return row
}

// isReviewID reports whether s has the form of a review id (r_<20 base32>).
func isReviewID(s string) bool {
	if len(s) != 22 || !strings.HasPrefix(s, "r_") {
		return false
	}
	for _, r := range s[2:] {
		if !(r >= 'a' && r <= 'z' || r >= '2' && r <= '7') {
			return false
		}
	}
	return true
}

// storeReviewFilter validates f and turns it into the store filter. Errors:
// invalid / state, channel, channel_market_mismatch, rating, entry_point.
func storeReviewFilter(ctx context.Context, q *store.Q, f AdminReviewFilter) (store.AdminReviewFilter, error) {
	sf := store.AdminReviewFilter{State: f.State, Rating: f.Rating, FlagOpen: f.FlagOpen, Reported: f.Reported, NotHeld: f.NotHeld,
		Oldest: f.Sort == "oldest", Limit: f.PageSize, Offset: f.Offset()}
	if f.State != "" && !slices.Contains(reviewStates, f.State) {
		return sf, core.Invalid("state")
	}
	if f.Rating < 0 || f.Rating > 5 {
		return sf, core.Invalid("rating")
	}
	switch f.EntryPoint {
	case "":
	case EntryPointImport:
		sf.Origin = core.OriginImported
	default:
		return sf, core.Invalid("entry_point")
	}
	sf.Market = strings.ToUpper(strings.TrimSpace(f.Market))
	only, err := core.ChannelFilter(ctx, q, f.Channel, sf.Market)
	if err != nil {
		return sf, err
	}
	sf.ChannelID = only.ID
	sf.Q = strings.TrimSpace(f.Q)
	if isReviewID(sf.Q) {
		sf.QID = sf.Q
	}
	return sf, nil
}

// ListAdminReviews lists reviews for the panel (GET /admin/v1/reviews) with the
// filters state, channel, market, rating, flag_open, reported, entry_point=import
// and q (title, text, product name and codes, order number, author name and e-mail;
// a full review id returns that review). A search (q) shows whose reviews match and
// is logged in the personal-data access log as reviews.searched.
func (c *Service) ListAdminReviews(ctx context.Context, a *core.Actor, f AdminReviewFilter) (AdminReviewList, error) {
	out := AdminReviewList{Items: []AdminReviewRow{}, Page: f.Page, PageSize: f.PageSize}
	q := c.DB.Read()
	sf, err := storeReviewFilter(ctx, q, f)
	if err != nil {
		return out, err
	}
	rows, total, err := q.ListAdminReviews(ctx, sf)
	if err != nil {
		return out, err
	}
	out.Total, out.Pages = total, core.PageCount(total, f.PageSize)
	for _, r := range rows {
		out.Items = append(out.Items, AdminRowOf(r))
	}
	if sf.Q == "" {
		return out, nil
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "reviews.searched", "review", "", len(out.Items))
	})
	return out, err
}

// ReviewExport is a review-list export: the filters it was made with and every
// matching row (up to MaxReviewExport).
type ReviewExport struct {
	Filters    map[string]string `json:"filters"`
	ExportedAt time.Time         `json:"exported_at"`
	Items      []AdminReviewRow  `json:"items"`
}

// ExportAdminReviews returns every review under f (paging ignored, at most
// MaxReviewExport) for a file download (export=csv|xlsx|json). The actor needs the
// export permission (403 forbidden / scope_missing). The download is written to the
// personal-data access log (reviews.exported) and the activity history with its
// format, row count and filters.
func (c *Service) ExportAdminReviews(ctx context.Context, a *core.Actor, f AdminReviewFilter, format string) (ReviewExport, error) {
	out := ReviewExport{Items: []AdminReviewRow{}}
	if !a.Can(core.PermExport) {
		return out, core.ErrScopeMissing
	}
	q := c.DB.Read()
	sf, err := storeReviewFilter(ctx, q, f)
	if err != nil {
		return out, err
	}
	sf.Limit, sf.Offset = MaxReviewExport, 0
	rows, _, err := q.ListAdminReviews(ctx, sf)
	if err != nil {
		return out, err
	}
	for _, r := range rows {
		out.Items = append(out.Items, AdminRowOf(r))
	}
	out.Filters = map[string]string{}
	for k, v := range map[string]string{"q": sf.Q, "state": f.State, "channel": f.Channel, "market": sf.Market,
		"entry_point": f.EntryPoint, "sort": f.Sort} {
		if v != "" {
			out.Filters[k] = v
		}
	}
	if f.Rating != 0 {
		out.Filters["rating"] = strconv.Itoa(f.Rating)
	}
	if f.FlagOpen {
		out.Filters["flag_open"] = "1"
	}
	if f.Reported {
		out.Filters["reported"] = "1"
	}
	out.ExportedAt = c.Now().UTC()
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if err := c.LogAccess(ctx, tx, a, "reviews.exported", "review", "", len(out.Items)); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "reviews.exported", "review", "", map[string]any{"format": format,
			"rows": len(out.Items), "filters": out.Filters})
	})
	return out, err
}

// ReviewProof is the proof of purchase of a review in the panel: method
// (tokenized_invite, order_check or source_platform), the order number (or
// erased-order:<32 hex> once the order's customer data is erased) and the Returned
// mark.
type ReviewProof struct {
	Method         string     `json:"method"`
	OrderReference string     `json:"order_reference"`
	Returned       bool       `json:"returned"`
	ReturnedAt     *time.Time `json:"returned_at"`
}

// ReviewHistoryEntry is one entry of a review's history.
type ReviewHistoryEntry struct {
	Event     string          `json:"event"`
	FromState string          `json:"from_state"`
	ToState   string          `json:"to_state"`
	Reason    string          `json:"reason"`
	ActorType string          `json:"actor_type"`
	ActorName string          `json:"actor_name"`
	Detail    json.RawMessage `json:"detail"`
	At        time.Time       `json:"at"`
}

// ReviewCheckView is one automatic check result.
type ReviewCheckView struct {
	// Check and Reasons are set for the AI package's ai_review check only (its
	// outcome is pass or hold; CONTRACT "AI package").
	Check      string     `json:"check,omitempty"`
	Reasons    *[]string  `json:"reasons,omitempty"`
	Kind       string     `json:"kind"`
	Outcome    string     `json:"outcome"`
	Finding    string     `json:"finding"`
	Field      string     `json:"field"`
	Open       bool       `json:"open"`
	At         time.Time  `json:"at"`
	ResolvedAt *time.Time `json:"resolved_at"`
	Resolution string     `json:"resolution"`
}

// ReviewReportView is one visitor report of a review.
type ReviewReportView struct {
	ID         string     `json:"id"`
	Reason     string     `json:"reason"`
	Note       string     `json:"note"`
	State      string     `json:"state"`
	CreatedAt  time.Time  `json:"created_at"`
	ResolvedAt *time.Time `json:"resolved_at"`
	ResolvedBy string     `json:"resolved_by"`
}

// AdminMediaItem is a media item in the review detail; url, poster_url and srcset
// point to the admin media endpoint and are empty until the file is ready.
type AdminMediaItem struct {
	ID            string     `json:"id"`
	Kind          string     `json:"kind"`
	State         string     `json:"state"`
	URL           string     `json:"url"`
	PosterURL     string     `json:"poster_url"`
	Srcset        string     `json:"srcset"`
	Width         int        `json:"width"`
	Height        int        `json:"height"`
	AltText       string     `json:"alt_text"`
	RemovalReason string     `json:"removal_reason"`
	RemovedAt     *time.Time `json:"removed_at"`
}

// ImportedView is the source of an imported review.
type ImportedView struct {
	Platform string `json:"platform"`
	Name     string `json:"name"`
	URL      string `json:"url"`
	ReviewID string `json:"review_id"`
}

// AdminReviewDetail is the answer of GET /admin/v1/reviews/<id>.
type AdminReviewDetail struct {
	AdminReviewRow
	Proof               ReviewProof          `json:"proof"`
	History             []ReviewHistoryEntry `json:"history"`
	Checks              []ReviewCheckView    `json:"checks"`
	Reports             []ReviewReportView   `json:"reports"`
	AvailableEvents     []string             `json:"available_events"`
	Media               []AdminMediaItem     `json:"media"`
	MediaRemovalReasons []string             `json:"media_removal_reasons"`
	Imported            *ImportedView        `json:"imported,omitempty"`
	// SellerResponse and Resolution are the brand's notes (null when none).
	SellerResponse *SellerResponseView `json:"seller_response"`
	Resolution     *ResolutionView     `json:"resolution"`
	// Featured: the brand pinned the review to the top of its product's list
	// (absent when not).
	Featured bool `json:"featured,omitempty"`
}

// AdminMediaBase is the admin address of a review's media item's files, ending in
// "/": {public_url}/admin/v1/reviews/<review>/media/<file>/.
func (c *Service) AdminMediaBase(reviewPublicID, mediaPublicID string) string {
	return strings.TrimRight(c.PublicURL, "/") + "/admin/v1/reviews/" + reviewPublicID + "/media/" + mediaPublicID + "/"
}

// PanelReviewURL is the open-in-panel address of a review.
func (c *Service) PanelReviewURL(reviewPublicID string) string {
	return strings.TrimRight(c.PublicURL, "/") + "/admin/reviews/" + reviewPublicID
}

// ProofOf builds the proof of a review.
func (c *Service) ProofOf(ctx context.Context, q *store.Q, r store.Review) (ReviewProof, error) {
	p := ReviewProof{Method: r.VerificationMethod, Returned: !r.ReturnedAt.IsZero(), ReturnedAt: moderationTime(r.ReturnedAt)}
	if r.Origin == core.OriginImported {
		p.Method = core.ProofSourcePlatform
		return p, nil
	}
	if r.OrderID == 0 {
		return p, nil
	}
	o, err := q.OrderByID(ctx, r.OrderID)
	if errors.Is(err, store.ErrNotFound) {
		return p, nil
	}
	if err != nil {
		return p, err
	}
	p.OrderReference = o.ExternalID
	if o.Erased() {
		p.OrderReference = c.Keys.ErasedOrderRef(o.ID)
	}
	return p, nil
}

func rawDetail(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return json.RawMessage("{}")
	}
	return json.RawMessage(s)
}

// AdminReview loads one review with its list fields.
func AdminReview(ctx context.Context, q *store.Q, publicID string) (store.AdminReviewRow, error) {
	if !isReviewID(publicID) {
		return store.AdminReviewRow{}, core.ErrNotFound
	}
	rows, _, err := q.ListAdminReviews(ctx, store.AdminReviewFilter{QID: publicID, Limit: 1})
	if err != nil {
		return store.AdminReviewRow{}, err
	}
	if len(rows) == 0 {
		return store.AdminReviewRow{}, core.ErrNotFound
	}
	return rows[0], nil
}

// reviewDetail builds the panel view of a review over q.
func (c *Service) reviewDetail(ctx context.Context, q *store.Q, r store.AdminReviewRow) (AdminReviewDetail, error) {
	d := AdminReviewDetail{AdminReviewRow: AdminRowOf(r), History: []ReviewHistoryEntry{}, Checks: []ReviewCheckView{},
		Reports: []ReviewReportView{}, AvailableEvents: AvailableReviewEvents(r.State, !r.AnonymizedAt.IsZero()),
		Media: []AdminMediaItem{}, MediaRemovalReasons: mediaRemovalCodes()}
	var err error
	if d.Proof, err = c.ProofOf(ctx, q, r.Review); err != nil {
		return d, err
	}
	if r.Origin == core.OriginImported {
		d.Imported = &ImportedView{Platform: r.SourcePlatform, Name: r.SourceName, URL: r.SourceURL, ReviewID: r.SourceReviewID}
	}
	if d.SellerResponse, d.Resolution, err = CurrentNotes(ctx, q, r.ID); err != nil {
		return d, err
	}
	if d.Featured, err = q.IsPinned(ctx, r.ID); err != nil {
		return d, err
	}
	events, err := q.ReviewEvents(ctx, r.ID)
	if err != nil {
		return d, err
	}
	for _, e := range events {
		d.History = append(d.History, ReviewHistoryEntry{Event: e.Event, FromState: e.FromState, ToState: e.ToState,
			Reason: e.Reason, ActorType: e.ActorType, ActorName: e.ActorName, Detail: rawDetail(e.Detail), At: e.At})
	}
	checks, err := q.ReviewChecks(ctx, r.ID)
	if err != nil {
		return d, err
	}
	for _, k := range checks {
		v := ReviewCheckView{Kind: k.Kind, Outcome: k.Outcome, Finding: k.Finding, Field: k.Field,
			Open: k.Open(), At: k.At, ResolvedAt: moderationTime(k.ResolvedAt), Resolution: k.Resolution}
		if k.Kind == chk.CheckAIReview {
			reasons := []string{}
			v.Check, v.Outcome, v.Reasons = chk.CheckAIReview, "pass", &reasons
			if k.Outcome == chk.CheckFlagged {
				reasons = strings.Split(k.Finding, chk.AIReasonSep)
				v.Outcome = "hold"
			}
		}
		d.Checks = append(d.Checks, v)
	}
	reports, err := q.ReportsOfReview(ctx, r.ID)
	if err != nil {
		return d, err
	}
	for _, p := range reports {
		d.Reports = append(d.Reports, ReviewReportView{ID: p.PublicID, Reason: p.Reason, Note: p.Note, State: p.State,
			CreatedAt: p.CreatedAt, ResolvedAt: moderationTime(p.ResolvedAt), ResolvedBy: p.ResolvedBy})
	}
	media, err := q.MediaOfReview(ctx, r.ID)
	if err != nil {
		return d, err
	}
	for _, m := range media {
		it := AdminMediaItem{ID: m.PublicID, Kind: m.Kind, State: m.State, Width: m.Width, Height: m.Height,
			AltText: m.AltText, RemovalReason: m.RemovalReason, RemovedAt: moderationTime(m.RemovedAt)}
		if v, ok := readmodel.MediaItem(m, c.AdminMediaBase(r.PublicID, m.PublicID)); ok {
			it.URL, it.PosterURL, it.Srcset = v.URL, v.PosterURL, v.Srcset
		}
		d.Media = append(d.Media, it)
	}
	return d, nil
}

func mediaRemovalCodes() []string {
	var out []string
	for _, r := range brand.Reasons(brand.ReasonsMediaRemoval, "en") {
		out = append(out, r.Code)
	}
	return out
}

// AdminReviewDetailOf returns the panel view of a review (GET
// /admin/v1/reviews/<id>): the full author name, proof, history, checks, reports,
// the events offered, media at admin addresses and the media removal reasons. The
// read is logged as review.viewed. Unknown ids: 404 not_found.
func (c *Service) AdminReviewDetailOf(ctx context.Context, a *core.Actor, publicID string) (AdminReviewDetail, error) {
	var d AdminReviewDetail
	q := c.DB.Read()
	r, err := AdminReview(ctx, q, publicID)
	if err != nil {
		return d, err
	}
	if d, err = c.reviewDetail(ctx, q, r); err != nil {
		return d, err
	}
	err = c.DB.WithTx(ctx, func(tx *store.Tx) error {
		return c.LogAccess(ctx, tx, a, "review.viewed", "review", r.PublicID, 1)
	})
	return d, err
}

// RemoveReviewMedia deletes a photo or video of a review (DELETE
// /admin/v1/reviews/<id>/media/<file_id>) for one of the four media removal
// reasons: the item is marked removed with the reason, its files are deleted from
// disk (public and closed areas) once the change is committed, and the review's
// history and the activity history record it. The review's text, rating and state do
// not change. Errors: invalid / reason_required, reason; 404 not_found for an
// unknown review, a file of another review or one removed already.
func (c *Service) RemoveReviewMedia(ctx context.Context, a *core.Actor, reviewPublicID, mediaPublicID, reason string) error {
	reason = strings.TrimSpace(reason)
	switch {
	case reason == "":
		return core.Invalid("reason_required")
	case !brand.ReasonAllowed(brand.ReasonsMediaRemoval, reason):
		return core.Invalid("reason")
	}
	if !validMediaID(mediaPublicID) {
		return core.ErrNotFound
	}
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if !isReviewID(reviewPublicID) {
			return core.ErrNotFound
		}
		r, err := tx.ReviewByPublicID(ctx, reviewPublicID)
		if err != nil {
			return err
		}
		m, err := tx.MediaByPublicID(ctx, mediaPublicID)
		if err != nil {
			return err
		}
		if m.ReviewID != r.ID || m.State == store.MediaRemoved {
			return core.ErrNotFound
		}
		if err := tx.RemoveMedia(ctx, m.ID, reason); err != nil {
			return err
		}
		detail := map[string]any{"media": m.PublicID, "kind": m.Kind}
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventMediaGone, r.State, r.State, reason, detail); err != nil {
			return err
		}
		if err := c.Record(ctx, tx, a, "review.media_removed", "review", r.PublicID,
			map[string]any{"media": m.PublicID, "reason": reason}); err != nil {
			return err
		}
		return c.afterReviewStateChange(ctx, tx, r.ID)
	})
	if err != nil {
		return err
	}
	c.DeleteMediaFiles(mediaPublicID)
	return nil
}

// ResolveReports closes every open report of a review (POST
// /admin/v1/reviews/<id>/reports/resolve) with an optional resolution note (up to
// 1000 characters; invalid / note_too_long) kept in the review's history; it
// returns how many were closed. Unknown reviews: 404 not_found.
func (c *Service) ResolveReports(ctx context.Context, a *core.Actor, reviewPublicID, note string) (int64, error) {
	note = core.MultiLine(note)
	if utf8.RuneCountInString(note) > MaxResolveNote {
		return 0, core.Invalid("note_too_long")
	}
	var closed int64
	err := c.DB.WithTx(ctx, func(tx *store.Tx) error {
		if !isReviewID(reviewPublicID) {
			return core.ErrNotFound
		}
		r, err := tx.ReviewByPublicID(ctx, reviewPublicID)
		if err != nil {
			return err
		}
		_, _, by := historyActor(a)
		if closed, err = tx.CloseReports(ctx, r.ID, by); err != nil {
			return err
		}
		detail := map[string]any{"closed": closed, "note": note}
		if err := c.AddReviewEvent(ctx, tx, a, r.ID, eventReportsEnd, r.State, r.State, "", detail); err != nil {
			return err
		}
		return c.Record(ctx, tx, a, "review.reports_resolved", "review", r.PublicID, map[string]any{"closed": closed})
	})
	return closed, err
}

// moderationTime is nil for the zero time.
func moderationTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// CurrentNotes reads a review's seller response and resolution note (nil when
// none).
func CurrentNotes(ctx context.Context, q *store.Q, reviewID int64) (*SellerResponseView, *ResolutionView, error) {
	var resp *SellerResponseView
	var res *ResolutionView
	n, err := q.SellerResponseOf(ctx, reviewID)
	switch {
	case err == nil:
		resp = &SellerResponseView{Body: n.Body, PublishedAt: n.At, Notice: n.Notice}
	case !errors.Is(err, store.ErrNotFound):
		return nil, nil, err
	}
	n, err = q.ResolutionOf(ctx, reviewID)
	switch {
	case err == nil:
		res = &ResolutionView{Body: n.Body, CreatedAt: n.At}
	case !errors.Is(err, store.ErrNotFound):
		return nil, nil, err
	}
	return resp, res, nil
}
