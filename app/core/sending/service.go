// Package sending owns what reviewd sends and what comes back: invitations and
// reminders, notices to store servers, opt-outs, mail events and the send log.
package sending

import (
	"log/slog"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/mail"
	"reviewd/app/outbound"
	"reviewd/app/whatsapp"
	"reviewd/store"
)

// Service is the sending domain service.
type Service struct {
	DB *store.DB
	// Keys seals and opens addresses, unsubscribe links and the notification password.
	Keys *core.Keyring
	// Recorder writes the activity history and the personal-data access log.
	*core.Recorder
	core.Clock
	Log *slog.Logger
	// PublicURL is reviewd's public address (links in e-mails).
	PublicURL string
	// Mailer sends e-mails over the configured SMTP server (sending is off when it
	// has no host; e-mails then wait).
	Mailer *mail.Mailer
	// WhatsApp sends template messages (nil: the route is not configured).
	WhatsApp *whatsapp.Client
	// Outbound is the SSRF-safe client of notices to store servers.
	Outbound *outbound.Client
	// Buyer issues the tokens of the links and tells which lines can be reviewed.
	Buyer *buyer.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}
