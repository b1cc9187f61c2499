package admin

import (
	"encoding/json"
	"net/http"

	"reviewd/app/core"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// handleInviteList serves GET /admin/v1/invites: invitations, reminders and
// experience invitations with counters. Filters: sent=1 (sent only), channel,
// state (queued, sent, failed, skipped), q (order number or invitation id).
func (h *Handler) handleInviteList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	f := sending.InviteFilter{ListQuery: l, Channel: v.Get("channel"), State: v.Get("state")}
	switch v.Get("sent") {
	case "", "0":
	case "1":
		if f.State != "" && f.State != sending.StateSent {
			return core.Invalid("state")
		}
		f.State = sending.StateSent
	default:
		return core.Invalid("sent")
	}
	out, err := h.Sending.ListInvites(r.Context(), a, f)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleSendLogList serves GET /admin/v1/send-logs: every send attempt, with
// filters channel, channel_kind (email, webhook), status (sent, retry, failed) and
// q (order number, recipient, event id or Message-ID).
func (h *Handler) handleSendLogList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v := r.URL.Query()
	out, err := h.Sending.ListSendLogs(r.Context(), a, sending.SendLogFilter{ListQuery: l, Channel: v.Get("channel"),
		ChannelKind: v.Get("channel_kind"), Status: v.Get("status")})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleInviteRetry serves POST /admin/v1/invites/retry: optional ids (up to 500)
// and channel; failed invitations are queued again, expired ones skipped. An empty
// body retries every failed invitation.
func (h *Handler) handleInviteRetry(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in struct {
		IDs     []json.RawMessage `json:"ids"`
		Channel string            `json:"channel"`
	}
	if r.ContentLength != 0 {
		raw, err := web.ReadBody(r, 256<<10)
		if err != nil {
			if ce, ok := err.(*core.Error); !ok || ce.Detail != "body_empty" {
				return err
			}
		} else if err := web.ParseJSON(raw, web.ModeAPI, &in); err != nil {
			return err
		}
	}
	if len(in.IDs) > sending.MaxRetryIDs {
		return core.Invalid("ids")
	}
	ids := make([]int64, 0, len(in.IDs))
	for _, raw := range in.IDs {
		var s string
		var n int64
		switch {
		case json.Unmarshal(raw, &s) == nil:
			id, ok := sending.ParseInvitationPublicID(s)
			if !ok {
				return core.Invalid("ids")
			}
			ids = append(ids, id)
		case json.Unmarshal(raw, &n) == nil && n > 0:
			ids = append(ids, n)
		default:
			return core.Invalid("ids")
		}
	}
	if in.IDs != nil && len(ids) == 0 {
		return web.JSON(w, http.StatusOK, sending.RetryResult{})
	}
	res, err := h.Sending.RetryInvitations(r.Context(), a, ids, in.Channel)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}
