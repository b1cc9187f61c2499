package admin

import (
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/privacy"
	"reviewd/app/web"
)

// handleSubjectRequestList serves GET /admin/v1/subject-requests: the list contract
// with filters kind and state; q finds a request by id or exact identifier.
func (h *Handler) handleSubjectRequestList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	v, err := queryFields(r, "kind", "state")
	if err != nil {
		return err
	}
	page, err := h.Privacy.List(r.Context(), a, l, privacy.ListFilter{Kind: v["kind"], State: v["state"]})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, page)
}

// handleSubjectRequestCreate serves POST /admin/v1/subject-requests: kind,
// identifier, optional note; 201 with the row, state received.
func (h *Handler) handleSubjectRequestCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in privacy.NewRequest
	if err := web.DecodeJSON(r, 16<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	d, err := h.Privacy.Open(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, d)
}

// handleSubjectRequestGet serves GET /admin/v1/subject-requests/<id>: the record;
// preview=1 adds what reviewd holds about the person; format csv, xlsx or json
// downloads it.
func (h *Handler) handleSubjectRequestGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	v, err := queryFields(r, "format", "preview")
	if err != nil {
		return err
	}
	id := mux.Vars(r)["id"]
	if v["format"] != "" {
		f, err := h.Privacy.Download(r.Context(), a, id, v["format"])
		if err != nil {
			return err
		}
		return writeFile(w, f)
	}
	if p := v["preview"]; p != "" && p != "0" && p != "1" {
		return core.Invalid("preview")
	}
	d, err := h.Privacy.Get(r.Context(), a, id, v["preview"] == "1")
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, d)
}

// handleSubjectRequestComplete serves POST /admin/v1/subject-requests/<id>/complete
// (optional body purge_media).
func (h *Handler) handleSubjectRequestComplete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in privacy.CompleteInput
	if r.ContentLength != 0 {
		if err := web.DecodeJSON(r, 4<<10, web.ModeAPI, &in); err != nil {
			return err
		}
	}
	d, err := h.Privacy.Complete(r.Context(), a, mux.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, d)
}

// handleSubjectRequestRefuse serves POST /admin/v1/subject-requests/<id>/refuse
// (body reason).
func (h *Handler) handleSubjectRequestRefuse(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in privacy.RefuseInput
	if err := web.DecodeJSON(r, 16<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	d, err := h.Privacy.Refuse(r.Context(), a, mux.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, d)
}

// handleSubjectRequestCopy serves POST /admin/v1/subject-requests/<id>/copy: body
// identifier and optional format; a JSON answer, or the file in that format.
func (h *Handler) handleSubjectRequestCopy(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in privacy.CopyInput
	if err := web.DecodeJSON(r, 4<<10, web.ModeAPI, &in); err != nil {
		return err
	}
	c, f, err := h.Privacy.CopyRequest(r.Context(), a, mux.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	if f != nil {
		return writeFile(w, *f)
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, c)
}
