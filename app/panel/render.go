package panel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/held"
	"reviewd/assets"
)

// pageNames are the page templates; each is parsed with layout.html.
var pageNames = []string{"sign-in", "error", "overview", "queue", "reviews", "review", "questions", "question",
	"invitations", "settings", "password", "account", "users", "keys", "secrets", "channels", "privacy", "privacy-request",
	"access-log", "audit-log", "connections", "diagnostics", "marketplace", "market-source", "market-reviews", "rules", "terms",
	"rating-topics", "invite-templates", "review-feeds", "brand-export", "themes",
	"key-revoke", "go-live", "mail"}

// navItem is one link of a section's second menu.
type navItem struct {
	Href, Page, Perm string
	// Also are pages shown under this link (a detail page of its list).
	Also []string
}

// sections are the second menus: the pages of a section, each with the
// permission its route needs (a link is shown only to who may open it).
var sections = map[string][]navItem{
	"settings": {{"/panel/settings", "settings", core.PermWrite, nil}, {"/panel/rules", "rules", core.PermRead, nil},
		{"/panel/terms", "terms", core.PermRead, nil}, {"/panel/rating-topics", "rating-topics", core.PermRead, nil},
		{"/panel/invite-templates", "invite-templates", core.PermWrite, nil}, {"/panel/review-feeds", "review-feeds", core.PermWrite, nil},
		{"/panel/brand-export", "brand-export", core.PermExport, nil}, {"/panel/themes", "themes", core.PermRead, nil},
		{"/panel/mail", "mail", core.PermUsers, nil}, {"/panel/go-live", "go-live", core.PermRead, nil}},
	"connections": {{"/panel/connections", "connections", core.PermWrite, nil}, {"/panel/diagnostics", "diagnostics", core.PermRead, nil},
		{"/panel/marketplace", "marketplace", core.PermWrite, []string{"market-source"}},
		{"/panel/marketplace/reviews", "market-reviews", core.PermPersonalData, nil}},
	"team": {{"/panel/users", "users", core.PermUsers, nil}, {"/panel/keys", "keys", core.PermWrite, []string{"key-revoke"}},
		{"/panel/secrets", "secrets", core.PermWrite, nil},
		{"/panel/channels", "channels", core.PermRead, nil}, {"/panel/privacy", "privacy", core.PermPersonalData, []string{"privacy-request"}},
		{"/panel/access-log", "access-log", core.PermExport, nil}, {"/panel/audit-log", "audit-log", core.PermExport, nil}},
}

// Section is the section of the page ("" for pages without a second menu).
func (v *view) Section() string {
	for name, items := range sections {
		for _, it := range items {
			if it.Page == v.Page || slices.Contains(it.Also, v.Page) {
				return name
			}
		}
	}
	return ""
}

// Sub is the second menu of the page's section, the links the user may open.
func (v *view) Sub() []navItem {
	var out []navItem
	for _, it := range sections[v.Section()] {
		if v.Can(it.Perm) {
			out = append(out, it)
		}
	}
	return out
}

// Entry is the first page of a section the user may open ("" when none).
func (v *view) Entry(section string) string {
	for _, it := range sections[section] {
		if v.Can(it.Perm) {
			return it.Href
		}
	}
	return ""
}

type pages struct {
	byName map[string]*template.Template
}

// assetVersion is a hash of the script and style sheet: their addresses carry it, so
// browsers keep them for a year and fetch them again only when they change.
var assetVersion = func() string {
	h := sha256.New()
	for _, n := range []string{"panel/panel.js", "panel/panel.css"} {
		b, _ := fs.ReadFile(assets.Panel, n)
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

var funcs = template.FuncMap{
	"asset":   func(name string) string { return "/panel/assets/" + name + "?v=" + assetVersion },
	"stars":   func(n int) string { return strings.Repeat("★", n) + strings.Repeat("☆", 5-n) },
	"add":     func(a, b int) int { return a + b },
	"heading": heading,
	"list":    func(s ...string) []string { return s },
	"mul100":  func(f float64) float64 { return f * 100 },
	"pct": func(part, whole int) int {
		if whole == 0 {
			return 0
		}
		return part * 100 / whole
	},
	// reasonKey is the message key part of a mailer's failure code
	// ("smtp_status: 535" is smtp_status).
	"reasonKey": func(reason string) string {
		code, _, _ := strings.Cut(reason, ":")
		switch code {
		case "connection_failed", "smtp_status", "address_invalid", "message_invalid", "mail_disabled":
			return code
		}
		return "unknown"
	},
	"has": func(list []string, s string) bool {
		for _, x := range list {
			if x == s {
				return true
			}
		}
		return false
	},
}

func mustPages() *pages {
	p := &pages{byName: map[string]*template.Template{}}
	for _, name := range pageNames {
		t := template.Must(template.New(name).Funcs(funcs).ParseFS(assets.Panel, "panel/layout.html", "panel/"+name+".html"))
		p.byName[name] = t
	}
	return p
}

// view is what every page template gets.
type view struct {
	Page   string
	Lang   string
	Actor  *core.Actor
	CSRF   string
	Status int
	Error  string
	// ErrDetail is the detail of a form's refusal (often the field it names).
	ErrDetail string
	Notice    string
	Path      string
	Loc       *time.Location
	Data      any
	// Undo is the held decision the page offers to undo (with Notice).
	Undo *held.Decision
	// zoneOf gives a channel's zone of review dates (undo.go's channelZones).
	zoneOf func(channel string) *time.Location
}

// ErrorText is the refusal shown in the user's language: the text of its detail
// (err_<detail>), else of its code (err_<code>); "" when neither has one.
func (v *view) ErrorText() string {
	code, detail, _ := strings.Cut(v.Error, " / ")
	detail, _, _ = strings.Cut(detail, ": ")
	keys := []string{"err_" + detail, "err_" + code}
	if d, ok := v.Data.(interface{ ErrWords() string }); ok && d.ErrWords() != "" {
		keys = append([]string{d.ErrWords() + "err_" + detail}, keys...)
	}
	for _, k := range keys {
		if s := v.T(k); s != k {
			return s
		}
	}
	return ""
}

// ErrOn reports whether a form's refusal is about a field: its detail is the
// field, starts with it ("subject_too_long"), names it ("field_missing: name"),
// or is one of more.
func (v *view) ErrOn(field string, more ...string) bool {
	d := v.ErrDetail
	if _, f, ok := strings.Cut(d, ": "); ok { // "field_missing: name"
		return f == field
	}
	return d != "" && (d == field || strings.HasPrefix(d, field+"_") || slices.Contains(more, d))
}

// Tf is T with fmt arguments.
func (v *view) Tf(key string, args ...any) string { return fmt.Sprintf(v.T(key), args...) }

// When formats a time in the brand's time zone.
func (v *view) When(t any) string {
	var tt time.Time
	switch x := t.(type) {
	case time.Time:
		tt = x
	case *time.Time:
		if x == nil {
			return "—"
		}
		tt = *x
	case *string: // RFC 3339, as some services answer
		if x == nil {
			return "—"
		}
		return v.When(*x)
	case string:
		p, err := time.Parse(time.RFC3339, x)
		if err != nil {
			return x
		}
		tt = p
	default:
		return ""
	}
	if tt.IsZero() {
		return "—"
	}
	return tt.In(v.Loc).Format("2006-01-02 15:04")
}

// WhenIn formats a time of a review of channel in the channel's time zone (its
// time_zone, else the brand's), as its product pages show the review's date.
func (v *view) WhenIn(t any, channel string) string {
	in := *v
	if v.zoneOf != nil {
		in.Loc = v.zoneOf(channel)
	}
	return in.When(t)
}

// Can reports whether the signed-in user holds a permission (what is shown; the
// route table decides what is allowed).
func (v *view) Can(perm string) bool { return v.Actor != nil && v.Actor.Can(perm) }

// view builds the common part of a page's view.
func (h *Handler) view(r *http.Request, a *core.Actor, page string) *view {
	v := &view{Page: page, Lang: language(r), Actor: a, Path: r.URL.RequestURI(), Loc: h.location(r), Status: http.StatusOK}
	if a != nil {
		v.CSRF = a.CSRF
	}
	if n := r.URL.Query().Get("notice"); n != "" {
		key, arg, counted := strings.Cut(n, ":") // "retried:3": a message with a count
		v.Notice = v.T("notice_" + key)
		switch {
		case v.Notice == "notice_"+key:
			v.Notice = n
		case counted:
			v.Notice = v.Tf("notice_"+key, arg)
		}
	}
	h.heldOf(r, v, r.URL.Query().Get("undo"))
	v.zoneOf = h.channelZones(r, v.Loc)
	return v
}

// location is the brand's time zone (settings time_zone), UTC when unreadable.
func (h *Handler) location(r *http.Request) *time.Location {
	if h.Brand == nil {
		return time.UTC
	}
	st, err := h.Brand.SettingsOf(r.Context())
	if err != nil {
		return time.UTC
	}
	loc, err := time.LoadLocation(st.TimeZone)
	if err != nil {
		return time.UTC
	}
	return loc
}

// render writes a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, v *view) {
	t := h.pages.byName[v.Page]
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", v); err != nil {
		http.Error(w, "page failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Language", v.Lang)
	w.Header().Set("Vary", "Accept-Language, Cookie")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// fragment writes one named template of a page without the layout (the script
// swaps it in).
func (h *Handler) fragment(w http.ResponseWriter, v *view, name string) error {
	var buf bytes.Buffer
	if err := h.pages.byName[v.Page].ExecuteTemplate(&buf, name, v); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, err := w.Write(buf.Bytes())
	return err
}

// langCookie keeps the language a user chose in the panel.
const langCookie = "reviewd_panel_lang"

// language is the user's choice (cookie), else the browser's first of tr or en.
func language(r *http.Request) string {
	if c, err := r.Cookie(langCookie); err == nil && (c.Value == "tr" || c.Value == "en") {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case strings.HasPrefix(tag, "tr"):
			return "tr"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "en"
}

// handleAsset serves the panel's script and style sheet.
func (h *Handler) handleAsset(w http.ResponseWriter, r *http.Request, _ *core.Actor) error {
	name := strings.TrimPrefix(r.URL.Path, "/panel/assets/")
	b, err := fs.ReadFile(assets.Panel, "panel/"+name)
	if err != nil {
		return core.ErrNotFound
	}
	ct := "text/css; charset=utf-8"
	if strings.HasSuffix(name, ".js") {
		ct = "text/javascript; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	if r.URL.Query().Get("v") == assetVersion {
		w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	return nil
}
