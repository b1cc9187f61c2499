package store

import (
	"database/sql"
	"errors"
	"strings"
)

// ErrNotFound is returned when a looked-up row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write breaks a uniqueness rule.
var ErrConflict = errors.New("store: conflict")

// translate maps driver errors to the store's sentinels, once, here.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	msg := err.Error()
	if strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "PRIMARY KEY constraint failed") {
		return errors.Join(ErrConflict, err)
	}
	return err
}
