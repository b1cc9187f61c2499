package panel

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"

	"reviewd/app/core"
	"reviewd/app/core/marketplace"
	"reviewd/app/core/orders"
	"reviewd/app/web"
)

// ---- order connections ----

type connectionsData struct {
	orders.OrderSourceList
	Platform *orders.PlatformDef // the platform whose fields the create form shows
	Channels []string
	Check    *orders.OrderSourceCheck
	CheckOf  string
}

func (h *Handler) showConnections(w http.ResponseWriter, r *http.Request, a *core.Actor, check *orders.OrderSourceCheck, of string) error {
	list, err := h.Orders.ListOrderSources(r.Context())
	if err != nil {
		return err
	}
	d := connectionsData{OrderSourceList: list, Check: check, CheckOf: of}
	want := r.URL.Query().Get("platform")
	if r.Method == http.MethodPost {
		want = r.PostForm.Get("platform")
	}
	for i := range list.Platforms {
		if list.Platforms[i].Code == want {
			d.Platform = &list.Platforms[i]
		}
	}
	if d.Channels, err = h.Channels.Codes(r.Context()); err != nil {
		return err
	}
	return h.show(w, r, a, "connections", d)
}

// handleConnections serves GET /panel/connections (?platform= shows that
// platform's fields in the create form): orders.ListOrderSources, as GET
// /admin/v1/order-sources.
func (h *Handler) handleConnections(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showConnections(w, r, a, nil, "")
}

// sourceBody is the create and check form as the body of POST
// /admin/v1/order-sources: platform, channel, the platform's fields (empty ones
// left out), backfill_days and interval_minutes.
func sourceBody(r *http.Request) map[string]json.RawMessage {
	f := fields{text: []string{"platform", "channel"}, number: []string{"backfill_days", "interval_minutes"}}
	body := f.read(r)
	for _, def := range orders.PlatformDefs() {
		if def.Code != r.PostForm.Get("platform") {
			continue
		}
		for _, pf := range def.Fields {
			if s := r.PostForm.Get(pf.Name); s != "" {
				body[pf.Name], _ = json.Marshal(s)
			}
		}
	}
	return body
}

// handleConnectionCreate serves POST /panel/connections
// (orders.CreateOrderSource, as POST /admin/v1/order-sources).
func (h *Handler) handleConnectionCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body := sourceBody(r)
	if _, err := h.Orders.CreateOrderSource(r.Context(), a, body); err != nil {
		return err
	}
	return back(w, r, "/panel/connections", "connection_created")
}

// handleConnectionTry serves POST /panel/connections/check: the create form's
// fields tried without saving (orders.CheckOrderSource, as POST
// /admin/v1/order-sources/check).
func (h *Handler) handleConnectionTry(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body := sourceBody(r)
	c, err := h.Orders.CheckOrderSource(r.Context(), a, body)
	if err != nil {
		return err
	}
	return h.showConnections(w, r, a, &c, r.PostForm.Get("platform"))
}

// handleConnectionCheck serves POST /panel/connections/<id>/check
// (orders.CheckSavedOrderSource, as POST /admin/v1/order-sources/<id>/check).
func (h *Handler) handleConnectionCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	c, err := h.Orders.CheckSavedOrderSource(r.Context(), a, id)
	if err != nil {
		return err
	}
	return h.showConnections(w, r, a, &c, id)
}

// handleConnectionRun serves POST /panel/connections/<id>/run: a read now, in the
// background, as POST /admin/v1/order-sources/<id>/run starts it
// (orders.RequestOrderSourceRun, then orders.ReadOrderSource).
func (h *Handler) handleConnectionRun(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id, err := h.Orders.RequestOrderSourceRun(r.Context(), a, web.Vars(r)["id"])
	if err != nil {
		return err
	}
	web.Background(h.Orders.Log.With("connection", orders.OrderSourcePublicID(id)), "manual order connection read",
		orders.ManualReadLimit, h.Orders.ManualRead(id), nil)
	return back(w, r, "/panel/connections", "run_started")
}

// handleConnectionPause serves POST /panel/connections/<id>/pause: enabled=0|1
// (orders.UpdateOrderSource, as PATCH /admin/v1/order-sources/<id>).
func (h *Handler) handleConnectionPause(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	body := fields{flag: []string{"enabled"}}.read(r)
	if _, err := h.Orders.UpdateOrderSource(r.Context(), a, web.Vars(r)["id"], body); err != nil {
		return err
	}
	return back(w, r, "/panel/connections", "saved")
}

// handleConnectionRemove serves POST /panel/connections/<id>/remove
// (orders.RemoveOrderSource, as DELETE /admin/v1/order-sources/<id>).
func (h *Handler) handleConnectionRemove(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Orders.RemoveOrderSource(r.Context(), a, web.Vars(r)["id"]); err != nil {
		return err
	}
	return back(w, r, "/panel/connections", "connection_removed")
}

type diagnosticsData struct {
	orders.ConnectionLog
	Connection, Outcome, Prev, Next string
	// PlainReplicaEndpoint: see Handler.
	PlainReplicaEndpoint string
}

// handleDiagnostics serves GET /panel/diagnostics: the connection log
// (orders.ListConnectionLog, as GET /admin/v1/diagnostics).
func (h *Handler) handleDiagnostics(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 50)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := orders.ConnectionLogFilter{ListQuery: l, Channel: q.Get("channel"), Connection: q.Get("connection"), Outcome: q.Get("outcome")}
	log, err := h.Orders.ListConnectionLog(r.Context(), f)
	if err != nil {
		return err
	}
	d := diagnosticsData{ConnectionLog: log, Connection: f.Connection, Outcome: f.Outcome, PlainReplicaEndpoint: h.PlainReplicaEndpoint}
	d.Prev, d.Next = pager(r, "diagnostics", log.Page, log.Pages)
	return h.show(w, r, a, "diagnostics", d)
}

// ---- marketplace sources ----

type marketplaceData struct {
	marketplace.SourceList
	Channels []string
}

// handleMarketplace serves GET /panel/marketplace: the sources, their last run
// and what needs attention (marketplace.ListSources, as GET
// /admin/v1/marketplace/sources).
func (h *Handler) handleMarketplace(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	list, err := h.Marketplace.ListSources(r.Context())
	if err != nil {
		return err
	}
	d := marketplaceData{SourceList: list}
	if d.Channels, err = h.Channels.Codes(r.Context()); err != nil {
		return err
	}
	return h.show(w, r, a, "marketplace", d)
}

// handleMarketCreate serves POST /panel/marketplace (marketplace.CreateSource, as
// POST /admin/v1/marketplace/sources).
func (h *Handler) handleMarketCreate(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := marketplace.SourceInput{}
	for k, p := range map[string]**string{"platform": &in.Platform, "channel": &in.Channel, "seller_id": &in.SellerID,
		"route": &in.Route, "feed_url": &in.FeedURL, "secret": &in.Secret} {
		if s := r.PostForm.Get(k); s != "" {
			*p = &s
		}
	}
	out, err := h.Marketplace.CreateSource(r.Context(), a, in)
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/panel/marketplace/"+out.ID+"?notice=source_created", http.StatusSeeOther)
	return nil
}

type marketSourceData struct {
	Source marketplace.SourceView
	Runs   []marketplace.RunView
	Check  *marketplace.CheckResult
}

func (h *Handler) showMarketSource(w http.ResponseWriter, r *http.Request, a *core.Actor, check *marketplace.CheckResult) error {
	id := web.Vars(r)["id"]
	s, err := h.Marketplace.Source(r.Context(), id)
	if err != nil {
		return err
	}
	runs, err := h.Marketplace.Runs(r.Context(), id)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "market-source", marketSourceData{Source: s, Runs: runs.Items, Check: check})
}

// handleMarketSource serves GET /panel/marketplace/<id>: the source, its run
// reports and the run forms (marketplace.Source and Runs, as GET
// /admin/v1/marketplace/sources/<id> and .../runs).
func (h *Handler) handleMarketSource(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showMarketSource(w, r, a, nil)
}

// runInput reads a run form: scope, confirm_removals and, for a file route, the
// uploaded file (copied to the marketplace's temporary folder, as the admin
// route stores it; the service removes it when the run ends).
func (h *Handler) runInput(r *http.Request) (marketplace.StartInput, error) {
	in := marketplace.StartInput{Scope: r.PostForm.Get("scope"), ConfirmRemovals: r.PostForm.Get("confirm_removals") == "1"}
	if r.MultipartForm == nil || len(r.MultipartForm.File["file"]) == 0 {
		return in, nil
	}
	fh := r.MultipartForm.File["file"][0]
	if fh.Size > marketplace.MaxFileBytes {
		return in, marketplace.ErrFileTooLarge
	}
	if fh.Size == 0 {
		return in, marketplace.ErrFileRequired
	}
	src, err := fh.Open()
	if err != nil {
		return in, core.Invalid("file_unreadable")
	}
	defer src.Close()
	dst, err := os.CreateTemp(h.Marketplace.TempDirPath(), "market-*.upload")
	if err != nil {
		return in, err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(dst.Name())
		return in, err
	}
	in.FilePath, in.FileName = dst.Name(), fh.Filename
	return in, nil
}

// handleMarketRun serves POST /panel/marketplace/<id>/runs: a run, with a file
// upload for file routes and confirm_removals to carry out held removals
// (marketplace.StartRun, as POST /admin/v1/marketplace/sources/<id>/runs).
func (h *Handler) handleMarketRun(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := h.runInput(r)
	if err != nil {
		return err
	}
	id := web.Vars(r)["id"]
	if _, err := h.Marketplace.StartRun(r.Context(), a, id, in); err != nil {
		return err
	}
	return back(w, r, "/panel/marketplace/"+id, "run_started")
}

// uploadLimit is the largest body of the marketplace file form.
const uploadLimit = marketplace.MaxFileBytes + 1<<20

// handleMarketCheck serves POST /panel/marketplace/<id>/check: the file or feed
// tried without importing (marketplace.Check, as POST
// /admin/v1/marketplace/sources/<id>/check; it removes the upload).
func (h *Handler) handleMarketCheck(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in, err := h.runInput(r)
	if err != nil {
		return err
	}
	c, err := h.Marketplace.Check(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return h.showMarketSource(w, r, a, &c)
}

type importedData struct {
	marketplace.ImportedList
	Q, Platform, Prev, Next string
	Platforms               []marketplace.Platform
}

// handleImported serves GET /panel/marketplace/reviews: the imported reviews (q,
// platform) with the removal form (marketplace.ImportedReviews, as GET
// /admin/v1/marketplace/imported-reviews).
func (h *Handler) handleImported(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 50)
	if err != nil {
		return err
	}
	p := r.URL.Query().Get("platform")
	list, err := h.Marketplace.ImportedReviews(r.Context(), a, marketplace.ImportedFilter{Q: l.Q, Platform: p, Page: l.Page, PageSize: l.PageSize})
	if err != nil {
		return err
	}
	d := importedData{ImportedList: list, Q: l.Q, Platform: p}
	d.Platforms = marketplace.Platforms // the platform catalogue of the filter
	d.Prev, d.Next = pager(r, "market-reviews", list.Page, list.Pages)
	return h.show(w, r, a, "market-reviews", d)
}

// handleMarketRemoval serves POST /panel/marketplace/removals: reviews (ids, the
// ones ticked), note; removal on the reviewer's request (marketplace.Remove, as
// POST /admin/v1/marketplace/removals).
func (h *Handler) handleMarketRemoval(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	out, err := h.Marketplace.Remove(r.Context(), a, marketplace.RemovalInput{Reviews: r.PostForm["reviews"], Note: r.PostForm.Get("note")})
	if err != nil {
		return err
	}
	return back(w, r, "/panel/marketplace/reviews", "removed_on_request:"+strconv.Itoa(len(out.Reviews)))
}
