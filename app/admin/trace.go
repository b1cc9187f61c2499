package admin

import (
	"net/http"
	"strconv"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviewtrace"
	"reviewd/app/web"
)

// traceHeader are the columns of the CSV and Excel trace downloads; every row
// carries the review id and its open-in-panel address.
var traceHeader = []string{"review_id", "open_in_panel", "at", "subject_type", "subject_id", "event", "from_state",
	"to_state", "reason", "actor_type", "actor_name", "note"}

// handleReviewTrace serves GET /admin/v1/reviews/<id>/trace: the review and its
// timeline (history steps, seller responses, reports and their resolution notes,
// the brand's resolution notes, rejection notices). format=json, csv or xlsx downloads it (CSV and Excel carry the
// open-in-panel address, JSON does not) and records review_history.downloaded.
func (h *Handler) handleReviewTrace(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	format := r.URL.Query().Get("format")
	id := web.Vars(r)["id"]
	t, err := reviewtrace.TraceOf(r.Context(), h.Reviews, a, id, format)
	if err != nil {
		return err
	}
	if format == "" {
		w.Header().Set("Cache-Control", "no-store")
		return web.JSON(w, http.StatusOK, t)
	}
	table := exportTable{Sheet: "Timeline", Header: traceHeader}
	for _, e := range t.Timeline {
		table.Rows = append(table.Rows, []string{t.Review.ID, t.PanelURL, e.At.UTC().Format(time.RFC3339Nano),
			e.SubjectType, e.SubjectID, e.Event, e.FromState, e.ToState, e.Reason, e.ActorType, e.ActorName, e.Note})
	}
	rv := t.Review
	response, resolution := "", ""
	if t.SellerResponse != nil {
		response = t.SellerResponse.Body
	}
	if t.Resolution != nil {
		resolution = t.Resolution.Body
	}
	review := exportTable{Sheet: "Review", Header: []string{"field", "value"}, Rows: [][]string{
		{"id", rv.ID}, {"open_in_panel", t.PanelURL}, {"channel", rv.Channel}, {"state", rv.State},
		{"rating", strconv.Itoa(rv.Rating)}, {"title", rv.Title}, {"body", rv.Body}, {"author", rv.Author},
		{"product_name", rv.ProductName}, {"proof_method", rv.Proof.Method}, {"order_reference", rv.Proof.OrderReference},
		{"submitted_at", rv.SubmittedAt.UTC().Format(time.RFC3339)}, {"seller_response", response}, {"resolution", resolution},
	}}
	return writeExport(w, format, "review-trace-"+rv.ID, t, table, review)
}
