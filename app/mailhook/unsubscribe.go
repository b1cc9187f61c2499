package mailhook

import (
	"errors"
	"html/template"
	"net/http"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/sending"
	"reviewd/app/web"
)

// pageCSP is the policy of the stop-link pages: inline styles and a form posting
// back to the same address, nothing else.
const pageCSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

type pageText struct {
	Lang, Title, Ask, Button, Done, Invalid string
}

var texts = map[string]pageText{
	"en": {Lang: "en", Title: "Stop review e-mails", Ask: "Stop sending review requests and review e-mails to %s?",
		Button: "Unsubscribe", Done: "Done. %s will not receive review e-mails from us any more.",
		Invalid: "This link is not valid. Please use the link from the e-mail exactly as it is."},
	"tr": {Lang: "tr", Title: "Değerlendirme e-postalarını durdur", Ask: "%s adresine değerlendirme istekleri ve değerlendirme e-postaları gönderilmesin mi?",
		Button: "Aboneliği iptal et", Done: "Tamam. %s adresine artık bizden değerlendirme e-postası gönderilmeyecek.",
		Invalid: "Bu bağlantı geçerli değil. Lütfen e-postadaki bağlantıyı olduğu gibi kullanın."},
}

var page = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="{{.T.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>{{.T.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5;color:#222}
button{font-size:1rem;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:#222;color:#fff;cursor:pointer}</style>
</head><body><h1>{{.T.Title}}</h1>
{{if .Invalid}}<p>{{.T.Invalid}}</p>
{{else if .Done}}<p>{{.Message}}</p>
{{else}}<p>{{.Message}}</p><form method="post"><button type="submit">{{.T.Button}}</button></form>{{end}}
</body></html>
`))

type pageData struct {
	T       pageText
	Message string
	Invalid bool
	Done    bool
}

// maskAddress shows enough of an address for its owner to recognise it:
// a***@example.com.
func maskAddress(a string) string {
	at := strings.LastIndexByte(a, '@')
	if at <= 0 {
		return "***"
	}
	return a[:1] + "***" + a[at:]
}

func writePage(w http.ResponseWriter, status int, d pageData) error {
	h := w.Header()
	h.Set("Content-Security-Policy", pageCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	return page.Execute(w, d)
}

func langOf(r *http.Request) string {
	if strings.HasPrefix(strings.ToLower(r.Header.Get("Accept-Language")), "tr") {
		return "tr"
	}
	return "en"
}

// token reads the stop-link token from the query (or, for a form post without it,
// from the form).
func token(r *http.Request) string {
	if t := r.URL.Query().Get("t"); t != "" {
		return t
	}
	if r.Method == http.MethodPost {
		r.Body = http.MaxBytesReader(nil, r.Body, 8<<10)
		if err := r.ParseForm(); err == nil {
			return r.PostForm.Get("t")
		}
	}
	return ""
}

// handleUnsubscribePage serves GET /v1/unsubscribe?t=<token>: a page asking to
// confirm with a button. A GET never opts out (mail scanners open links).
func (h *Handler) handleUnsubscribePage(w http.ResponseWriter, r *http.Request) error {
	l, err := h.Sending.ReadUnsubscribeToken(r.URL.Query().Get("t"))
	if err != nil {
		web.MarkRefused(r.Context())
		return writePage(w, http.StatusBadRequest, pageData{T: texts[langOf(r)], Invalid: true})
	}
	t := texts[l.Language]
	return writePage(w, http.StatusOK, pageData{T: t, Message: sprintf(t.Ask, maskAddress(l.Address))})
}

// handleUnsubscribe serves POST /v1/unsubscribe?t=<token>: the confirmation of the
// page and the one-click unsubscribe of RFC 8058 (body List-Unsubscribe=One-Click).
// The address goes on the opt-out list; a second POST changes nothing.
func (h *Handler) handleUnsubscribe(w http.ResponseWriter, r *http.Request) error {
	a := &core.Actor{Via: core.ViaSystem, Name: "unsubscribe_link", Role: "customer", RequestID: web.RequestID(r.Context()),
		IP: web.ClientIP(r.Context()), UserAgent: r.UserAgent()}
	l, err := h.Sending.Unsubscribe(r.Context(), a, token(r))
	if errors.Is(err, sending.ErrUnsubscribeToken) {
		web.MarkRefused(r.Context())
		return writePage(w, http.StatusBadRequest, pageData{T: texts[langOf(r)], Invalid: true})
	}
	if err != nil {
		return err
	}
	t := texts[l.Language]
	return writePage(w, http.StatusOK, pageData{T: t, Message: sprintf(t.Done, maskAddress(l.Address)), Done: true})
}

func sprintf(format, v string) string { return strings.Replace(format, "%s", v, 1) }
