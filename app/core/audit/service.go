// Package audit owns the records reviewd keeps of itself: the personal-data access
// log, the activity history read as the audit log (with its file export), and the
// audit file, the record of how every review of a period was collected, checked,
// moderated and shown.
package audit

import (
	"context"
	"time"

	"reviewd/app/core"
	"reviewd/store"
)

// Service is the audit domain service.
type Service struct {
	DB   *store.DB
	Keys *core.Keyring
	// PublicURL is the base address of the installation (the audit file names it).
	PublicURL string
}

// New builds the audit service.
func New(db *store.DB, keys *core.Keyring, publicURL string) *Service {
	return &Service{DB: db, Keys: keys, PublicURL: publicURL}
}

func (s *Service) now() time.Time { return s.DB.Now() }

// record writes an activity-history entry in its own transaction.
func (s *Service) record(ctx context.Context, a *core.Actor, action, targetType, targetID string, detail any) error {
	return s.DB.WithTx(ctx, func(tx *store.Tx) error {
		return core.WriteActivity(ctx, tx, s.Keys, a, action, targetType, targetID, detail)
	})
}

// utc formats a time as RFC 3339 in UTC with a Z ("" for the zero time).
func utc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}
