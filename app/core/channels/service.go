// Package channels holds a brand's sales channels (store fronts in one market), the
// channel allowance and requests for more, the domains a channel proves it owns
// (a file at the domain or a TXT record) and the server and API keys created from a
// channel's page (spec 3, Authentication rule 1).
package channels

import (
	"context"

	"reviewd/app/core"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Recorder writes one activity-history entry in a transaction (the kernel's
// *core.Recorder is one).
type Recorder interface {
	Record(ctx context.Context, tx *store.Tx, a *core.Actor, action, targetType, targetID string, detail any) error
}

// Service manages channels, their domains and keys.
type Service struct {
	DB       *store.DB
	Recorder Recorder
	// Outbound fetches verification files (SSRF-safe, https to port 443 only).
	Outbound *outbound.Client
	// DNS answers TXT and MX questions (the dns.server setting).
	DNS *Resolver
}

// New builds the channels service.
func New(db *store.DB, rec Recorder, out *outbound.Client, dns *Resolver) *Service {
	if dns == nil {
		dns = NewResolver("")
	}
	return &Service{DB: db, Recorder: rec, Outbound: out, DNS: dns}
}
