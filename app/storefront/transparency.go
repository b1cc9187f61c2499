package storefront

import (
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/web"
)

// The public transparency log (docs/transparency.md): no credentials, a per-IP
// limit of its own so an auditor reading the whole log does not spend the budget
// of votes and questions.

// TransparencyPerMinute is how many transparency requests one IP may make per
// minute.
const TransparencyPerMinute = 600

// TransparencyReadsPerMinute is how many entry pages and tiles one IP may read per
// minute, on a limit of their own: they are plain reads by index, cheap, and
// immutable once complete (a cache in front serves them again), and an auditor
// reads a million-entry log in 1000 pages. At 6000 a minute a full audit is never
// held back by the limit.
const TransparencyReadsPerMinute = 6000

// logLimit takes one request from the transparency limit; it also checks the
// query string.
func (h *Handler) logLimit(r *http.Request) error {
	if !h.LogLimit.Allow(web.ClientIP(r.Context())) {
		return core.ErrRateLimited
	}
	return web.CheckQuery(r)
}

// logReadLimit is logLimit for the entry pages and tiles (TransparencyReadsPerMinute).
func (h *Handler) logReadLimit(r *http.Request) error {
	if !h.LogReadLimit.Allow(web.ClientIP(r.Context())) {
		return core.ErrRateLimited
	}
	return web.CheckQuery(r)
}

// immutable is the caching of an answer that can never change.
const immutable = "public, max-age=31536000, immutable"

// writeText writes a plain answer with its type and caching.
func writeText(w http.ResponseWriter, ctype, cache string, b []byte) error {
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Cache-Control", cache)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
	return nil
}

// handleTransparencyCheckpoint serves GET /v1/transparency/checkpoint: the latest
// signed checkpoint (signed note: origin, size, base64 root hash, signature).
func (h *Handler) handleTransparencyCheckpoint(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	cp, err := h.Transparency.Latest(r.Context())
	if err != nil {
		return err
	}
	return writeText(w, "text/plain; charset=utf-8", "public, max-age=10", cp.Note)
}

// handleTransparencyKey serves GET /v1/transparency/key: the log's public key in
// the note verifier format (as `reviewd transparency key` prints it).
func (h *Handler) handleTransparencyKey(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	k, err := h.Transparency.VerifierKey(r.Context())
	if err != nil {
		return err
	}
	return writeText(w, "text/plain; charset=utf-8", "public, max-age=3600", []byte(k+"\n"))
}

// handleTransparencyEntries serves GET /v1/transparency/entries?start=S&end=E: at
// most 1000 entries as JSON lines; a page holding every entry asked for never
// changes and is cached as immutable.
func (h *Handler) handleTransparencyEntries(w http.ResponseWriter, r *http.Request) error {
	if err := h.logReadLimit(r); err != nil {
		return err
	}
	q := r.URL.Query()
	p, err := h.Transparency.Entries(r.Context(), q.Get("start"), q.Get("end"))
	if err != nil {
		return err
	}
	cache := "public, max-age=10"
	if p.Complete {
		cache = immutable
	}
	return writeText(w, "application/jsonl; charset=utf-8", cache, p.Data)
}

// handleTransparencyInclusion serves GET /v1/transparency/proof/inclusion?index=I&size=N.
func (h *Handler) handleTransparencyInclusion(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	q := r.URL.Query()
	p, err := h.Transparency.ProveInclusion(r.Context(), q.Get("index"), q.Get("size"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	return web.JSON(w, http.StatusOK, p)
}

// handleTransparencyConsistency serves GET /v1/transparency/proof/consistency?from=M&to=N.
func (h *Handler) handleTransparencyConsistency(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	q := r.URL.Query()
	p, err := h.Transparency.ProveConsistency(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	return web.JSON(w, http.StatusOK, p)
}

// handleTransparencyTile serves GET /v1/transparency/tile/<tlog tile path>.
func (h *Handler) handleTransparencyTile(w http.ResponseWriter, r *http.Request) error {
	if err := h.logReadLimit(r); err != nil {
		return err
	}
	t, err := h.Transparency.ReadTile(r.Context(), mux.Vars(r)["path"])
	if err != nil {
		return err
	}
	cache := "public, max-age=10"
	if t.Full {
		cache = immutable
	}
	ctype := "application/octet-stream"
	if t.Records {
		ctype = "application/jsonl; charset=utf-8"
	}
	return writeText(w, ctype, cache, t.Data)
}

// handleTransparencyReport serves GET /v1/transparency/report?from=T&to=T.
func (h *Handler) handleTransparencyReport(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	q := r.URL.Query()
	rep, err := h.Transparency.Report(r.Context(), q.Get("from"), q.Get("to"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	return web.JSON(w, http.StatusOK, rep)
}

// handleTransparencyReceipt serves GET /v1/transparency/receipt/<review id>?token=T
// (&lang=tr|en for the page): the JSON receipt, or the receipt page to a browser
// (transparency_receipt.go).
func (h *Handler) handleTransparencyReceipt(w http.ResponseWriter, r *http.Request) error {
	if err := h.logLimit(r); err != nil {
		return err
	}
	rc, err := h.Transparency.ReadReceipt(r.Context(), mux.Vars(r)["id"], r.URL.Query().Get("token"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "private, no-store")
	w.Header().Set("Vary", "Accept")
	if wantsHTML(r) {
		return h.writeReceiptPage(w, r, rc)
	}
	return web.JSON(w, http.StatusOK, rc)
}
