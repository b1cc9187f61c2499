// Package qa owns product questions and answers: the public list, asking, buyer
// answers with their e-mail, brand answers and moderation.
package qa

import "reviewd/app/core"

// Service is the questions-and-answers domain service.
type Service struct {
	*core.Core
}

// New builds the questions-and-answers service.
func New(c *core.Core) *Service { return &Service{Core: c} }
