package store

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// SnapshotTo writes a consistent copy of the whole database to path with VACUUM INTO.
// It reads one snapshot of the database (WAL included), so writers in this or another
// process keep going while it runs. path must not exist yet.
func (db *DB) SnapshotTo(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("store: snapshot: %s exists", path)
	}
	if _, err := db.write.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("store: snapshot: %w", translate(err))
	}
	return nil
}

// IntegrityCheck runs PRAGMA integrity_check and returns its findings as an error
// when the database is damaged.
func (db *DB) IntegrityCheck(ctx context.Context) error {
	rows, err := db.read.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("store: integrity check: %w", translate(err))
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return fmt.Errorf("store: integrity check: %w", err)
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("store: integrity check: %s", strings.Join(problems, "; "))
	}
	return nil
}
