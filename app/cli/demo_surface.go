package cli

import (
	"errors"
	"math"
	"net/http"
	"net/url"

	"github.com/gorilla/mux"

	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/readmodel"
	"reviewd/app/web"
	"reviewd/store"
)

// demoSurface serves the demo under /demo/: the pretend store's HTML pages
// (demo_page.go) and a JSON index of what the demo created, with its product pages,
// their live review counts and today's component views.
type demoSurface struct {
	info  demoInfo
	base  string // public address, fixed before serving starts
	db    *store.DB
	acc   *access.Service
	read  *readmodel.Service
	buyer *buyer.Service
}

// Mount adds the demo routes.
func (d *demoSurface) Mount(r *mux.Router) {
	r.Handle("/demo", http.RedirectHandler("/demo/", http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)
	r.Handle("/demo/index.json", web.H(d.handleIndex)).Methods(http.MethodGet, http.MethodHead)
	d.mountPages(r)
}

// demoIndexProduct is one product page of the index.
type demoIndexProduct struct {
	Code    string  `json:"code"`
	Scope   string  `json:"scope"`
	Channel string  `json:"channel"`
	Title   string  `json:"title"`
	Reviews int     `json:"reviews"`
	Average float64 `json:"average"`
	List    string  `json:"list"`
	Views   int     `json:"views"` // today's (UTC) views of the review component
}

// handleIndex serves GET /demo/index.json: the demo brand's channels, key ids, site keys (which
// pages embed anyway) and the product pages with their published review count,
// average rating and review-list address. Server and API keys, passwords and the
// panel sign-in are printed on the console only.
func (d *demoSurface) handleIndex(w http.ResponseWriter, r *http.Request) error {
	type channel struct {
		Code        string `json:"code"`
		Market      string `json:"market"`
		Language    string `json:"language"`
		ServerKeyID string `json:"server_key_id"`
		SiteKeyID   string `json:"site_key_id"`
		SiteKey     string `json:"site_key"`
		SigningID   string `json:"signing_password_id"`
		TryOrder    string `json:"try_order"`
		TryEmail    string `json:"try_email"`
	}
	chs := make([]channel, 0, len(d.info.Channels))
	siteKeys := map[string]string{}
	for _, c := range d.info.Channels {
		chs = append(chs, channel{Code: c.Code, Market: c.Market, Language: c.Language, ServerKeyID: c.ServerKeyID,
			SiteKeyID: c.SiteKeyID, SiteKey: c.SiteKey, SigningID: c.SigningID, TryOrder: c.TryOrder, TryEmail: c.TryEmail})
		siteKeys[c.Code] = c.SiteKey
	}
	products := make([]demoIndexProduct, 0, len(d.info.Catalog))
	q := d.db.Read()
	views, err := d.viewCounts(r.Context())
	if err != nil {
		return err
	}
	for _, p := range d.info.Catalog {
		ip := demoIndexProduct{Code: p.Code, Scope: p.Scope, Channel: p.Channel, Title: p.Title,
			List: d.base + "/v1/reviews/list?" + url.Values{"key": {siteKeys[p.Channel]}, "product": {p.Code},
				"scope": {p.Scope}}.Encode(), Views: views[p.Channel+"\x00"+p.Scope+"\x00"+p.Code]}
		st, err := q.ProductStatsOf(r.Context(), p.Scope, p.Code, p.Market)
		switch {
		case errors.Is(err, store.ErrNotFound):
		case err != nil:
			return err
		default:
			ip.Reviews = st.Reviews
			if st.Reviews > 0 {
				ip.Average = math.Round(float64(st.RatingSum)/float64(st.Reviews)*10) / 10
			}
		}
		products = append(products, ip)
	}
	return web.JSON(w, http.StatusOK, map[string]any{
		"brand":      d.info.Brand,
		"created_at": d.info.CreatedAt,
		"channels":   chs,
		"api_key_id": d.info.APIKeyID,
		"products":   products,
		"panel":      d.base + "/admin/v1/session",
		"username":   d.info.Username,
	})
}
