package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/insights"
	"reviewd/app/web"
)

// figureQuery reads the query of the figures endpoints.
func figureQuery(r *http.Request) insights.Query {
	v := r.URL.Query()
	return insights.Query{Channel: v.Get("channel"), Market: v.Get("market"), From: v.Get("from"), To: v.Get("to"), Period: v.Get("period")}
}

// handleMetrics serves GET /admin/v1/metrics: reviews and average per period,
// rating distribution, invitation funnel, moderation response time, photo share.
func (h *Handler) handleMetrics(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Insights.Metrics(r.Context(), figureQuery(r))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleInsights serves GET /admin/v1/insights: the period against the previous
// one, top products and topics; ai is null in v1.
func (h *Handler) handleInsights(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Insights.Insights(r.Context(), figureQuery(r))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleOverview serves GET /admin/v1/overview: sites, attention and publishing
// method.
func (h *Handler) handleOverview(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Insights.Overview(r.Context(), r.URL.Query().Get("channel"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}
