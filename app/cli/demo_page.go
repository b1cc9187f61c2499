package cli

import (
	"context"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/access"
	"reviewd/app/core/buyer"
	"reviewd/app/core/readmodel"
	"reviewd/app/core/storereviews"
	"reviewd/app/web"
	"reviewd/assets"
	"reviewd/store"
)

// The demo's pretend store: an index of its product pages, one landing page per
// channel (where review links open) and a product page per seeded product. The
// pages use the page script exactly as a store would: the loader address
// /v1/widget.js with the channel's site key, a container with data-review-*
// attributes, and, by default, the server-rendered component of GET /v1/ssr with
// its state for the script to hydrate (?render=client lets the script render,
// ?render=headless shows the store's own markup fed by the script's events). Every
// page carries a strict Content-Security-Policy without inline scripts or styles.

var demoTemplates = template.Must(template.New("demo").ParseFS(assets.Templates(), "demo/*.html"))

// demoRenders are the ways a product page can show its reviews.
var demoRenders = []string{"ssr", "client", "headless"}

// demoWords are the pretend store's own labels.
var demoWords = map[string]map[string]string{
	"tr": {"store": "Demo mağaza", "home": "Tüm ürünler", "add": "Sepete ekle", "layout": "Görünüm", "theme": "Tema",
		"render": "Oluşturma", "apply": "Uygula", "products": "Ürünler", "reviews": "Değerlendirmeler",
		"landing": "Değerlendirme bağlantınız bu sayfada açılır. Ürünlerimiz:",
		"note":    "Bu bir demo mağazadır; yorumlar reviewd sayfa betiğiyle gösterilir.",
		"ssr":     "sunucuda (SSR)", "client": "betikle", "headless": "mağazanın kendi HTML'i", "write": "Değerlendirme yaz",
		"index": "reviewd demo", "channels": "Kanallar", "json": "JSON dizini",
		"other": "English store", "signed_in": "Giriş yapan müşteri:", "all_reviews": "Tüm değerlendirmeler"},
	"en": {"store": "Demo store", "home": "All products", "add": "Add to basket", "layout": "Layout", "theme": "Theme",
		"render": "Rendering", "apply": "Apply", "products": "Products", "reviews": "Reviews",
		"landing": "Your review link opens on this page. Our products:",
		"note":    "This is a demo store; reviews are shown by the reviewd page script.",
		"ssr":     "on the server (SSR)", "client": "by the script", "headless": "store's own HTML", "write": "Write a review",
		"index": "reviewd demo", "channels": "Channels", "json": "JSON index",
		"other": "Türkiye mağazası", "signed_in": "Signed in as", "all_reviews": "All reviews"},
}

// demoView is what the demo templates read.
type demoView struct {
	Lang, Brand, Title string
	W                  map[string]string
	Channel            demoChannel
	Other              *demoChannel
	Products           []demoProduct
	Index              []demoChannelProducts
	Product            demoProduct
	Price, Description string
	Render             string
	Style, Theme       string
	// Transparency opts the component into the "publicly verifiable" line
	// (?transparency=1, data-review-transparency).
	Transparency   bool
	Renders        []string
	Styles, Themes []string
	SSR            template.HTML
	State, JSONLD  template.JS
	// Channel-wide components (home page carousel, store page): their ready HTML
	// (render ssr), or empty containers the page script fills (render client).
	Carousel, All template.HTML
	ProductURL    string
	// A signed-in customer (?customer=<e-mail>&name=<name>): what the store's
	// server got from GET /v1/viewer.
	Customer, Asker, WriteToken string
}

type demoChannelProducts struct {
	Channel  demoChannel
	W        map[string]string
	Products []demoProduct
}

// mountPages adds the demo's HTML pages.
func (d *demoSurface) mountPages(r *mux.Router) {
	get := []string{http.MethodGet, http.MethodHead}
	r.Handle("/demo/", web.H(d.handleStoreIndex)).Methods(get...)
	r.Handle("/demo/assets/{file:demo\\.css|headless\\.js}", web.H(d.handleDemoAsset)).Methods(get...)
	r.Handle("/demo/speculationrules", web.H(d.handleSpeculationRules)).Methods(get...)
	r.Handle("/demo/{channel:[a-z0-9-]+}/", web.H(d.handleChannelPage)).Methods(get...)
	r.Handle("/demo/{channel:[a-z0-9-]+}/reviews", web.H(d.handleAllReviewsPage)).Methods(get...)
	r.Handle("/demo/{channel:[a-z0-9-]+}/{product:[a-z0-9-]+}", web.H(d.handleProductPage)).Methods(get...)
}

// demoCSP forbids inline scripts and styles: the page script works without them.
func (d *demoSurface) demoCSP() string {
	self := "'self'"
	if u, err := url.Parse(d.base); err == nil && u.Host != "" {
		self += " " + u.Scheme + "://" + u.Host // media and styles addressed through public_url
	}
	return "default-src 'self'; script-src " + self + "; style-src " + self + "; img-src " + self + " data: blob:; media-src " +
		self + " blob:; connect-src " + self + "; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
		"frame-ancestors 'none'"
}

func (d *demoSurface) page(w http.ResponseWriter, r *http.Request, name string, v demoView) error {
	hd := w.Header()
	hd.Set("Content-Security-Policy", d.demoCSP())
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	if p := r.URL.Query().Get("prerender"); strings.HasPrefix(p, "/demo/") {
		// A speculation rule (sent as a header: no inline script) that prerenders p.
		hd.Set("Speculation-Rules", `"/demo/speculationrules?url=`+url.QueryEscape(p)+`"`)
	}
	var b strings.Builder
	if err := demoTemplates.ExecuteTemplate(&b, name, v); err != nil {
		return err
	}
	_, err := w.Write([]byte(b.String()))
	return err
}

func (d *demoSurface) channel(code string) (demoChannel, *demoChannel, bool) {
	var found demoChannel
	var other *demoChannel
	ok := false
	for i, c := range d.info.Channels {
		if c.Code == code {
			found, ok = c, true
		} else if other == nil {
			other = &d.info.Channels[i]
		}
	}
	return found, other, ok
}

func (d *demoSurface) productsOf(code string) []demoProduct {
	var out []demoProduct
	for _, p := range d.info.Catalog {
		if p.Channel == code {
			out = append(out, p)
		}
	}
	return out
}

// handleStoreIndex serves GET /demo/: the product pages of every channel.
func (d *demoSurface) handleStoreIndex(w http.ResponseWriter, r *http.Request) error {
	v := demoView{Lang: "en", Brand: d.info.Brand, W: demoWords["en"]}
	for _, c := range d.info.Channels {
		v.Index = append(v.Index, demoChannelProducts{Channel: c, W: demoWords[c.Language], Products: d.productsOf(c.Code)})
	}
	return d.page(w, r, "index", v)
}

// handleChannelPage serves GET /demo/<channel>/: the channel's landing page, where
// a #review_token link opens the writing flow, with its product list.
func (d *demoSurface) handleChannelPage(w http.ResponseWriter, r *http.Request) error {
	c, other, ok := d.channel(web.Vars(r)["channel"])
	if !ok {
		return core.ErrNotFound
	}
	v := demoView{Lang: c.Language, Brand: d.info.Brand, Title: demoWords[c.Language]["home"],
		W: demoWords[c.Language], Channel: c, Other: other, Products: d.productsOf(c.Code), Render: "ssr",
		ProductURL: demoProductURL(c.Code)}
	if r.URL.Query().Get("render") == "client" {
		v.Render = "client"
	} else {
		html, err := d.channelSSR(r.Context(), c.Code, c.Language, false, nil)
		if err != nil {
			return err
		}
		v.Carousel = html
	}
	return d.page(w, r, "channel", v)
}

// handleAllReviewsPage serves GET /demo/<channel>/reviews: the store-wide review
// page, server-rendered from GET /v1/ssr/all (render=client: drawn by the page
// script). Query: page, rating, verified, media (the SSR's filters).
func (d *demoSurface) handleAllReviewsPage(w http.ResponseWriter, r *http.Request) error {
	c, other, ok := d.channel(web.Vars(r)["channel"])
	if !ok {
		return core.ErrNotFound
	}
	v := demoView{Lang: c.Language, Brand: d.info.Brand, Title: demoWords[c.Language]["all_reviews"],
		W: demoWords[c.Language], Channel: c, Other: other, Render: "ssr", ProductURL: demoProductURL(c.Code)}
	q := r.URL.Query()
	if q.Get("render") == "client" {
		v.Render = "client"
	} else {
		html, err := d.channelSSR(r.Context(), c.Code, c.Language, true, q)
		if err != nil {
			return err
		}
		v.All = html
	}
	return d.page(w, r, "all", v)
}

// demoProductURL is the address template of the channel's product pages (the
// demo's catalogue knows no addresses; a group's page shows its variants).
func demoProductURL(channel string) string { return "/demo/" + channel + "/{group}" }

// channelSSR renders the carousel or (all) the store page of a channel as the
// store's server gets it from GET /v1/ssr/carousel or /v1/ssr/all.
func (d *demoSurface) channelSSR(ctx context.Context, code, lang string, all bool, q url.Values) (template.HTML, error) {
	ch, err := d.db.Read().ChannelByCode(ctx, code)
	if err != nil {
		return "", err
	}
	st, err := d.db.ReadStamp(ctx, store.ScopeVariant, "")
	if err != nil {
		return "", err
	}
	var out readmodel.Answer
	if all {
		out, err = (&storereviews.Service{Read: d.read}).AllReviewsAnswer(ctx, ch, storereviews.AllInput{Lang: lang, Page: q.Get("page"), Rating: q.Get("rating"),
			Verified: q.Get("verified"), Media: q.Get("media"), ProductURL: demoProductURL(code)}, st.Gen, true, nil)
	} else {
		out, err = (&storereviews.Service{Read: d.read}).CarouselAnswer(ctx, ch, storereviews.CarouselInput{Lang: lang, ProductURL: demoProductURL(code)}, st.Gen, true, nil)
	}
	if err != nil {
		return "", err
	}
	var ans struct {
		HTML string `json:"html"`
	}
	if err := json.Unmarshal(out.Body, &ans); err != nil {
		return "", err
	}
	return template.HTML(ans.HTML), nil // built by html/template
}

// handleProductPage serves GET /demo/<channel>/<product>: a product page of the
// pretend store with the review component. Query: style, theme (the component's
// layout and theme; default the channel's), render (ssr, client or headless),
// transparency=1 (the component shows the transparency report's link),
// customer and name (a signed-in customer: the page then carries the asker token of
// GET /v1/viewer and, when the customer can review the product, a review link).
func (d *demoSurface) handleProductPage(w http.ResponseWriter, r *http.Request) error {
	vars := web.Vars(r)
	c, other, ok := d.channel(vars["channel"])
	if !ok {
		return core.ErrNotFound
	}
	v := demoView{Lang: c.Language, Brand: d.info.Brand, W: demoWords[c.Language], Channel: c, Other: other,
		Products: d.productsOf(c.Code), Renders: demoRenders, Styles: core.Styles, Themes: core.Themes, Render: "ssr"}
	ok = false
	for _, p := range v.Products {
		if p.Code == vars["product"] {
			v.Product, ok = p, true
			break
		}
	}
	if !ok {
		return core.ErrNotFound
	}
	v.Title = v.Product.Title
	cp := demoCopy[v.Product.Code][c.Language]
	v.Price, v.Description = cp[0], cp[1]
	q := r.URL.Query()
	if s := q.Get("style"); contains(core.Styles, s) {
		v.Style = s
	}
	if t := q.Get("theme"); contains(core.Themes, t) {
		v.Theme = t
	}
	if m := q.Get("render"); contains(demoRenders, m) {
		v.Render = m
	}
	v.Transparency = q.Get("transparency") == "1"
	if cust := q.Get("customer"); cust != "" {
		if err := d.viewer(r.Context(), &v, cust, q.Get("name")); err != nil {
			return err
		}
	}
	if v.Render == "ssr" {
		if err := d.renderSSR(r.Context(), &v); err != nil {
			return err
		}
	}
	return d.page(w, r, "product", v)
}

// renderSSR fills the server-rendered component as a store server gets it from GET
// /v1/ssr (with its server key): html, state and structured data.
func (d *demoSurface) renderSSR(ctx context.Context, v *demoView) error {
	ch, err := d.db.Read().ChannelByCode(ctx, v.Channel.Code)
	if err != nil {
		return err
	}
	out, err := d.read.RenderSSR(ctx, ch, readmodel.SSRInput{ListInput: readmodel.ListInput{Product: v.Product.Code,
		Scope: v.Product.Scope}, Name: v.Product.Title, Style: v.Style, Theme: v.Theme})
	if err != nil {
		return err
	}
	var ans struct {
		HTML           string          `json:"html"`
		State          json.RawMessage `json:"state"`
		StructuredData json.RawMessage `json:"structured_data"`
	}
	if err := json.Unmarshal(out.Body, &ans); err != nil {
		return err
	}
	// Trusted: built by html/template; the JSON escapes <, > and & as \u003c etc.
	v.SSR, v.State = template.HTML(ans.HTML), template.JS(ans.State)
	if string(ans.StructuredData) != "null" {
		v.JSONLD = template.JS(ans.StructuredData)
	}
	return nil
}

// viewer asks, as the store's server does with GET /v1/viewer and its server key,
// what a signed-in customer may do on the product page: the asker token for
// questions, and a writing token when the customer can review the product.
func (d *demoSurface) viewer(ctx context.Context, v *demoView, customer, name string) error {
	k, _, err := d.acc.LookupKey(ctx, v.Channel.ServerKey)
	if err != nil {
		return err
	}
	ch, err := d.db.Read().ChannelByCode(ctx, v.Channel.Code)
	if err != nil {
		return err
	}
	out, err := d.buyer.Viewer(ctx, access.KeyActor(k, core.ViaServerKey), ch, buyer.ViewerInput{Customer: customer,
		CustomerName: name, Product: v.Product.Code, Scope: v.Product.Scope, Lang: v.Lang})
	if err != nil {
		return err
	}
	v.Customer = customer
	if name != "" {
		v.Customer = name
	}
	if out.Asker != nil {
		v.Asker = out.Asker.Token
	}
	v.WriteToken = out.Token
	return nil
}

// handleDemoAsset serves the pretend store's style sheet and its headless script.
func (d *demoSurface) handleDemoAsset(w http.ResponseWriter, r *http.Request) error {
	name := web.Vars(r)["file"]
	b, err := fs.ReadFile(assets.Templates(), "demo/"+name)
	if err != nil {
		return core.ErrNotFound
	}
	ctype := "text/css; charset=utf-8"
	if strings.HasSuffix(name, ".js") {
		ctype = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, err = w.Write(b)
	return err
}

// handleSpeculationRules serves GET /demo/speculationrules?url=<path>: a rule that
// prerenders one demo page (the Speculation-Rules header of a page names it).
func (d *demoSurface) handleSpeculationRules(w http.ResponseWriter, r *http.Request) error {
	p := r.URL.Query().Get("url")
	if !strings.HasPrefix(p, "/demo/") {
		return core.Invalid("url")
	}
	w.Header().Set("Content-Type", "application/speculationrules+json")
	w.Header().Set("Cache-Control", "no-store")
	return json.NewEncoder(w).Encode(map[string]any{"prerender": []map[string]any{
		{"source": "list", "urls": []string{p}, "eagerness": "immediate"}}})
}

// viewCounts sums today's component views per channel code, scope and product.
func (d *demoSurface) viewCounts(ctx context.Context) (map[string]int, error) {
	q := d.db.Read()
	day := d.db.Now().UTC().Format("2006-01-02")
	rows, err := q.ComponentViews(ctx, day, day)
	if err != nil {
		return nil, err
	}
	codes := map[int64]string{}
	for _, c := range d.info.Channels {
		ch, err := q.ChannelByCode(ctx, c.Code)
		if err != nil {
			return nil, err
		}
		codes[ch.ID] = c.Code
	}
	out := map[string]int{}
	for _, v := range rows {
		out[codes[v.ChannelID]+"\x00"+v.Scope+"\x00"+v.ProductKey] += v.Views
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
