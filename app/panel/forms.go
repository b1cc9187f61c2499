package panel

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"reviewd/app/core"
	"reviewd/app/core/audit"
	"reviewd/app/web"
)

// show renders a page with its data.
func (h *Handler) show(w http.ResponseWriter, r *http.Request, a *core.Actor, page string, data any) error {
	return h.showStatus(w, r, a, page, data, http.StatusOK)
}

// showStatus renders a page with its data and an answer status (a refusal shown
// with what the user needs to act on it).
func (h *Handler) showStatus(w http.ResponseWriter, r *http.Request, a *core.Actor, page string, data any, status int) error {
	v := h.view(r, a, page)
	v.Data, v.Status = data, status
	if r.Method == http.MethodPost {
		// A page answering a form: its links (language, back) name the page's own
		// address, not the form's.
		v.Path = pageAddress(page, r)
	}
	h.render(w, r, status, v)
	return nil
}

// pageAddress is the address of a page that also answers a form.
func pageAddress(page string, r *http.Request) string {
	if page == "market-source" {
		return strings.TrimSuffix(r.URL.Path, "/check")
	}
	for _, items := range sections {
		for _, it := range items {
			if it.Page == page {
				return it.Href
			}
		}
	}
	return "/panel/" + page
}

// fields turns form fields into the JSON body fields of the admin route a form
// mirrors, so the service reads and checks them exactly as it reads the API's:
// text fields sent as strings (trimmed), numbers as numbers (a value that is not a
// number is sent as a string, which the service refuses with invalid / <field>),
// checkboxes as booleans when their form also sent <name>_shown. An empty text or
// number field is left out (the service keeps its value).
type fields struct {
	text, number, flag []string
}

func (f fields) read(r *http.Request) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, k := range f.text {
		if s := strings.TrimSpace(r.PostForm.Get(k)); s != "" {
			out[k], _ = json.Marshal(s)
		}
	}
	for _, k := range f.number {
		s := strings.TrimSpace(r.PostForm.Get(k))
		if s == "" {
			continue
		}
		out[k], _ = json.Marshal(s)
		if n, err := strconv.Atoi(s); err == nil {
			out[k], _ = json.Marshal(n)
		}
	}
	for _, k := range f.flag {
		if r.PostForm.Get(k+"_shown") == "1" {
			out[k], _ = json.Marshal(r.PostForm.Get(k) == "1")
		}
	}
	return out
}

// writeFile sends a built download through web.WriteDownload.
func writeFile(w http.ResponseWriter, f audit.File) error {
	return web.WriteDownload(w, f.ContentType, f.Name, f.Fingerprint, f.Body)
}

// shownOnce is a secret created by a form, shown on the answer page only.
type shownOnce struct {
	Label, ID, Secret string
}
