// Package access is who may do what: panel users and their passwords, sessions and
// two-step sign-in, the sign-in backoff, keys, and the authentication of keys, site
// keys, signed requests and sessions. Tables: users, sessions, password_links,
// api_keys, brand_state (reads passwords, channels and channel_domains).
package access

import (
	"log/slog"

	"reviewd/app/core"
	"reviewd/app/mail"
	"reviewd/store"
)

// Service holds what the access subject needs: the database, the master keyring,
// the mailer for set-password links and the public address the links point at.
type Service struct {
	DB        *store.DB
	Keys      *core.Keyring
	Mailer    *mail.Mailer
	PublicURL string
	Log       *slog.Logger
	rec       *core.Recorder
	uses      keyUses       // when each key's last use was written (keys.go)
	refusals  refusalCounts // component refusals not written yet (refusals.go)
	signIns   accountLocks  // one password step per username at a time (signin_backoff.go)
	resets    resetWorker   // reset links written and mailed after the answer (members.go)
}

// New builds the access service.
func New(db *store.DB, keys *core.Keyring, mailer *mail.Mailer, publicURL string, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	return &Service{DB: db, Keys: keys, Mailer: mailer, PublicURL: publicURL, Log: log, rec: core.NewRecorder(keys)}
}
