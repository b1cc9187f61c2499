package core

import (
	"context"
	"encoding/json"
	"time"

	"reviewd/store"
)

// Clock is the service clock: the database's, read at every call so a test that
// replaces store.DB.Now moves every service at once.
type Clock struct{ db *store.DB }

// NewClock is the clock of db.
func NewClock(db *store.DB) Clock { return Clock{db: db} }

// Now is the current time of the service clock.
func (c Clock) Now() time.Time { return c.db.Now() }

// Recorder writes the activity history and the personal-data access log; it holds
// the keyring to hash the actor's address.
type Recorder struct{ keys *Keyring }

// NewRecorder builds a recorder hashing addresses with keys.
func NewRecorder(keys *Keyring) *Recorder { return &Recorder{keys: keys} }

// Record writes one activity-history entry in tx for actor.
func (r *Recorder) Record(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, detail any) error {
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
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, r.keys.HashIP(a.IP), a.UserAgent
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
func (r *Recorder) LogAccess(ctx context.Context, tx *store.Tx, a *Actor, action, targetType, targetID string, count int) error {
	e := store.Access{Action: action, TargetType: targetType, TargetID: targetID, Count: count, Via: "console"}
	if a != nil {
		e.ActorID, e.ActorRole, e.Via = a.ID, a.Role, accessVia(a)
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, r.keys.HashIP(a.IP), a.UserAgent
	}
	return tx.AddAccess(ctx, e)
}
