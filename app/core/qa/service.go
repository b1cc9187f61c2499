// Package qa owns product questions and answers: the public list, asking, buyer
// answers with their e-mail, brand answers and moderation.
package qa

import (
	"reviewd/app/core"
	"reviewd/app/core/brand"
	"reviewd/app/core/buyer"
	"reviewd/app/core/sending"
)

// Service is the questions-and-answers domain service.
type Service struct {
	*core.Core
	// Sending sends the answer e-mails.
	Sending *sending.Service
	// Buyer reads and verifies the customer tokens.
	Buyer *buyer.Service
	// Brand reads the settings, market rules and rating-topic templates.
	Brand *brand.Service
}

// New builds the questions-and-answers service.
func New(c *core.Core, snd *sending.Service, b *buyer.Service, br *brand.Service) *Service {
	return &Service{Core: c, Sending: snd, Buyer: b, Brand: br}
}
