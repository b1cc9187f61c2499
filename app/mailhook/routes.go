package mailhook

import "reviewd/app/web"

// route is one line of the route table: method, path, callers, handler.
type route struct {
	method, path string
	access       access
	h            web.H
}

// access says which callers a route takes. Each handler checks its credential
// itself (a signature covers the body); the column records the rule it applies.
type access int

const (
	// signature routes take a signature with the mail-events password.
	signature access = iota + 1
	// accessCode routes carry the mail-events access code in their address.
	accessCode
	// stopToken routes carry the sealed token of one message's stop link.
	stopToken
	// hubSignature routes take Meta's X-Hub-Signature-256 under the app secret
	// (the handshake: the verify token).
	hubSignature
)

// routes is the audit table of the mail surface: method, path, callers (see
// access), handler.
func (h *Handler) routes() []route {
	return []route{
		{"POST", "/v1/mail-events/generic", signature, h.handleGenericEvents},
		{"POST", "/v1/mail-events/{provider}/{code}", accessCode, h.handleProviderEvents},
		{"GET", "/v1/unsubscribe", stopToken, h.handleUnsubscribePage},
		{"POST", "/v1/unsubscribe", stopToken, h.handleUnsubscribe},
		{"GET", "/v1/messaging/whatsapp", hubSignature, h.handleWhatsAppHandshake},
		{"POST", "/v1/messaging/whatsapp", hubSignature, h.handleWhatsAppEvents},
	}
}
