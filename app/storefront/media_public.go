package storefront

import (
	"net/http"

	"reviewd/app/cdn"
	"reviewd/app/web"
)

// handleMediaFile serves GET /media/{id}/{file}: a processed review photo, video or
// poster, only while its review is published (404 otherwise), with Range support.
// A closed brand serves none (403 refused / tenant_inactive); a frozen one still
// does, as it still serves reads.
func (h *Handler) handleMediaFile(w http.ResponseWriter, r *http.Request) error {
	if err := h.Auth.Access.StorefrontAllowed(r.Context(), true); err != nil {
		return err
	}
	v := web.Vars(r)
	f, err := h.Reviews.OpenPublicMedia(r.Context(), v["id"], v["file"])
	if err != nil {
		return err
	}
	defer f.Close()
	hd := w.Header()
	hd.Set("Content-Type", f.ContentType)
	// Short for browsers: the file must stop being reachable soon after its review
	// leaves the published state. A CDN is told by a purge of the product's tag,
	// which the review's change queues.
	hd.Set("Cache-Control", h.publicCache("public, max-age=60"))
	h.setTags(hd, cdn.NewTags(cdn.AllTag, cdn.ProductTag(cdn.ScopeVariant, f.Product)))
	hd.Set("Cross-Origin-Resource-Policy", "cross-origin")
	if f.ETag != "" {
		hd.Set("ETag", f.ETag) // the bucket's; http.ServeContent honours If-None-Match and If-Range with it
	}
	http.ServeContent(w, r, f.Name, f.ModTime, f)
	return nil
}
