package cli

import (
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/web"
)

// demoSurface serves the demo's pages under /demo/. Until products, reviews and
// questions exist it is a JSON index of what the demo created.
type demoSurface struct {
	info demoInfo
	base string // public address, fixed before serving starts
}

// Mount adds the demo routes.
func (d *demoSurface) Mount(r *mux.Router) {
	r.Handle("/demo", http.RedirectHandler("/demo/", http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/demo/", web.H(d.handleIndex)).Methods(http.MethodGet, http.MethodHead)
}

// handleIndex serves GET /demo/: the demo brand's channels, key ids, site keys (which
// pages embed anyway) and the planned product codes. Server and API keys, passwords
// and the panel sign-in are printed on the console only.
func (d *demoSurface) handleIndex(w http.ResponseWriter, r *http.Request) error {
	type channel struct {
		Code        string `json:"code"`
		Market      string `json:"market"`
		Language    string `json:"language"`
		ServerKeyID string `json:"server_key_id"`
		SiteKeyID   string `json:"site_key_id"`
		SiteKey     string `json:"site_key"`
		SigningID   string `json:"signing_password_id"`
	}
	chs := make([]channel, 0, len(d.info.Channels))
	for _, c := range d.info.Channels {
		chs = append(chs, channel{Code: c.Code, Market: c.Market, Language: c.Language, ServerKeyID: c.ServerKeyID,
			SiteKeyID: c.SiteKeyID, SiteKey: c.SiteKey, SigningID: c.SigningID})
	}
	return web.JSON(w, http.StatusOK, map[string]any{
		"brand":      d.info.Brand,
		"created_at": d.info.CreatedAt,
		"channels":   chs,
		"api_key_id": d.info.APIKeyID,
		"products":   d.info.Products,
		"panel":      d.base + "/admin/",
		"username":   d.info.Username,
	})
}
