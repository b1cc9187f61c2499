package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// SchemaVersion is the version of this binary's schema: the number of version
// sections in schema.sql (Open refuses a schema text with another count).
const SchemaVersion = 19

// versionMarker starts a version section in schema.sql: "-- @version N: summary".
var versionMarker = regexp.MustCompile(`(?m)^-- @version (\d+):.*$`)

// Sections splits schema.sql into its versions: sections[0] is version 1, sections[i]
// what version i+1 adds. The markers must count up from 2 without gaps.
func Sections(schemaSQL string) ([]string, error) {
	locs := versionMarker.FindAllStringSubmatchIndex(schemaSQL, -1)
	out := make([]string, 0, len(locs)+1)
	prev := 0
	for i, loc := range locs {
		n, _ := strconv.Atoi(schemaSQL[loc[2]:loc[3]])
		if n != i+2 {
			return nil, fmt.Errorf("store: schema.sql: section %q where version %d was expected", schemaSQL[loc[0]:loc[1]], i+2)
		}
		out = append(out, schemaSQL[prev:loc[0]])
		prev = loc[1]
	}
	return append(out, schemaSQL[prev:]), nil
}

// Version reports the schema version of the open database.
func (db *DB) Version(ctx context.Context) (int, error) {
	var v int
	err := db.write.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func (db *DB) migrate(ctx context.Context, schemaSQL string) error {
	sections, err := Sections(schemaSQL)
	if err != nil {
		return err
	}
	if len(sections) != SchemaVersion {
		return fmt.Errorf("store: schema.sql has %d versions, this binary expects %d", len(sections), SchemaVersion)
	}
	v, err := db.Version(ctx)
	if err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	switch {
	case v == 0:
		// A fresh file must hold no tables yet; it then runs every version.
		var n int
		if err := db.write.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
			return fmt.Errorf("store: inspect schema: %w", err)
		}
		if n > 0 {
			return fmt.Errorf("store: database has tables but no schema version; not a reviewd database")
		}
		return db.apply(ctx, strings.Join(sections, "\n"), SchemaVersion)
	case v > SchemaVersion:
		return fmt.Errorf("store: database schema version %d is newer than this binary (%d)", v, SchemaVersion)
	}
	if v < SchemaVersion {
		db.UpgradedFrom = v
	}
	for ; v < SchemaVersion; v++ {
		if err := db.apply(ctx, sections[v], v+1); err != nil {
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

// ReadModelVersion is the schema version that introduced the storefront read model
// (product figures, listing, search); a database upgraded from an older version
// builds it once from its reviews.
const ReadModelVersion = 7
