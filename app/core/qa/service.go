// Package qa owns product questions and answers: the public list, asking, buyer
// answers with their e-mail, brand answers and moderation.
package qa

import (
	"log/slog"

	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/sending"
	"reviewd/app/mail"
	"reviewd/store"
)

// Service is the questions-and-answers domain service.
type Service struct {
	DB *store.DB
	// Keys pseudonymises askers and answerers.
	Keys *core.Keyring
	// Recorder writes the activity history and the personal-data access log.
	*core.Recorder
	core.Clock
	Log *slog.Logger
	// PublicURL is reviewd's public address (links in answer e-mails).
	PublicURL string
	// Mailer sends the answer e-mails.
	Mailer *mail.Mailer
	// Sending sends the answer e-mails.
	Sending *sending.Service
	// Buyer reads and verifies the customer tokens.
	Buyer *buyer.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}
