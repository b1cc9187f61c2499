package core

import (
	"context"

	"reviewd/store"
)

// WriteActivity is Recorder.Record for a caller holding only the keyring.
func WriteActivity(ctx context.Context, tx *store.Tx, keys *Keyring, a *Actor, action, targetType, targetID string, detail any) error {
	return NewRecorder(keys).Record(ctx, tx, a, action, targetType, targetID, detail)
}

// WriteAccess is Recorder.LogAccess for a caller holding only the keyring.
func WriteAccess(ctx context.Context, tx *store.Tx, keys *Keyring, a *Actor, action, targetType, targetID string, count int) error {
	return NewRecorder(keys).LogAccess(ctx, tx, a, action, targetType, targetID, count)
}
