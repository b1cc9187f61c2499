package panel

import (
	"encoding/json"
	"net/http"
	"net/url"

	"reviewd/app/core"
	"reviewd/app/core/audit"
	"reviewd/app/core/privacy"
	"reviewd/app/web"
)

// ---- personal-data requests ----

type privacyData struct {
	privacy.Page
	Kind, State, Prev, Next string
}

// handlePrivacy serves GET /panel/privacy: the requests (kind, state filters) and
// the form that opens one (privacy.List, as GET /admin/v1/subject-requests).
func (h *Handler) handlePrivacy(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 25)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := privacy.ListFilter{Kind: q.Get("kind"), State: q.Get("state")}
	p, err := h.Privacy.List(r.Context(), a, l, f)
	if err != nil {
		return err
	}
	d := privacyData{Page: p, Kind: f.Kind, State: f.State}
	d.Prev, d.Next = pager(r, "privacy", p.Page, p.Pages)
	return h.show(w, r, a, "privacy", d)
}

// handlePrivacyOpen serves POST /panel/privacy: kind, identifier, note
// (privacy.Open, as POST /admin/v1/subject-requests); it opens the request's page.
func (h *Handler) handlePrivacyOpen(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	d, err := h.Privacy.Open(r.Context(), a, privacy.NewRequest{Kind: f.Get("kind"), Identifier: f.Get("identifier"), Note: f.Get("note")})
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/panel/privacy/"+url.PathEscape(d.ID)+"?notice=request_opened", http.StatusSeeOther)
	return nil
}

// handlePrivacyRequest serves GET /panel/privacy/<id>: the request with what it
// covers (privacy.Get with preview, as GET /admin/v1/subject-requests/<id>?preview=1),
// its downloads and the complete and refuse forms.
func (h *Handler) handlePrivacyRequest(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.Privacy.Get(r.Context(), a, web.Vars(r)["id"], true)
	if err != nil {
		return err
	}
	return h.show(w, r, a, "privacy-request", d)
}

// handlePrivacyComplete serves POST /panel/privacy/<id>/complete: purge_media
// (privacy.Complete, as POST /admin/v1/subject-requests/<id>/complete).
func (h *Handler) handlePrivacyComplete(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	if _, err := h.Privacy.Complete(r.Context(), a, id, privacy.CompleteInput{PurgeMedia: r.PostForm.Get("purge_media") == "1"}); err != nil {
		return err
	}
	return back(w, r, "/panel/privacy/"+id, "request_completed")
}

// handlePrivacyRefuse serves POST /panel/privacy/<id>/refuse: reason
// (privacy.Refuse, as POST /admin/v1/subject-requests/<id>/refuse).
func (h *Handler) handlePrivacyRefuse(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	id := web.Vars(r)["id"]
	if _, err := h.Privacy.Refuse(r.Context(), a, id, privacy.RefuseInput{Reason: r.PostForm.Get("reason")}); err != nil {
		return err
	}
	return back(w, r, "/panel/privacy/"+id, "request_refused")
}

// handlePrivacyCopy serves POST /panel/privacy/<id>/copy: the identifier the
// request was opened with and a format; the answer is the copy for the person, a
// file (privacy.CopyRequest, as POST /admin/v1/subject-requests/<id>/copy).
func (h *Handler) handlePrivacyCopy(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := privacy.CopyInput{Identifier: r.PostForm.Get("identifier"), Format: r.PostForm.Get("format")}
	if in.Format == "" {
		return core.Invalid("format")
	}
	_, f, err := h.Privacy.CopyRequest(r.Context(), a, web.Vars(r)["id"], in)
	if err != nil {
		return err
	}
	return writeFile(w, *f)
}

// ---- access log, audit log, audit file ----

type accessLogData struct {
	audit.AccessPage
	Action, Actor, Via, Prev, Next string
}

// handleAccessLog serves GET /panel/access-log: who read what (audit.AccessLog,
// as GET /admin/v1/access-log, with its action, actor and via filters).
func (h *Handler) handleAccessLog(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	l, err := listQuery(r, 50)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := audit.AccessFilter{Action: q.Get("action"), Actor: q.Get("actor"), Via: q.Get("via")}
	p, err := h.Audit.AccessLog(r.Context(), l, f)
	if err != nil {
		return err
	}
	d := accessLogData{AccessPage: p, Action: f.Action, Actor: f.Actor, Via: f.Via}
	d.Prev, d.Next = pager(r, "access-log", p.Page, p.Pages)
	return h.show(w, r, a, "access-log", d)
}

type auditLogData struct {
	audit.AuditPage
	F          audit.AuditFilter
	Filters    string // the filters as JSON, for the export form
	Prev, Next string
	File       *audit.AuditFileRow
	Channels   []string
}

func auditFilter(r *http.Request, l core.ListQuery) (audit.AuditFilter, error) {
	q := r.URL.Query()
	f := audit.AuditFilter{Action: q.Get("action"), Actor: q.Get("actor"), Via: q.Get("via"), TargetType: q.Get("target_type"),
		TargetID: q.Get("target_id"), From: q.Get("from"), To: q.Get("to"), Q: l.Q}
	switch q.Get("sessions") {
	case "", "0":
	case "1":
		f.Sessions = true
	default:
		return f, core.Invalid("sessions")
	}
	return f, nil
}

func (h *Handler) showAuditLog(w http.ResponseWriter, r *http.Request, a *core.Actor, file *audit.AuditFileRow) error {
	l, err := listQuery(r, 50)
	if err != nil {
		return err
	}
	f, err := auditFilter(r, l)
	if err != nil {
		return err
	}
	p, err := h.Audit.AuditLog(r.Context(), l, f)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(f)
	d := auditLogData{AuditPage: p, F: f, Filters: string(raw), File: file}
	d.Prev, d.Next = pager(r, "audit-log", p.Page, p.Pages)
	if d.Channels, err = h.Channels.Codes(r.Context()); err != nil {
		return err
	}
	return h.show(w, r, a, "audit-log", d)
}

// handleAuditLog serves GET /panel/audit-log: the activity history with the
// filters of GET /admin/v1/audit-log (audit.AuditLog), its export and the audit
// file form.
func (h *Handler) handleAuditLog(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	return h.showAuditLog(w, r, a, nil)
}

// handleAuditExport serves POST /panel/audit-log/export: format and the filters
// of the page (audit.ExportAuditLog, as POST /admin/v1/audit-log/export); the
// answer is the file.
func (h *Handler) handleAuditExport(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	in := audit.ExportInput{Format: r.PostForm.Get("format"), Title: r.PostForm.Get("title")}
	if s := r.PostForm.Get("filters"); s != "" {
		in.Filters = json.RawMessage(s) // the service reads and checks it as the API's body field
	}
	f, err := h.Audit.ExportAuditLog(r.Context(), a, in)
	if err != nil {
		return err
	}
	return writeFile(w, f)
}

// handleAuditFile serves POST /panel/audit-file: market or channel, start, end
// (audit.CreateAuditFile, as POST /admin/v1/audit-file); the page then links the
// file's downloads (GET /admin/v1/audit-file/<id>?format=...).
func (h *Handler) handleAuditFile(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	row, err := h.Audit.CreateAuditFile(r.Context(), a, audit.AuditFileInput{Market: f.Get("market"), Channel: f.Get("channel"),
		Start: f.Get("start"), End: f.Get("end")})
	if err != nil {
		return err
	}
	return h.showAuditLog(w, r, a, &row)
}
