package core

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"reviewd/app/mail"
	"reviewd/app/media"
	"reviewd/app/outbound"
	"reviewd/store"
)

// Core is the domain service every surface and job calls.
type Core struct {
	DB        *store.DB
	Keys      *Keyring
	PublicURL string
	Log       *slog.Logger
	// MediaDir is the folder of uploaded and processed media files.
	MediaDir string
	// Outbound is the SSRF-safe client for notices, platform reads and feeds.
	Outbound *outbound.Client
	// Mailer sends e-mails over the configured SMTP server (sending is off when it
	// has no host; e-mails then wait).
	Mailer *mail.Mailer
	// Scanner scans uploads with clamd (scanning is off without an address).
	Scanner *media.Scanner
	// Probe runs ffprobe and ffmpeg for videos.
	Probe media.Probe
}

// New builds the domain service.
func New(db *store.DB, keys *Keyring, publicURL string, log *slog.Logger) *Core {
	if log == nil {
		log = slog.Default()
	}
	return &Core{DB: db, Keys: keys, PublicURL: publicURL, Log: log}
}

// Now is the current time of the service clock.
func (c *Core) Now() time.Time { return c.DB.Now() }

// Record writes one activity-history entry in tx for actor.
func (c *Core) Record(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, detail any) error {
	return Recorder{Keys: c.Keys}.Record(ctx, tx, a, action, targetType, targetID, detail)
}

// LogAccess writes one personal-data access-log entry: actor read count records of
// personal data through action.
func (c *Core) LogAccess(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, count int) error {
	return Recorder{Keys: c.Keys}.LogAccess(ctx, tx, a, action, targetType, targetID, count)
}

// Recorder writes the activity history and the personal-data access log; domain
// services hold one instead of the whole kernel.
type Recorder struct {
	Keys *Keyring
}

// Record writes one activity-history entry in tx for actor.
func (r Recorder) Record(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, detail any) error {
	d := "{}"
	if detail != nil {
		b, err := json.Marshal(detail)
		if err != nil {
			return err
		}
		d = string(b)
	}
	e := store.Activity{Action: action, TargetType: targetType, TargetID: targetID, Detail: d}
	if a != nil {
		e.ActorType, e.ActorID, e.ActorName = a.Via, a.ID, a.Name
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, r.Keys.HashIP(a.IP), a.UserAgent
	}
	return tx.AddActivity(ctx, e)
}

// accessVia maps an actor to the access log's via value.
func accessVia(a *Actor) string {
	switch a.Via {
	case ViaSession:
		return "session"
	case ViaConsole, ViaSystem:
		return "console"
	default:
		return "api_key"
	}
}

// LogAccess writes one personal-data access-log entry: actor read count records of
// personal data through action.
func (r Recorder) LogAccess(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, count int) error {
	e := store.Access{Action: action, TargetType: targetType, TargetID: targetID, Count: count, Via: "console"}
	if a != nil {
		e.ActorID, e.ActorRole, e.Via = a.ID, a.Role, accessVia(a)
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, r.Keys.HashIP(a.IP), a.UserAgent
	}
	return tx.AddAccess(ctx, e)
}
