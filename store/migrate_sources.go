package store

// stepSources is the DDL added to schema.sql for platform order connections and
// their connection log.
const stepSources = `
-- Platform order connections (spec 1, "Platform order connection"): one per platform
-- and channel. credentials_enc is the JSON object of the platform's credential fields
-- sealed with the master key (AES-GCM); it is never returned. cursor_at is the read
-- position, the change time up to which orders were read (NULL until the first
-- successful read); the next read starts 10 minutes before it. next_run_at is when
-- the order-sources job reads next. last_report is the JSON report of the last read;
-- failures counts failed reads in a row.
CREATE TABLE order_sources (
	id               INTEGER PRIMARY KEY,
	platform         TEXT NOT NULL CHECK (platform IN ('shopify', 'woocommerce', 'magento')),
	channel_id       INTEGER NOT NULL REFERENCES channels(id),
	base_url         TEXT NOT NULL,
	remote_channel   TEXT NOT NULL DEFAULT '',
	credentials_enc  BLOB,
	has_credentials  INTEGER NOT NULL DEFAULT 0,
	backfill_days    INTEGER NOT NULL DEFAULT 30 CHECK (backfill_days BETWEEN 1 AND 365),
	interval_minutes INTEGER NOT NULL DEFAULT 15 CHECK (interval_minutes BETWEEN 5 AND 1440),
	enabled          INTEGER NOT NULL DEFAULT 1,
	cursor_at        INTEGER,
	next_run_at      INTEGER NOT NULL,
	last_run_at      INTEGER,
	last_error       TEXT NOT NULL DEFAULT '',
	last_report      TEXT NOT NULL DEFAULT '',
	failures         INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	UNIQUE (channel_id, platform)
);
CREATE INDEX order_sources_due ON order_sources(next_run_at) WHERE enabled = 1;

-- Connection log: one row per read of an order connection (scheduled or manual),
-- shown by GET /admin/v1/diagnostics. platform and channel are copied so the log
-- outlives a removed connection; rows older than 90 days are pruned.
CREATE TABLE order_source_runs (
	id          INTEGER PRIMARY KEY,
	source_id   INTEGER NOT NULL,
	platform    TEXT NOT NULL,
	channel     TEXT NOT NULL,
	trigger     TEXT NOT NULL CHECK (trigger IN ('schedule', 'manual')),
	started_at  INTEGER NOT NULL,
	finished_at INTEGER NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('ok', 'partial', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	orders      INTEGER NOT NULL DEFAULT 0,
	report      TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX order_source_runs_started ON order_source_runs(started_at);
CREATE INDEX order_source_runs_source ON order_source_runs(source_id, started_at);
`
