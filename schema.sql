-- reviewd schema: the full DDL of a fresh database and the only place tables are
-- defined. Its version is PRAGMA user_version, set by store/migrate.go; every change
-- here also adds a numbered step there.
--
-- Times are INTEGER milliseconds since the Unix epoch (UTC), converted in store only.
-- Booleans are INTEGER 0/1.

-- Brand-wide settings: one row per key, value is JSON.
CREATE TABLE settings (
	key        TEXT PRIMARY KEY,
	value      TEXT NOT NULL,
	updated_at INTEGER NOT NULL
);

CREATE TABLE channels (
	id           INTEGER PRIMARY KEY,
	code         TEXT NOT NULL UNIQUE,
	market       TEXT NOT NULL,
	language     TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	label        TEXT NOT NULL,
	brand_name   TEXT NOT NULL,
	landing_url  TEXT NOT NULL DEFAULT '',
	privacy_url  TEXT NOT NULL DEFAULT '',
	support_url  TEXT NOT NULL DEFAULT '',
	sender_address TEXT NOT NULL DEFAULT '',
	style        TEXT NOT NULL DEFAULT 'cards',
	theme        TEXT NOT NULL DEFAULT 'warm',
	active       INTEGER NOT NULL DEFAULT 1,
	created_at   INTEGER NOT NULL
);

CREATE TABLE channel_domains (
	channel_id  INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
	domain      TEXT NOT NULL,
	verified_at INTEGER,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (channel_id, domain)
);
CREATE INDEX channel_domains_domain ON channel_domains(domain);

-- Server, site and admin API keys. Only the SHA-256 of the key is stored.
CREATE TABLE api_keys (
	id           INTEGER PRIMARY KEY,
	public_id    TEXT NOT NULL UNIQUE,
	kind         TEXT NOT NULL CHECK (kind IN ('server', 'site', 'api')),
	channel_id   INTEGER REFERENCES channels(id),
	scopes       TEXT NOT NULL DEFAULT '',
	label        TEXT NOT NULL DEFAULT '',
	key_hash     BLOB NOT NULL UNIQUE,
	hint         TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL,
	revoked_at   INTEGER,
	last_used_at INTEGER
);

-- Signing, mail-event and notification passwords. They are needed in plain text to
-- compute HMACs, so they are encrypted with the master key (AES-GCM).
CREATE TABLE passwords (
	id          TEXT PRIMARY KEY,
	purpose     TEXT NOT NULL CHECK (purpose IN ('signing', 'mail_events', 'notification')),
	channel_id  INTEGER REFERENCES channels(id),
	secret_enc  BLOB NOT NULL,
	label       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	revoked_at  INTEGER
);

CREATE TABLE users (
	id            INTEGER PRIMARY KEY,
	username      TEXT NOT NULL UNIQUE,
	email         TEXT NOT NULL,
	role          TEXT NOT NULL CHECK (role IN ('owner', 'manager', 'moderator', 'viewer')),
	password_hash TEXT NOT NULL,
	totp_enc      BLOB,
	totp_on       INTEGER NOT NULL DEFAULT 0,
	totp_last_step INTEGER NOT NULL DEFAULT 0,
	created_at    INTEGER NOT NULL,
	disabled_at   INTEGER
);

-- Panel sessions. stage 'password' waits for the second step; 'full' is signed in.
CREATE TABLE sessions (
	id          INTEGER PRIMARY KEY,
	token_hash  BLOB NOT NULL UNIQUE,
	user_id     INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	stage       TEXT NOT NULL CHECK (stage IN ('password', 'full')),
	csrf_token  TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions(user_id);

-- Brand versions of market rules. The service's own rules are data in app/core.
CREATE TABLE market_rules (
	id                    INTEGER PRIMARY KEY,
	market                TEXT NOT NULL,
	channel_id            INTEGER REFERENCES channels(id),
	verification_required INTEGER NOT NULL,
	review_window_days    INTEGER NOT NULL,
	allowed_sorts         TEXT NOT NULL,
	default_sort          TEXT NOT NULL,
	valid_from            INTEGER NOT NULL,
	created_by            TEXT NOT NULL DEFAULT '',
	created_at            INTEGER NOT NULL
);
CREATE INDEX market_rules_market ON market_rules(market, valid_from);

-- Activity history: every change, with who, from where and which request.
CREATE TABLE activity_log (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	action      TEXT NOT NULL,
	actor_type  TEXT NOT NULL,
	actor_id    TEXT NOT NULL DEFAULT '',
	actor_name  TEXT NOT NULL DEFAULT '',
	target_type TEXT NOT NULL DEFAULT '',
	target_id   TEXT NOT NULL DEFAULT '',
	detail      TEXT NOT NULL DEFAULT '{}',
	request_id  TEXT NOT NULL DEFAULT '',
	ip_hash     TEXT NOT NULL DEFAULT '',
	user_agent  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX activity_log_at ON activity_log(at);
CREATE INDEX activity_log_target ON activity_log(target_type, target_id);

-- Personal-data access log. Entries cannot be changed; they are deleted only after
-- 365 days (the triggers enforce both).
CREATE TABLE access_log (
	id          INTEGER PRIMARY KEY,
	at          INTEGER NOT NULL,
	action      TEXT NOT NULL,
	actor_id    TEXT NOT NULL DEFAULT '',
	actor_role  TEXT NOT NULL DEFAULT '',
	via         TEXT NOT NULL CHECK (via IN ('session', 'api_key', 'support', 'console')),
	target_type TEXT NOT NULL DEFAULT '',
	target_id   TEXT NOT NULL DEFAULT '',
	count       INTEGER NOT NULL DEFAULT 0,
	request_id  TEXT NOT NULL DEFAULT '',
	ip_hash     TEXT NOT NULL DEFAULT '',
	user_agent  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX access_log_at ON access_log(at);
CREATE TRIGGER access_log_no_update BEFORE UPDATE ON access_log
BEGIN
	SELECT RAISE(ABORT, 'access_log entries cannot be changed');
END;
CREATE TRIGGER access_log_keep_365_days BEFORE DELETE ON access_log
WHEN old.at > (CAST(strftime('%s', 'now') AS INTEGER) - 365 * 86400) * 1000
BEGIN
	SELECT RAISE(ABORT, 'access_log entries are kept 365 days');
END;

-- Job runs, for `jobs list` and diagnostics.
CREATE TABLE job_runs (
	id          INTEGER PRIMARY KEY,
	job         TEXT NOT NULL,
	trigger     TEXT NOT NULL,
	started_at  INTEGER NOT NULL,
	finished_at INTEGER,
	outcome     TEXT NOT NULL DEFAULT 'running',
	detail      TEXT NOT NULL DEFAULT ''
);
CREATE INDEX job_runs_job ON job_runs(job, started_at);

-- Leases: a job (or one piece of work) is claimed by a holder until a time; a claim
-- is an atomic UPDATE so two runners never do the same work twice.
CREATE TABLE leases (
	name       TEXT PRIMARY KEY,
	holder     TEXT NOT NULL,
	until      INTEGER NOT NULL
);

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
CREATE INDEX orders_customer_key ON orders(customer_key);

-- Order lines. Lines missing from a later send are kept. state_changed_at is when
-- the current fulfilment_state took effect (the report's observed_at, the line's
-- delivered_at, else the time of the transfer); delivered_at is the time of the
-- verified delivery that review timing starts from.
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
CREATE INDEX order_lines_variant ON order_lines(variant_key);
CREATE INDEX order_lines_group ON order_lines(group_key);

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
