package admin

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// handleDiagnostics serves GET /admin/v1/diagnostics: the connection log (one row
// per read of an order connection, newest first; filters channel, connection and
// outcome ok, partial or failed) and the state of every connection.
func (h *Handler) handleDiagnostics(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	out, err := h.Orders.ListConnectionLog(r.Context(), orders.ConnectionLogFilter{ListQuery: l, Channel: v.Get("channel"),
		Connection: v.Get("connection"), Outcome: v.Get("outcome")})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}
