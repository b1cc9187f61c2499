package store_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"reviewd/store"
	"reviewd/store/storetest"
)

// schemaOf lists every object of the database as type/name -> normalised SQL.
func schemaOf(t *testing.T, path string) map[string]string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT type, name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var typ, name, ddl string
		if err := rows.Scan(&typ, &name, &ddl); err != nil {
			t.Fatal(err)
		}
		out[typ+"/"+name] = strings.Join(strings.Fields(ddl), " ")
	}
	return out
}

// TestUpgradeFromFirstVersion opens a data folder made by schema version 1 and checks
// that it is upgraded in place to exactly the schema of a fresh database, keeping its
// rows.
func TestUpgradeFromFirstVersion(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "old.db")
	v1, err := os.ReadFile("testdata/schema_v1.sql")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+oldPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(v1)); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`PRAGMA user_version = 1; INSERT INTO channels (code, market, language, label, brand_name, created_at) VALUES ('old', 'TR', 'tr', 'Old', 'Acme', 1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	db, err := store.Open(ctx, oldPath, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	v, _ := db.Version(ctx)
	if v != store.SchemaVersion {
		t.Fatalf("version after upgrade = %d, want %d", v, store.SchemaVersion)
	}
	if ch, err := db.Read().ChannelByCode(ctx, "old"); err != nil || ch.Market != "TR" {
		t.Fatalf("row lost in upgrade: %v %+v", err, ch)
	}
	db.Close()

	freshPath := filepath.Join(dir, "fresh.db")
	fresh, err := store.Open(ctx, freshPath, storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()

	got, want := schemaOf(t, oldPath), schemaOf(t, freshPath)
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s differs after upgrade:\n got: %s\nwant: %s", k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s exists only in the upgraded database", k)
		}
	}
}

// TestNewerDatabaseRefused: a binary never opens a database from a newer version.
func TestNewerDatabaseRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new.db")
	raw, _ := sql.Open("sqlite", "file:"+path)
	if _, err := raw.Exec(`CREATE TABLE x (a); PRAGMA user_version = 999`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if _, err := store.Open(context.Background(), path, storetest.SchemaSQL(t)); err == nil {
		t.Fatal("opened a database of a newer schema version")
	}
}

// TestPragmas: WAL, foreign keys and the busy timeout are on for every connection.
func TestPragmas(t *testing.T) {
	db := storetest.Open(t, nil)
	var mode string
	if err := db.Read().QueryRowForTest(context.Background(), "PRAGMA journal_mode", &mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v)", mode, err)
	}
	var fk int
	if err := db.Read().QueryRowForTest(context.Background(), "PRAGMA foreign_keys", &fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys = %d (%v)", fk, err)
	}
}

// TestSchemaSections: schema.sql holds exactly SchemaVersion versions, and version
// markers must count up without gaps.
func TestSchemaSections(t *testing.T) {
	sections, err := store.Sections(storetest.SchemaSQL(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) != store.SchemaVersion {
		t.Fatalf("schema.sql has %d versions, SchemaVersion is %d", len(sections), store.SchemaVersion)
	}
	if _, err := store.Sections("CREATE TABLE a (x);\n-- @version 3: skipped two\nCREATE TABLE b (x);"); err == nil {
		t.Fatal("a gap in the version markers was accepted")
	}
}
