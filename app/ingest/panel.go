package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// checkRequest is the body of the dry run: the kind and the body to check, either
// as JSON or as a string holding the raw text (so unreadable bodies can be tried).
type checkRequest struct {
	Kind string          `json:"kind"`
	Body json.RawMessage `json:"body"`
}

// checkError is a refusal as a real transfer would answer it.
type checkError struct {
	Status int    `json:"status"`
	Error  string `json:"error"`
	Detail string `json:"detail"`
}

// checkAnswer is the dry run's answer.
type checkAnswer struct {
	Accepted bool                 `json:"accepted"`
	Records  int                  `json:"records"`
	Error    *checkError          `json:"error"`
	Unknown  []orders.UnknownLine `json:"unknown,omitempty"`
}

// handleIngestCheck serves POST /admin/v1/ingest/check: the panel's dry run of an
// order or delivery body. It needs no server key or signing password, saves
// nothing and answers whether a real transfer of the body would be accepted and how
// many records it would accept. Limited per IP address.
func (h *Handler) handleIngestCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if !h.Limits.PerIP.Allow("ingest-check:" + web.ClientIP(r.Context())) {
		return core.ErrRateLimited
	}
	// The dry run needs no key. A caller signed in to the panel (or with an admin
	// key) sees every detail; an anonymous caller is not told which order lines
	// exist: unknown delivery pairs are counted as records and not listed.
	anonymous := true
	if hasAdminCredentials(r) {
		var err error
		if a, err = h.Auth.Admin(r, core.PermRead); err != nil {
			return err
		}
		anonymous = false
	} else {
		if !h.anonymousChecks().Allow(web.ClientIP(r.Context())) {
			return core.ErrRateLimited
		}
		a = &core.Actor{Via: core.ViaSystem, Name: "dry-run", RequestID: web.RequestID(r.Context()), IP: web.ClientIP(r.Context()), UserAgent: r.UserAgent()}
	}
	var in checkRequest
	if err := web.DecodeJSON(r, 2*MaxBody, web.ModeAPI, &in); err != nil {
		return err
	}
	if in.Kind != orders.KindOrder && in.Kind != orders.KindDelivery {
		return core.Invalid("kind")
	}
	raw := []byte(in.Body)
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	} else if string(raw) == "null" {
		raw = nil
	}
	var ans checkAnswer
	err := h.check(r, a, in.Kind, raw, &ans)
	var ce *core.Error
	switch {
	case err == nil:
		ans.Accepted = true
		if anonymous && len(ans.Unknown) > 0 {
			ans.Records += len(ans.Unknown)
			ans.Unknown = nil
		}
	case errors.As(err, &ce):
		ans.Records = 0
		ans.Unknown = nil
		ans.Error = &checkError{Status: ce.Status, Error: ce.Code, Detail: ce.Detail}
	default:
		return err
	}
	return web.JSON(w, http.StatusOK, ans)
}

// check runs the transfer's own reading and checking steps on the read pool (no
// write transaction).
func (h *Handler) check(r *http.Request, a *core.Actor, kind string, raw []byte, ans *checkAnswer) error {
	if len(raw) > MaxBody {
		return core.E(http.StatusRequestEntityTooLarge, "invalid", "body_too_large")
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return core.ErrBodyEmpty
	}
	if kind == orders.KindOrder {
		req, err := decodeOrders(raw)
		if err != nil {
			return err
		}
		res, err := h.Orders.CheckOrdersRead(r.Context(), a, req)
		ans.Records = res.Accepted
		return err
	}
	req, err := decodeDeliveries(raw)
	if err != nil {
		return err
	}
	res, err := h.Orders.CheckDeliveriesRead(r.Context(), a, req)
	ans.Records, ans.Unknown = res.Accepted, res.Unknown
	return err
}

type dayJSON struct {
	Date     string `json:"date"`
	Requests int    `json:"requests"`
	Refused  int    `json:"refused"`
}

type requestJSON struct {
	At      string `json:"at"`
	Channel string `json:"channel"`
	Kind    string `json:"kind"`
	Status  int    `json:"status"`
	Error   string `json:"error"`
	Records int    `json:"records"`
	Actor   string `json:"actor"`
}

// handleIngestStats serves GET /admin/v1/ingest/stats?channel=<code>: orders
// received for the channel, request figures of the last 7 days and the newest
// requests across all channels.
func (h *Handler) handleIngestStats(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	channel, err := web.Query(r, "channel")
	if err != nil {
		return err
	}
	st, err := h.Orders.IngestStats(r.Context(), channel)
	if err != nil {
		return err
	}
	out := struct {
		Channel        string        `json:"channel"`
		OrdersReceived int           `json:"orders_received"`
		Daily          []dayJSON     `json:"daily"`
		Recent         []requestJSON `json:"recent"`
	}{Channel: channel, OrdersReceived: st.OrdersReceived, Daily: []dayJSON{}, Recent: []requestJSON{}}
	for _, d := range st.Daily {
		out.Daily = append(out.Daily, dayJSON{Date: d.Date.Format(time.DateOnly), Requests: d.Requests, Refused: d.Refused})
	}
	for _, q := range st.Recent {
		out.Recent = append(out.Recent, requestJSON{At: q.At.UTC().Format(time.RFC3339), Channel: q.Channel, Kind: q.Kind,
			Status: q.Status, Error: q.Error, Records: q.Records, Actor: q.ActorID})
	}
	return web.JSON(w, http.StatusOK, out)
}

// hasAdminCredentials reports whether the request carries an admin key or a panel
// session cookie.
func hasAdminCredentials(r *http.Request) bool {
	if strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "api-key ") {
		return true
	}
	c, err := r.Cookie(access.SessionCookie)
	return err == nil && c.Value != ""
}

// AnonymousChecksPerMinute is how many dry runs one address (IPv6 /64) may make per
// minute without credentials; signed-in callers share the general per-IP limit.
const AnonymousChecksPerMinute = 10

func (h *Handler) anonymousChecks() *web.Limiter {
	h.anonOnce.Do(func() { h.anonLimit = web.NewLimiter(AnonymousChecksPerMinute, time.Minute, h.Orders.Now) })
	return h.anonLimit
}
