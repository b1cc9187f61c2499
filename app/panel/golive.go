package panel

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"reviewd/app/core"
	"reviewd/app/core/golive"
	"reviewd/app/core/sending"
)

// ---- go-live checklist ----

// goLiveEmbed is a channel's two copyable snippets: the product page's component
// and the listing page's star badges.
type goLiveEmbed struct {
	Channel, Product, Listing string
}

type goLiveData struct {
	golive.Checklist
	Embeds []goLiveEmbed
	// Left is the number of steps not done.
	Left int
	// OrderExample is a test order the store's server can send (to the signed-in
	// user's address).
	OrderExample string
}

// handleGoLive serves GET /panel/go-live: the go-live checklist, each step's
// state read from the server (golive.Checklist), the proofs of domains waiting
// for one and the snippets of the channels with a site key.
func (h *Handler) handleGoLive(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	c, err := h.GoLive.Checklist(r.Context())
	if err != nil {
		return err
	}
	d := goLiveData{Checklist: c}
	for _, st := range c.Steps {
		if !st.Done {
			d.Left++
		}
	}
	if a.Can(core.PermWrite) {
		keys, err := h.keys(r)
		if err != nil {
			return err
		}
		for _, ch := range keys.Channels {
			if key := siteKeyOf(keys.Items, ch.Code); key != "" {
				d.Embeds = append(d.Embeds, goLiveEmbed{Channel: ch.Code, Product: embedSnippet(h.PublicURL, key, "", "", ""),
					Listing: badgeSnippet(h.PublicURL, key, "")})
			}
		}
		channel := "YOUR-CHANNEL"
		if len(keys.Channels) > 0 {
			channel = keys.Channels[0].Code
		}
		now, email := h.GoLive.Now().UTC(), "you@example.com"
		if u, err := h.Sessions.SessionUser(r.Context(), a); err == nil && u.Email != "" {
			email = u.Email // the invitation of the test order comes to the owner, who can write the first review
		}
		d.OrderExample = "curl -sS -X POST " + strings.TrimRight(h.PublicURL, "/") + "/v1/ingest/orders \\\n" +
			"  -H 'Authorization: Bearer YOUR-SERVER-KEY' -H 'Content-Type: application/json' \\\n" +
			"  -d '{\"channel\": \"" + channel + "\", \"external_id\": \"TEST-1\", \"payment_state\": \"paid\", " +
			"\"placed_at\": \"" + now.Add(-48*time.Hour).Format(time.RFC3339) + "\", " +
			"\"customer_email\": \"" + email + "\", \"language\": \"en\", \"items\": [{\"line_reference\": \"1\", " +
			"\"variant_key\": \"" + embedPlaceholder + "\", \"title\": \"Test product\", \"fulfilment_state\": \"delivered\", " +
			"\"delivered_at\": \"" + now.Add(-24*time.Hour).Format(time.RFC3339) + "\"}]}'"
	}
	return h.show(w, r, a, "go-live", d)
}

// landing is the first page after sign-in: the go-live checklist while a step
// is not done and the user asked for no other page, else next.
func (h *Handler) landing(ctx context.Context, next string) string {
	if next != "/panel/" || h.GoLive == nil {
		return next
	}
	c, err := h.GoLive.Checklist(ctx)
	if err != nil || c.Done {
		return next
	}
	return "/panel/go-live"
}

// alertView is an owner alert as the overview shows it.
type alertView struct {
	golive.Alert
	Title, Todo string
}

// alerts are the owner alerts in the page's language (nil for who may not
// change settings: they cannot act on them).
func (h *Handler) alerts(ctx context.Context, a *core.Actor, lang string) ([]alertView, error) {
	if h.GoLive == nil || !a.Can(core.PermWrite) {
		return nil, nil
	}
	als, err := h.GoLive.Alerts(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]alertView, 0, len(als))
	for _, al := range als {
		if al.Kind == golive.AlertConnectionFailed {
			al.Detail = codeText("read_failure", al.Detail, lang) // the code in plain words
		}
		t, todo := golive.Text(lang, al)
		out = append(out, alertView{Alert: al, Title: t, Todo: todo})
	}
	return out, nil
}

// ---- mail server ----

type mailData struct {
	sending.MailServerView
	Port string
	// Test is the outcome of the test message just sent (nil: none sent now).
	Test *sending.MailTestResult
	// To is the address the test message goes to (the owner's own).
	To string
	// Form is the form just refused, shown again (password left out).
	Form *sending.MailServer
}

func (h *Handler) mailData(r *http.Request, a *core.Actor, d mailData) (mailData, error) {
	v, err := h.Sending.MailServerOf(r.Context())
	if err != nil {
		return d, err
	}
	d.MailServerView = v
	if d.Form != nil {
		d.MailServer, d.Form.Password = *d.Form, ""
	}
	d.Port = ""
	if d.MailServer.Port > 0 {
		d.Port = strconv.Itoa(d.MailServer.Port)
	}
	if u, err := h.Sessions.SessionUser(r.Context(), a); err == nil {
		d.To = u.Email
	}
	return d, nil
}

// handleMail serves GET /panel/mail: the outgoing mail server set in the panel
// (the password never shown), whose settings are in use, and the test message.
func (h *Handler) handleMail(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	d, err := h.mailData(r, a, mailData{})
	if err != nil {
		return err
	}
	return h.show(w, r, a, "mail", d)
}

// handleMailSave serves POST /panel/mail: host, port, security, username,
// password (empty keeps the stored one), from (sending.SaveMailServer).
func (h *Handler) handleMailSave(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	f := r.PostForm
	in := sending.MailServer{Host: f.Get("host"), Security: f.Get("security"), Username: f.Get("username"),
		Password: f.Get("password"), From: f.Get("from")}
	if p := strings.TrimSpace(f.Get("port")); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			n = -1
		}
		in.Port = n
	}
	if err := h.Sending.SaveMailServer(r.Context(), a, in); err != nil {
		d, derr := h.mailData(r, a, mailData{Form: &in})
		if derr != nil {
			return derr
		}
		return h.refused(w, r, a, "mail", d, err)
	}
	return back(w, r, "/panel/mail", "mail_saved")
}

// handleMailClear serves POST /panel/mail/clear: the configuration's smtp.*
// applies again (sending.ClearMailServer).
func (h *Handler) handleMailClear(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	if err := h.Sending.ClearMailServer(r.Context(), a); err != nil {
		return err
	}
	return back(w, r, "/panel/mail", "mail_cleared")
}

// handleMailTest serves POST /panel/mail/test: a test message to the owner's own
// address; the page says whether it went and, if not, the server's words.
func (h *Handler) handleMailTest(w http.ResponseWriter, r *http.Request, a *core.Actor) error {
	u, err := h.Sessions.SessionUser(r.Context(), a)
	if err != nil {
		return err
	}
	res, err := h.Sending.SendTestMail(r.Context(), a, u.Email)
	if err != nil {
		return err
	}
	d, err := h.mailData(r, a, mailData{Test: &res})
	if err != nil {
		return err
	}
	return h.show(w, r, a, "mail", d)
}
