package store

import (
	"context"
	"fmt"
)

// SchemaVersion is the version a fresh database gets from schema.sql.
const SchemaVersion = 1

// steps upgrade a database from version i+1 to i+2: steps[0] takes version 1 to 2.
// Every change to schema.sql adds one step here with the same effect, and a test
// compares a fresh database with one upgraded from version 1.
var steps = []string{}

func init() {
	if len(steps)+1 != SchemaVersion {
		panic("store: SchemaVersion does not match the migration steps")
	}
}

// Version reports the schema version of the open database.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.write.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func (db *DB) migrate(ctx context.Context, schemaSQL string) error {
	v, err := db.Version(ctx)
	if err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	switch {
	case v == 0:
		// A fresh file (or one with no tables): build the whole schema at once.
		var n int
		if err := db.write.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return fmt.Errorf("store: inspect schema: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("store: database has tables but no schema version; not a reviewd database")
		}
		return db.apply(ctx, schemaSQL, SchemaVersion)
	case v > SchemaVersion:
		return fmt.Errorf("store: database schema version %d is newer than this binary (%d)", v, SchemaVersion)
	}
	for ; v < SchemaVersion; v++ {
		if err := db.apply(ctx, steps[v-1], v+1); err != nil {
			return fmt.Errorf("store: upgrade to version %d: %w", v+1, err)
		}
	}
	return nil
}

// apply runs ddl and sets the version in one transaction.
func (db *DB) apply(ctx context.Context, ddl string, version int) error {
	tx, err := db.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, ddl); err != nil {
		return fmt.Errorf("store: apply schema: %w", err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version)); err != nil {
		return err
	}
	return tx.Commit()
}

// PendingSteps reports how many upgrade steps a database at version v needs.
func PendingSteps(v int) int {
	if v == 0 {
		return 1
	}
	return SchemaVersion - v
}
