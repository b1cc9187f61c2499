// Package sending owns what reviewd sends and what comes back: invitations and
// reminders, notices to store servers, opt-outs, mail events and the send log.
package sending

import "reviewd/app/core"

// Service is the sending domain service.
type Service struct {
	*core.Core
}

// New builds the sending service.
func New(c *core.Core) *Service { return &Service{Core: c} }
