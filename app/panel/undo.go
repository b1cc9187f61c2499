package panel

import (
	"net/http"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/reviews"
	"reviewd/app/web"
)

// hold keeps an approve or reject for its undo window (held.Service.Hold). The
// script gets the held decision as JSON and offers Undo in a toast; a plain form
// goes back with the notice and the review's id (undo), and the next page offers
// Undo as a form of its own.
func (h *Handler) hold(w http.ResponseWriter, r *http.Request, a *core.Actor, id string, in reviews.ReviewTransitionInput) error {
	d, err := h.Held.Hold(r.Context(), a, id, in)
	if err != nil {
		return err
	}
	if wantsJSON(r) {
		return web.JSON(w, http.StatusOK, d)
	}
	return back(w, r, "/panel/reviews/"+id, "held_"+d.Event, "undo", id)
}

// errUnconfirmed refuses a removal whose box was not ticked.
var errUnconfirmed = core.Invalid("confirm_required")

// handleReviewUndo serves POST /panel/reviews/<id>/undo: the held approve or
// reject of the review is taken back (held.Service.Undo); the review is where it
// was. 409 transition_refused / undo_window_closed once it has taken effect.
func (h *Handler) handleReviewUndo(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	d, err := h.Held.Undo(r.Context(), a, id)
	if err != nil {
		return err
	}
	if wantsJSON(r) {
		return web.JSON(w, http.StatusOK, d)
	}
	return back(w, r, "/panel/queue?at="+id, "undone")
}

// heldOf puts the held decision of a review on the page: the notice with its
// Undo form (after a plain form's decision, or on the review's page while held).
func (h *Handler) heldOf(r *http.Request, v *view, id string) {
	if h.Held == nil || id == "" {
		return
	}
	d, ok, err := h.Held.Of(r.Context(), id)
	if err != nil || !ok {
		return
	}
	v.Undo = &d
	if v.Notice == "" {
		v.Notice = v.T("notice_held_" + d.Event)
	}
}

// channelZones gives the zone of a channel's review dates: its time_zone, else
// brand (the brand's). The channels are read once per page, when first asked.
func (h *Handler) channelZones(r *http.Request, brand *time.Location) func(string) *time.Location {
	var zones map[string]*time.Location
	return func(code string) *time.Location {
		if zones == nil {
			zones = map[string]*time.Location{}
			if h.Channels != nil {
				l, err := h.Channels.ListChannels(r.Context(), core.ListQuery{Page: 1, PageSize: 1000})
				if err == nil {
					for _, c := range l.Items {
						if loc, err := time.LoadLocation(c.TimeZone); err == nil && c.TimeZone != "" {
							zones[c.Code] = loc
						}
					}
				}
			}
		}
		if loc, ok := zones[code]; ok {
			return loc
		}
		return brand
	}
}
