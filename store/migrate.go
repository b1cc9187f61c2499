package store

import (
	"context"
	"fmt"
)

// SchemaVersion is the version a fresh database gets from schema.sql.
const SchemaVersion = 7

// steps upgrade a database from version i+1 to i+2: steps[0] takes version 1 to 2.
// Every change to schema.sql adds one step here with the same effect, and a test
// compares a fresh database with one upgraded from version 1.
var steps = []string{
	// 1 -> 2: orders, order lines, deliveries and transfer figures.
	stepOrders,
	// 2 -> 3: tokens, invitations, message log, opt-outs and mail events.
	stepInvitations,
	// 3 -> 4: reviews, review history, checks and media, check terms, rating-topic lists.
	stepReviews,
	// 4 -> 5: platform order connections and their connection log.
	stepSources,
	// 5 -> 6: questions and answers, answer e-mails, method statements.
	stepQA,
	// 6 -> 7: storefront read side: review listing, product figures, search, votes, reports, views.
	stepStorefront,
}

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
	if v < SchemaVersion {
		db.UpgradedFrom = v
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

// ReadModelVersion is the schema version that introduced the storefront read model
// (product figures, listing, search); a database upgraded from an older version
// builds it once from its reviews.
const ReadModelVersion = 7

// PendingSteps reports how many upgrade steps a database at version v needs.
func PendingSteps(v int) int {
	if v == 0 {
		return 1
	}
	return SchemaVersion - v
}

// stepOrders is the DDL added to schema.sql for orders and deliveries (version 2).
const stepOrders = `
-- Orders, from the ingest endpoints and platform connections alike. external_id (the
-- order number, case-sensitive) is unique brand-wide: a re-send without a channel
-- finds the order by its number alone. After pseudonymisation (erased_at set) the
-- customer fields hold pseudonyms and a re-send never writes them back.
CREATE TABLE orders (
	id                 INTEGER PRIMARY KEY,
	channel_id         INTEGER NOT NULL REFERENCES channels(id),
	external_id        TEXT NOT NULL UNIQUE,
	market             TEXT NOT NULL,
	language           TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	payment_state      TEXT NOT NULL CHECK (payment_state IN ('pending', 'paid', 'partially_refunded', 'refunded', 'voided')),
	placed_at          INTEGER NOT NULL,
	customer_email     TEXT NOT NULL DEFAULT '',
	customer_key       TEXT NOT NULL DEFAULT '',
	erased_at          INTEGER,
	payment_changed_at INTEGER NOT NULL,
	created_at         INTEGER NOT NULL,
	updated_at         INTEGER NOT NULL
);
CREATE INDEX orders_channel ON orders(channel_id);
CREATE INDEX orders_customer_email ON orders(customer_email COLLATE NOCASE);

-- Order lines. Lines missing from a later send are kept. state_changed_at is when
-- the current fulfilment_state took effect (the report's observed_at, the line's
-- delivered_at, else the time of the transfer); delivered_at is the time of the
-- verified delivery that review timing starts from. Lines are reached through their
-- order (by number or customer address), so variant_key and group_key carry no index:
-- each random-key index costs ingest throughput (docs/decisions.md).
CREATE TABLE order_lines (
	id               INTEGER PRIMARY KEY,
	order_id         INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
	line_reference   TEXT NOT NULL,
	variant_key      TEXT NOT NULL,
	group_key        TEXT NOT NULL DEFAULT '',
	catalog_id       TEXT NOT NULL DEFAULT '',
	title            TEXT NOT NULL DEFAULT '',
	quantity         REAL NOT NULL DEFAULT 1,
	fulfilment_state TEXT NOT NULL CHECK (fulfilment_state IN ('placed', 'preparing', 'shipped', 'in_transit', 'delivered', 'cancelled', 'returned')),
	delivered_at     INTEGER,
	state_changed_at INTEGER NOT NULL,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	UNIQUE (order_id, line_reference)
);

-- Delivery records: reported by the delivery endpoint or made from order data. The
-- same line, state, source and time is stored once. Estimated records are kept
-- without effect on the line.
CREATE TABLE deliveries (
	id          INTEGER PRIMARY KEY,
	line_id     INTEGER NOT NULL REFERENCES order_lines(id) ON DELETE CASCADE,
	state       TEXT NOT NULL CHECK (state IN ('placed', 'preparing', 'shipped', 'in_transit', 'delivered', 'cancelled', 'returned')),
	observed_at INTEGER NOT NULL,
	source      TEXT NOT NULL CHECK (source IN ('platform', 'carrier', 'manual', 'estimated')),
	confidence  TEXT NOT NULL CHECK (confidence IN ('verified', 'estimated')),
	created_at  INTEGER NOT NULL,
	UNIQUE (line_id, state, source, observed_at)
);

-- Order and delivery transfer requests, accepted and refused, for the panel's
-- transfer figures. channel is the code as sent (empty when unknown, for example
-- when the credentials were refused). Rows older than 30 days are pruned.
CREATE TABLE ingest_requests (
	id       INTEGER PRIMARY KEY,
	at       INTEGER NOT NULL,
	channel  TEXT NOT NULL DEFAULT '',
	kind     TEXT NOT NULL CHECK (kind IN ('order', 'delivery')),
	status   INTEGER NOT NULL,
	error    TEXT NOT NULL DEFAULT '',
	records  INTEGER NOT NULL DEFAULT 0,
	actor_id TEXT NOT NULL DEFAULT ''
);
CREATE INDEX ingest_requests_at ON ingest_requests(at);
`
