package mailhook

import (
	"net/http"

	"reviewd/app/core"
	"reviewd/app/web"
	"reviewd/app/whatsapp"
)

// WhatsAppHook is what the WhatsApp webhook checks: the app secret of the
// X-Hub-Signature-256 and the verify token of the subscription handshake. Without
// an app secret the routes answer 404, as in an installation without WhatsApp.
type WhatsAppHook struct {
	AppSecret   string
	VerifyToken string
}

// errVerifyToken refuses a subscription handshake with the wrong verify token.
var errVerifyToken = core.E(http.StatusForbidden, "forbidden", "verify_token_invalid").AsRefusal()

// handleWhatsAppHandshake serves GET /v1/messaging/whatsapp: Meta's subscription
// check. hub.mode subscribe with the configured hub.verify_token is answered with
// hub.challenge as plain text.
func (h *Handler) handleWhatsAppHandshake(w http.ResponseWriter, r *http.Request) error {
	if h.WhatsApp.AppSecret == "" || h.WhatsApp.VerifyToken == "" {
		return core.ErrNotFound
	}
	q := r.URL.Query()
	if q.Get("hub.mode") != "subscribe" || !core.Equal(q.Get("hub.verify_token"), h.WhatsApp.VerifyToken) {
		return errVerifyToken
	}
	challenge := q.Get("hub.challenge")
	if challenge == "" || len(challenge) > 256 {
		return core.Invalid("hub.challenge")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write([]byte(challenge))
	return err
}

// handleWhatsAppEvents serves POST /v1/messaging/whatsapp: status events and
// incoming messages, signed by Meta with the app secret (X-Hub-Signature-256). The
// body is bounded before it is read; an unsigned or wrongly signed body is
// 401 signature_refused / signature_invalid.
func (h *Handler) handleWhatsAppEvents(w http.ResponseWriter, r *http.Request) error {
	if h.WhatsApp.AppSecret == "" {
		return core.ErrNotFound
	}
	if r.Header.Get("X-Hub-Signature-256") == "" {
		return core.SignatureError("signature_invalid") // unsigned: refused before the body is read
	}
	raw, err := web.ReadBody(r, whatsapp.MaxEventBytes)
	if err != nil {
		return err
	}
	if !whatsapp.SignatureValid(h.WhatsApp.AppSecret, raw, r.Header.Get("X-Hub-Signature-256")) {
		return core.SignatureError("signature_invalid")
	}
	ev, ok := whatsapp.ParseEvents(raw)
	if !ok {
		return core.ErrInvalidJSON
	}
	res, err := h.Sending.RecordWhatsAppEvents(r.Context(), ev)
	if err != nil {
		return err
	}
	return web.JSON(w, http.StatusOK, res)
}
