package core

import (
	"context"
	"encoding/json"

	"reviewd/store"
)

// WriteActivity writes one activity-history entry in tx for actor, with the
// actor's request ID, keyed IP hash and browser: Core.Record for services that
// hold the keyring themselves instead of a Core.
func WriteActivity(ctx context.Context, tx *store.Tx, keys *Keyring, a *Actor, action, targetType, targetID string, detail any) error {
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
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, keys.HashIP(a.IP), a.UserAgent
	}
	return tx.AddActivity(ctx, e)
}

// WriteAccess writes one personal-data access-log entry: actor read count records
// of personal data through action (Core.LogAccess for services without a Core).
func WriteAccess(ctx context.Context, tx *store.Tx, keys *Keyring, a *Actor, action, targetType, targetID string, count int) error {
	e := store.Access{Action: action, TargetType: targetType, TargetID: targetID, Count: count, Via: "console"}
	if a != nil {
		e.ActorID, e.ActorRole, e.Via = a.ID, a.Role, accessVia(a)
		e.RequestID, e.IPHash, e.UserAgent = a.RequestID, keys.HashIP(a.IP), a.UserAgent
	}
	return tx.AddAccess(ctx, e)
}
