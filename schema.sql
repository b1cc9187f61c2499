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

-- Tokens of review links: invitation, shopping-experience, correction and order-check
-- tokens. Only the SHA-256 of a token is stored here; an invitation keeps its plain
-- token encrypted so reminders and retries reuse it. review_id is set for correction
-- tokens. token_lines names the order lines a token covers.
CREATE TABLE tokens (
	id          INTEGER PRIMARY KEY,
	token_hash  BLOB NOT NULL UNIQUE,
	kind        TEXT NOT NULL CHECK (kind IN ('invitation', 'experience', 'correction', 'order_check')),
	order_id    INTEGER NOT NULL REFERENCES orders(id) ON DELETE CASCADE,
	channel_id  INTEGER NOT NULL REFERENCES channels(id),
	market      TEXT NOT NULL,
	review_id   INTEGER,
	expires_at  INTEGER NOT NULL,
	spent_at    INTEGER,
	created_at  INTEGER NOT NULL
);
CREATE INDEX tokens_order ON tokens(order_id);

CREATE TABLE token_lines (
	token_id INTEGER NOT NULL REFERENCES tokens(id) ON DELETE CASCADE,
	line_id  INTEGER NOT NULL REFERENCES order_lines(id) ON DELETE CASCADE,
	PRIMARY KEY (token_id, line_id)
);
CREATE INDEX token_lines_line ON token_lines(line_id);

-- Outgoing customer messages and their send state: product-review invitations (one
-- per order), their reminders (one per invitation, same token), shopping-experience
-- invitations (one per order) and rejection notices. route is the route of the last
-- attempt (email or webhook). released_at is the first attempt; it counts toward
-- the daily limit and the burst check of customer_ref (a keyed hash of the
-- customer_key, else of the lower-cased address). address and customer_ref are
-- emptied when the order's customer data is erased.
CREATE TABLE invitations (
	id               INTEGER PRIMARY KEY,
	kind             TEXT NOT NULL CHECK (kind IN ('invitation', 'reminder', 'experience', 'rejection')),
	order_id         INTEGER REFERENCES orders(id) ON DELETE CASCADE,
	channel_id       INTEGER NOT NULL REFERENCES channels(id),
	parent_id        INTEGER REFERENCES invitations(id) ON DELETE CASCADE,
	token_id         INTEGER REFERENCES tokens(id),
	token_enc        BLOB,
	review_id        INTEGER,
	payload_enc      BLOB,
	address          TEXT NOT NULL DEFAULT '',
	customer_ref     TEXT NOT NULL DEFAULT '',
	recipient_erased INTEGER NOT NULL DEFAULT 0,
	language         TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	template_key     TEXT NOT NULL DEFAULT 'default',
	route            TEXT NOT NULL DEFAULT '',
	state            TEXT NOT NULL CHECK (state IN ('queued', 'sent', 'failed', 'skipped')),
	attempts         INTEGER NOT NULL DEFAULT 0,
	next_attempt_at  INTEGER,
	last_error       TEXT NOT NULL DEFAULT '',
	released_at      INTEGER,
	sent_at          INTEGER,
	expires_at       INTEGER,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
);
CREATE UNIQUE INDEX invitations_one_per_order ON invitations(order_id, kind) WHERE kind IN ('invitation', 'experience');
CREATE UNIQUE INDEX invitations_one_reminder ON invitations(parent_id) WHERE kind = 'reminder';
CREATE INDEX invitations_due ON invitations(state, next_attempt_at);
CREATE INDEX invitations_customer ON invitations(customer_ref, released_at);
CREATE INDEX invitations_created ON invitations(created_at);

-- The message log: one row per send attempt. event_id is new for every attempt
-- (the notice's event id, or our send id carried in the e-mail's provider headers);
-- message_id is the Message-ID we set on an e-mail. status: sent, retry (a
-- temporary failure; another attempt follows) or failed.
CREATE TABLE send_logs (
	id               INTEGER PRIMARY KEY,
	invitation_id    INTEGER NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
	channel_kind     TEXT NOT NULL CHECK (channel_kind IN ('email', 'webhook')),
	recipient        TEXT NOT NULL DEFAULT '',
	recipient_erased INTEGER NOT NULL DEFAULT 0,
	subject          TEXT NOT NULL DEFAULT '',
	event_id         TEXT NOT NULL,
	message_id       TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL CHECK (status IN ('sent', 'retry', 'failed')),
	error            TEXT NOT NULL DEFAULT '',
	attempt          INTEGER NOT NULL,
	at               INTEGER NOT NULL
);
CREATE INDEX send_logs_invitation ON send_logs(invitation_id);
CREATE INDEX send_logs_event ON send_logs(event_id);
CREATE INDEX send_logs_message ON send_logs(message_id) WHERE message_id != '';
CREATE INDEX send_logs_recipient ON send_logs(recipient COLLATE NOCASE, at);
CREATE INDEX send_logs_at ON send_logs(at);

-- Addresses that get no more e-mails (lower-cased). channel_kind is the route of
-- the message that led to the opt-out; source is link (the stop link) or the mail
-- event source (generic, sendgrid, mailgun, postmark, ses).
CREATE TABLE opt_outs (
	id           INTEGER PRIMARY KEY,
	address      TEXT NOT NULL UNIQUE,
	channel_kind TEXT NOT NULL CHECK (channel_kind IN ('email', 'webhook')),
	reason       TEXT NOT NULL,
	source       TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL
);

-- Mail delivery events received, for de-duplication (an event id is processed once
-- per source) and for the message log. detail has addresses replaced by the word
-- address; outcome is matched, ignored or opted_out.
CREATE TABLE mail_events (
	id          INTEGER PRIMARY KEY,
	source      TEXT NOT NULL,
	event_id    TEXT NOT NULL,
	type        TEXT NOT NULL DEFAULT '',
	send_log_id INTEGER REFERENCES send_logs(id) ON DELETE SET NULL,
	outcome     TEXT NOT NULL,
	detail      TEXT NOT NULL DEFAULT '',
	occurred_at INTEGER,
	created_at  INTEGER NOT NULL,
	UNIQUE (source, event_id)
);
CREATE INDEX mail_events_send_log ON mail_events(send_log_id);

-- Reviews. public_id (r_<20 base32>) is the id clients see. Own reviews are written
-- with a token for one order line (one review per line: line_id is unique); imported
-- reviews (origin imported) have no order and carry their source fields. state:
-- pending (awaiting approval), published, rejected, hidden, removed; anonymized_at is
-- set once the author's personal data is erased. experience: product, or process (a
-- shopping-experience review of a cancelled or returned line). flag_open is set while
-- an automatic check finding awaits a decision. returned_at is the Returned mark of
-- the proof. body_hash is the SHA-256 of the normalised body for the duplicate check.
CREATE TABLE reviews (
	id                  INTEGER PRIMARY KEY,
	public_id           TEXT NOT NULL UNIQUE,
	channel_id          INTEGER NOT NULL REFERENCES channels(id),
	market              TEXT NOT NULL,
	language            TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	order_id            INTEGER REFERENCES orders(id),
	line_id             INTEGER UNIQUE REFERENCES order_lines(id),
	token_id            INTEGER,
	variant_key         TEXT NOT NULL,
	group_key           TEXT NOT NULL DEFAULT '',
	product_name        TEXT NOT NULL DEFAULT '',
	experience          TEXT NOT NULL CHECK (experience IN ('product', 'process')),
	origin              TEXT NOT NULL CHECK (origin IN ('own', 'imported')),
	state               TEXT NOT NULL CHECK (state IN ('pending', 'published', 'rejected', 'hidden', 'removed')),
	rating              INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 5),
	title               TEXT NOT NULL DEFAULT '',
	body                TEXT NOT NULL DEFAULT '',
	body_hash           TEXT NOT NULL DEFAULT '',
	author_name         TEXT NOT NULL DEFAULT '',
	hide_name           INTEGER NOT NULL DEFAULT 0,
	aspects             TEXT NOT NULL DEFAULT '{}',
	aspect_template     TEXT NOT NULL DEFAULT '',
	verification_method TEXT NOT NULL DEFAULT '',
	flag_open           INTEGER NOT NULL DEFAULT 0,
	returned_at         INTEGER,
	helpful_count       INTEGER NOT NULL DEFAULT 0,
	unhelpful_count     INTEGER NOT NULL DEFAULT 0,
	source_platform     TEXT NOT NULL DEFAULT '',
	source_name         TEXT NOT NULL DEFAULT '',
	source_url          TEXT NOT NULL DEFAULT '',
	source_review_id    TEXT NOT NULL DEFAULT '',
	published_at        INTEGER,
	submitted_at        INTEGER NOT NULL,
	created_at          INTEGER NOT NULL,
	updated_at          INTEGER NOT NULL,
	anonymized_at       INTEGER
);
CREATE INDEX reviews_variant ON reviews(variant_key, state);
CREATE INDEX reviews_group ON reviews(group_key, state);
CREATE INDEX reviews_state ON reviews(state, submitted_at);
CREATE INDEX reviews_channel ON reviews(channel_id, state);
CREATE INDEX reviews_order ON reviews(order_id);
CREATE INDEX reviews_body_hash ON reviews(body_hash) WHERE body_hash != '';

-- What happened to a review: submitted, published, revised, returned, checked and
-- the moderation events, with the state before and after, the reason and who acted.
CREATE TABLE review_history (
	id         INTEGER PRIMARY KEY,
	review_id  INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
	event      TEXT NOT NULL,
	from_state TEXT NOT NULL DEFAULT '',
	to_state   TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL DEFAULT '',
	actor_type TEXT NOT NULL DEFAULT '',
	actor_id   TEXT NOT NULL DEFAULT '',
	actor_name TEXT NOT NULL DEFAULT '',
	detail     TEXT NOT NULL DEFAULT '{}',
	at         INTEGER NOT NULL
);
CREATE INDEX review_history_review ON review_history(review_id, at);

-- Automatic check results: one row per check kind and run. outcome passed or
-- flagged; finding names what was found (email, phone, url, the word or phrase, the
-- brand term id, the duplicated review id), never the personal data itself. A flagged
-- row stays open until resolved (a moderator's decision, or a later run that replaced
-- it).
CREATE TABLE review_checks (
	id          INTEGER PRIMARY KEY,
	review_id   INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
	kind        TEXT NOT NULL,
	outcome     TEXT NOT NULL CHECK (outcome IN ('passed', 'flagged')),
	finding     TEXT NOT NULL DEFAULT '',
	field       TEXT NOT NULL DEFAULT '',
	at          INTEGER NOT NULL,
	resolved_at INTEGER,
	resolution  TEXT NOT NULL DEFAULT '',
	resolved_by TEXT NOT NULL DEFAULT ''
);
CREATE INDEX review_checks_review ON review_checks(review_id, at);
CREATE INDEX review_checks_open ON review_checks(review_id) WHERE outcome = 'flagged' AND resolved_at IS NULL;

-- Photos and videos of reviews. Uploaded for an order line before the review is
-- written (review_id NULL until attached). state: uploaded -> processing -> ready,
-- or failed (refusal holds the detail), quarantined, removed (removal_reason). files
-- is the JSON list of processed files inside media/<public_id>/. claimed_until is the
-- media job's claim on a processing row.
CREATE TABLE review_media (
	id             INTEGER PRIMARY KEY,
	public_id      TEXT NOT NULL UNIQUE,
	review_id      INTEGER REFERENCES reviews(id),
	order_id       INTEGER NOT NULL REFERENCES orders(id),
	line_id        INTEGER NOT NULL REFERENCES order_lines(id),
	kind           TEXT NOT NULL CHECK (kind IN ('image', 'video')),
	type           TEXT NOT NULL,
	state          TEXT NOT NULL CHECK (state IN ('uploaded', 'processing', 'ready', 'failed', 'quarantined', 'removed')),
	position       INTEGER NOT NULL DEFAULT 0,
	width          INTEGER NOT NULL DEFAULT 0,
	height         INTEGER NOT NULL DEFAULT 0,
	duration_ms    INTEGER NOT NULL DEFAULT 0,
	files          TEXT NOT NULL DEFAULT '{}',
	bytes          INTEGER NOT NULL DEFAULT 0,
	alt_text       TEXT NOT NULL DEFAULT '',
	refusal        TEXT NOT NULL DEFAULT '',
	removal_reason TEXT NOT NULL DEFAULT '',
	attempts       INTEGER NOT NULL DEFAULT 0,
	claimed_until  INTEGER,
	created_at     INTEGER NOT NULL,
	updated_at     INTEGER NOT NULL,
	processed_at   INTEGER,
	removed_at     INTEGER
);
CREATE INDEX review_media_review ON review_media(review_id, position);
CREATE INDEX review_media_line ON review_media(line_id, state) WHERE review_id IS NULL;
CREATE INDEX review_media_due ON review_media(state, claimed_until) WHERE state IN ('uploaded', 'processing');

-- The brand's own regular expressions for the automatic checks (at most 50).
CREATE TABLE review_terms (
	id         INTEGER PRIMARY KEY,
	pattern    TEXT NOT NULL,
	label      TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);

-- The brand's own rating-topic lists (preset lists are data in app/core). aspects is
-- the JSON list of topics. Products are assigned to a list (own or preset) by
-- variant or group key; other products use the default list (settings key
-- aspect_template_default).
CREATE TABLE aspect_templates (
	key        TEXT PRIMARY KEY,
	name       TEXT NOT NULL,
	aspects    TEXT NOT NULL,
	retired_at INTEGER,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);

CREATE TABLE aspect_template_products (
	scope        TEXT NOT NULL CHECK (scope IN ('variant', 'group')),
	product_key  TEXT NOT NULL,
	template_key TEXT NOT NULL,
	PRIMARY KEY (scope, product_key)
);
CREATE INDEX aspect_template_products_template ON aspect_template_products(template_key);
