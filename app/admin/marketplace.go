package admin

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/marketplace"
	"reviewd/app/web"
)

// handleMarketSourceList serves GET /admin/v1/marketplace/sources.
func (h *Handler) handleMarketSourceList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Marketplace.ListSources(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

func readMarketSourceBody(r *http.Request) (marketplace.SourceInput, error) {
	var in marketplace.SourceInput
	err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &in)
	return in, err
}

// handleMarketSourceCreate serves POST /admin/v1/marketplace/sources: 201.
func (h *Handler) handleMarketSourceCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := readMarketSourceBody(r)
	if err != nil {
		return err
	}
	out, err := h.Marketplace.CreateSource(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}

// handleMarketSourceGet serves GET /admin/v1/marketplace/sources/{id}.
func (h *Handler) handleMarketSourceGet(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Marketplace.Source(r.Context(), web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleMarketSourceUpdate serves PATCH /admin/v1/marketplace/sources/{id}.
func (h *Handler) handleMarketSourceUpdate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := readMarketSourceBody(r)
	if err != nil {
		return err
	}
	out, err := h.Marketplace.UpdateSource(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, out)
}

// handleMarketSourceDelete serves DELETE /admin/v1/marketplace/sources/{id}: 204.
func (h *Handler) handleMarketSourceDelete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Marketplace.RemoveSource(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return web.NoContent(w)
}

// readRunInput reads a run or check request: multipart (file, confirm_removals,
// scope) with the file streamed to a temporary file of at most 20 MB, or a JSON
// body (scope, confirm_removals) for feed routes.
func (h *Handler) readRunInput(w http.ResponseWriter, r *http.Request) (marketplace.StartInput, error) {
	var in marketplace.StartInput
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		if r.ContentLength == 0 {
			return in, nil
		}
		var body struct {
			Scope           string `json:"scope"`
			ConfirmRemovals bool   `json:"confirm_removals"`
		}
		if err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &body); err != nil {
			return in, err
		}
		in.Scope, in.ConfirmRemovals = body.Scope, body.ConfirmRemovals
		return in, nil
	}
	if r.ContentLength > marketplace.MaxFileBytes+1<<20 {
		return in, marketplace.ErrFileTooLarge
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return in, core.Invalid("file_unreadable")
	}
	fail := func(err error) (marketplace.StartInput, error) {
		if in.FilePath != "" {
			_ = os.Remove(in.FilePath)
		}
		return marketplace.StartInput{}, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(core.Invalid("file_unreadable"))
		}
		switch part.FormName() {
		case "file":
			if in.FilePath != "" {
				return fail(core.Invalid("file_unreadable"))
			}
			f, err := os.CreateTemp(h.Marketplace.TempDirPath(), "market-*.upload")
			if err != nil {
				return fail(err)
			}
			in.FilePath, in.FileName = f.Name(), part.FileName()
			n, err := io.Copy(f, io.LimitReader(part, marketplace.MaxFileBytes+1))
			cerr := f.Close()
			switch {
			case err != nil:
				return fail(core.Invalid("file_unreadable"))
			case cerr != nil:
				return fail(cerr)
			case n > marketplace.MaxFileBytes:
				return fail(marketplace.ErrFileTooLarge)
			case n == 0:
				return fail(marketplace.ErrFileRequired)
			}
		case "confirm_removals", "scope":
			b, err := io.ReadAll(io.LimitReader(part, 64))
			if err != nil {
				return fail(core.Invalid("file_unreadable"))
			}
			v := strings.TrimSpace(string(b))
			if part.FormName() == "scope" {
				in.Scope = v
				continue
			}
			c, err := strconv.ParseBool(v)
			if err != nil {
				return fail(core.Invalid("confirm_removals"))
			}
			in.ConfirmRemovals = c
		default:
			_, _ = io.Copy(io.Discard, io.LimitReader(part, marketplace.MaxFileBytes+1))
		}
	}
	return in, nil
}

// handleMarketRunStart serves POST /admin/v1/marketplace/sources/{id}/runs: 202.
func (h *Handler) handleMarketRunStart(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := h.readRunInput(w, r)
	if err != nil {
		return err
	}
	out, err := h.Marketplace.StartRun(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusAccepted, out)
}

// handleMarketRunList serves GET /admin/v1/marketplace/sources/{id}/runs.
func (h *Handler) handleMarketRunList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Marketplace.Runs(r.Context(), web.Vars(r)["id"])
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleMarketCheck serves POST /admin/v1/marketplace/sources/{id}/check: the
// dry run.
func (h *Handler) handleMarketCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := h.readRunInput(w, r)
	if err != nil {
		return err
	}
	out, err := h.Marketplace.Check(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleImportedReviewList serves GET /admin/v1/marketplace/imported-reviews.
func (h *Handler) handleImportedReviewList(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := readListQuery(r)
	if err != nil {
		return err
	}
	platform, err := web.Query(r, "platform")
	if err != nil {
		return core.Invalid("platform")
	}
	out, err := h.Marketplace.ImportedReviews(r.Context(), a, marketplace.ImportedFilter{Q: l.Q, Platform: platform,
		Page: l.Page, PageSize: l.PageSize})
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.JSON(w, http.StatusOK, out)
}

// handleMarketRemoval serves POST /admin/v1/marketplace/removals: 201.
func (h *Handler) handleMarketRemoval(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	var in marketplace.RemovalInput
	if err := web.DecodeJSON(r, sourceBodyLimit, web.ModeAPI, &in); err != nil {
		var ce *core.Error
		if errors.As(err, &ce) && ce.Detail == "reviews" {
			return core.Invalid("reviews")
		}
		return err
	}
	out, err := h.Marketplace.Remove(r.Context(), a, in)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusCreated, out)
}
