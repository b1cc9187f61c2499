package storefront

import (
	"bytes"
	"html/template"
	"net/http"

	"reviewd/app/cdn"
	"reviewd/app/core"
	"reviewd/app/web"
	"reviewd/assets"
	"reviewd/store"
)

// statementCSP lets the method-statement page load its own stylesheet and nothing
// else: no scripts, images, frames or forms.
const statementCSP = "default-src 'none'; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// statementStyleURL is where the page's stylesheet is served.
const statementStyleURL = "/v1/method-statement.css"

var (
	statementPage = template.Must(template.ParseFS(assets.Templates(), "statement/page.html"))
	statementCSS  = mustRead("statement/statement.css")
)

func mustRead(name string) []byte {
	b, err := assets.FS.ReadFile("templates/" + name)
	if err != nil {
		panic(err)
	}
	return b
}

var statementWords = map[string][3]string{"tr": {"Kural sürümü", "Parmak izi", "Şeffaflık raporu: yayın kararlarının herkesçe doğrulanabilir kaydı"},
	"en": {"Rule version", "Fingerprint", "Transparency report: the publicly verifiable log of publishing decisions"}}

// statementReportURL is the transparency report the page links (docs/transparency.md).
const statementReportURL = "/v1/transparency/report"

// handleMethodStatement serves GET /v1/method-statement?key=<site key>&lang=: the
// public page of the site key's channel, without a domain check (also by
// channel=<code> for the hosted address shown in the panel); format=json gives the
// machine-readable statement.
func (h *Handler) handleMethodStatement(w http.ResponseWriter, r *http.Request) error {
	if err := web.CheckQuery(r); err != nil {
		return err
	}
	q := r.URL.Query()
	var ch store.Channel
	if code := q.Get("channel"); code != "" && q.Get("key") == "" && r.Header.Get("X-Service-Site-Key") == "" {
		c, err := h.Read.StatementChannel(r.Context(), code)
		if err != nil {
			return err
		}
		ch = c
	} else {
		_, acc, err := h.Auth.SiteKey(r, false)
		if err != nil {
			return err
		}
		ch = acc.Channel
	}
	format := q.Get("format")
	if format != "" && format != "json" && format != "html" {
		return core.Invalid("format")
	}
	s, err := h.Read.PublicMethodStatement(r.Context(), ch, q.Get("lang"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", h.publicCache("public, max-age=300"))
	h.setTags(w.Header(), cdn.NewTags(cdn.AllTag, cdn.ChannelTag(ch.Code)))
	if format == "json" {
		return web.JSON(w, http.StatusOK, s)
	}
	words := statementWords[s.Language]
	var b bytes.Buffer
	if err := statementPage.Execute(&b, map[string]any{"S": s, "StyleURL": statementStyleURL, "Version": words[0],
		"Fingerprint": words[1], "Short": s.Fingerprint[:16], "Report": words[2], "ReportURL": statementReportURL}); err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Security-Policy", statementCSP)
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("X-Frame-Options", "DENY")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
	return nil
}

// handleMethodStatementCSS serves GET /v1/method-statement.css, the page's only
// stylesheet.
func (h *Handler) handleMethodStatementCSS(w http.ResponseWriter, r *http.Request) error {
	hd := w.Header()
	hd.Set("Content-Type", "text/css; charset=utf-8")
	hd.Set("Cache-Control", "public, max-age=86400")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(statementCSS)
	return nil
}
