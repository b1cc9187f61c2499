// Package mailhook is the public mail surface: delivery events posted by mail
// providers and by the brand's own mail system (spec 1, "Inbound email delivery
// events"), and the stop link of every message (a confirmation page and the RFC
// 8058 one-click POST), and the WhatsApp webhook (status events and stop words).
// Handlers authenticate, parse with app/mailevents and call
// one core method; rules live in app/core. It imports app/web, app/core,
// app/mailevents and app/whatsapp only.
package mailhook

import (
	"errors"
	"net/http"

	"github.com/gorilla/mux"

	"reviewd/app/core"
	"reviewd/app/core/sending"
	"reviewd/app/mailevents"
	"reviewd/app/web"
)

// Body limits: the generic endpoint takes up to 500 events of at most about 2 KB;
// provider batches (SendGrid) can be larger.
const (
	maxGenericBody  = 2 << 20
	maxProviderBody = 8 << 20
)

// Handler holds what the mail surface uses.
type Handler struct {
	Sending *sending.Service
	Auth    *web.Auth
	Limits  *web.Limits
	// WhatsApp checks the WhatsApp webhook (empty: its routes answer 404).
	WhatsApp WhatsAppHook
}

// Mount adds every route of the surface to the router.
func (h *Handler) Mount(r *mux.Router) {
	for _, rt := range h.routes() {
		r.Handle(rt.path, rt.h).Methods(rt.method)
	}
}

// handleGenericEvents serves POST /v1/mail-events/generic: one event or
// {"events": [...]} (up to 500), signed with the mail-events password.
func (h *Handler) handleGenericEvents(w http.ResponseWriter, r *http.Request) error {
	raw, err := web.ReadBody(r, maxGenericBody)
	if err != nil {
		return err
	}
	a, err := h.Auth.Signature(r, raw, core.PurposeMailEvents)
	if err != nil {
		return err
	}
	var v any
	if err := web.ParseJSON(raw, web.ModeIngest, &v); err != nil {
		return err
	}
	events, err := mailevents.ParseGeneric(raw)
	if err != nil {
		return parseError(err)
	}
	res, err := h.Sending.ProcessMailEvents(r.Context(), a, sending.SourceGeneric, events)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}

// handleProviderEvents serves POST /v1/mail-events/{provider}/{code}: a provider's
// own event format (sendgrid, mailgun, postmark, ses), authenticated by the access
// code in the address. An unknown provider or a wrong code answers 404 not_found
// and counts as a refusal (unknown email service) for the per-IP limit.
func (h *Handler) handleProviderEvents(w http.ResponseWriter, r *http.Request) error {
	vars := mux.Vars(r)
	provider, code := vars["provider"], vars["code"]
	if !knownProvider(provider) || !h.Sending.CheckMailAccessCode(r.Context(), code) {
		return core.ErrNotFound.AsRefusal()
	}
	a := &core.Actor{Via: core.ViaMailCode, ID: provider, Name: provider, Role: "mail_provider",
		RequestID: web.RequestID(r.Context()), IP: web.ClientIP(r.Context()), UserAgent: r.UserAgent()}
	web.SetActor(r.Context(), a)
	raw, err := web.ReadBody(r, maxProviderBody)
	if err != nil {
		return err
	}
	var v any
	if err := web.ParseJSON(raw, web.ModeIngest, &v); err != nil {
		return err
	}
	events, err := mailevents.Parse(provider, raw)
	var sub *mailevents.SubscriptionConfirmation
	if errors.As(err, &sub) {
		if err := h.Sending.NoteSNSSubscription(r.Context(), a, sub.TopicArn, sub.SubscribeURL); err != nil {
			return err
		}
		return web.JSON(w, http.StatusOK, sending.MailEventCounts{})
	}
	if err != nil {
		return parseError(err)
	}
	res, err := h.Sending.ProcessMailEvents(r.Context(), a, provider, events)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}

func knownProvider(p string) bool {
	for _, k := range sending.MailProviders {
		if p == k {
			return true
		}
	}
	return false
}

// parseError turns a refusal of app/mailevents into 400 invalid / <detail>.
func parseError(err error) error {
	var me *mailevents.Error
	if errors.As(err, &me) {
		return core.Invalid(me.Detail)
	}
	return err
}
