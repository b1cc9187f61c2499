package admin

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

const moderationBodyLimit = 64 << 10

// decodeOptional parses a JSON body that may be absent or empty.
func decodeOptional(r *http.Request, limit int64, v any) error {
	raw, err := web.ReadBody(r, limit)
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) && ce.Detail == "body_empty" {
			return nil
		}
		return err
	}
	return web.ParseJSON(raw, web.ModeAPI, v)
}

// flagParam reads a 0/1 query flag (invalid / <name> otherwise).
func flagParam(r *http.Request, name string) (bool, error) {
	switch r.URL.Query().Get(name) {
	case "", "0", "false":
		return false, nil
	case "1", "true":
		return true, nil
	}
	return false, core.Invalid(name)
}

// readReviewFilter reads the shared list contract and the review-list filters.
func readReviewFilter(r *http.Request) (reviews.AdminReviewFilter, error) {
	l, err := readListQuery(r)
	if err != nil {
		return reviews.AdminReviewFilter{}, err
	}
	v := r.URL.Query()
	f := reviews.AdminReviewFilter{ListQuery: l, State: v.Get("state"), Channel: v.Get("channel"), Market: v.Get("market"),
		EntryPoint: v.Get("entry_point")}
	if s := v.Get("rating"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 5 {
			return f, core.Invalid("rating")
		}
		f.Rating = n
	}
	if f.FlagOpen, err = flagParam(r, "flag_open"); err != nil {
		return f, err
	}
	if f.Reported, err = flagParam(r, "reported"); err != nil {
		return f, err
	}
	return f, nil
}

// handleReviewList serves GET /admin/v1/reviews: the review list (shared list
// contract) with filters state, channel, market, rating, flag_open, reported,
// entry_point=import and q. export=csv|xlsx|json downloads every matching row
// instead (needs the export permission).
func (h *Handler) handleReviewList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f, err := readReviewFilter(r)
	if err != nil {
		return err
	}
	if format := r.URL.Query().Get("export"); format != "" {
		if !validFormat(format) {
			return core.Invalid("export")
		}
		return h.exportReviews(w, r, a, f, format)
	}
	out, err := h.Reviews.ListAdminReviews(r.Context(), a, f)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// reviewExportHeader are the columns of the CSV and Excel review-list export.
var reviewExportHeader = []string{"id", "channel", "market", "language", "state", "experience", "origin", "rating",
	"title", "body", "author", "name_hidden", "verified", "product_name", "variant_key", "group_key", "flag_open",
	"reports_open", "media_count", "helpful_count", "unhelpful_count", "source_platform", "source_name", "submitted_at",
	"published_at", "open_in_panel"}

func exportTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func (h *Handler) exportReviews(w http.ResponseWriter, r *http.Request, a *core.Actor, f reviews.AdminReviewFilter, format string) error {
	out, err := h.Reviews.ExportAdminReviews(r.Context(), a, f, format)
	if err != nil {
		return err
	}
	b := strconv.FormatBool
	table := exportTable{Sheet: "Reviews", Header: reviewExportHeader}
	for _, it := range out.Items {
		platform, source := "", ""
		if it.Source != nil {
			platform, source = it.Source.Platform, it.Source.Name
		}
		table.Rows = append(table.Rows, []string{it.ID, it.Channel, it.Market, it.Language, it.State, it.Experience,
			it.Origin, strconv.Itoa(it.Rating), it.Title, it.Body, it.Author, b(it.NameHidden), b(it.Verified),
			it.ProductName, it.VariantKey, it.GroupKey, b(it.FlagOpen), strconv.Itoa(it.ReportsOpen),
			strconv.Itoa(it.MediaCount), strconv.Itoa(it.HelpfulCount), strconv.Itoa(it.UnhelpfulCount), platform, source,
			it.SubmittedAt.UTC().Format(time.RFC3339), exportTime(it.PublishedAt), h.Reviews.PanelReviewURL(it.ID)})
	}
	// The incentivized column is added (last) only when a row is incentivised, so
	// an export without an incentive anywhere stays as it was.
	for _, it := range out.Items {
		if !it.Incentivized {
			continue
		}
		table.Header = append(append([]string(nil), reviewExportHeader...), "incentivized")
		for j := range table.Rows {
			table.Rows[j] = append(table.Rows[j], b(out.Items[j].Incentivized))
		}
		break
	}
	filters := exportTable{Sheet: "Filters", Header: []string{"filter", "value"}}
	for _, k := range []string{"q", "state", "channel", "market", "rating", "flag_open", "reported", "entry_point", "sort"} {
		if v, ok := out.Filters[k]; ok {
			filters.Rows = append(filters.Rows, []string{k, v})
		}
	}
	filters.Rows = append(filters.Rows, []string{"exported_at", out.ExportedAt.Format(time.RFC3339)})
	return writeExport(w, format, "reviews-"+out.ExportedAt.Format("20060102"), out, table, filters)
}

// handleReviewGet serves GET /admin/v1/reviews/<id>: the review detail.
func (h *Handler) handleReviewGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Reviews.AdminReviewDetailOf(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleReviewMediaFile serves GET /admin/v1/reviews/<id>/media/<file_id>/<file_name>:
// an original or resized photo, a video or its cover whatever the review's state,
// with Range support and Cache-Control private, no-store. Unknown files and files of
// another review are 404 not_found.
func (h *Handler) handleReviewMediaFile(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v := web.Vars(r)
	f, err := h.Reviews.OpenReviewMedia(r.Context(), v["id"], v["file_id"], v["file_name"])
	if err != nil {
		return err
	}
	defer f.Close()
	hd := w.Header()
	hd.Set("Content-Type", f.ContentType)
	hd.Set("Cache-Control", "private, no-store")
	if f.ETag != "" {
		hd.Set("ETag", f.ETag) // the bucket's; http.ServeContent honours If-None-Match and If-Range with it
	}
	http.ServeContent(w, r, f.Name, f.ModTime, f)
	return nil
}

// handleReviewMediaDelete serves DELETE /admin/v1/reviews/<id>/media/<file_id>:
// body reason (personal_data, profanity, data_subject_request, legal_order; the
// query parameter reason is accepted too). 204 on success.
func (h *Handler) handleReviewMediaDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Reason string `json:"reason"`
	}
	if err := decodeOptional(r, moderationBodyLimit, &in); err != nil {
		return err
	}
	if in.Reason == "" {
		in.Reason = r.URL.Query().Get("reason")
	}
	v := web.Vars(r)
	if err := h.Reviews.RemoveReviewMedia(r.Context(), a, v["id"], v["file_id"], in.Reason); err != nil {
		return err
	}
	return web.NoContent(w)
}

// handleReviewTransition serves POST /admin/v1/reviews/<id>/transition: body event
// and reason; the answer is the review row with the events now offered.
func (h *Handler) handleReviewTransition(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in reviews.ReviewTransitionInput
	if err := web.DecodeJSON(r, moderationBodyLimit, web.ModeAPI, &in); err != nil {
		return err
	}
	out, err := h.Reviews.TransitionReview(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleReportsResolve serves POST /admin/v1/reviews/<id>/reports/resolve: closes
// the review's open reports with an optional note (up to 1000 characters); the
// answer is {"closed": n}.
func (h *Handler) handleReportsResolve(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		Note string `json:"note"`
	}
	if err := decodeOptional(r, moderationBodyLimit, &in); err != nil {
		return err
	}
	n, err := h.Reviews.ResolveReports(r.Context(), a, web.Vars(r)["id"], in.Note)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, map[string]any{"closed": n})
}
