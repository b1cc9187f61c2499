-- reviewd schema: the only place tables are defined. It is a list of versions: the
-- part before the first "-- @version N" line is version 1, and each "-- @version N"
-- section holds what version N added or changed. A fresh database runs every section
-- in order; a database at version V runs the sections after V (store/migrate.go).
-- The version is PRAGMA user_version. A change is a NEW section at the end: released
-- sections are never edited.
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

-- @version 2: orders, order lines, deliveries and transfer figures

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

-- @version 3: tokens, invitations, message log, opt-outs and mail events

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

-- Delivered lines by delivery time, for the invitations job (only delivered lines
-- are indexed, so ingest pays for it only when a line is delivered).
CREATE INDEX order_lines_delivered ON order_lines(delivered_at) WHERE fulfilment_state = 'delivered';

-- @version 4: reviews, review history, checks and media, check terms, rating-topic lists

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

-- @version 5: platform order connections and their connection log

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

-- @version 6: questions and answers, answer e-mails, method statements

-- Product questions, pooled per market. public_id (q_<20 base32>) is the id clients
-- see. The product is variant_key (scope variant) or group_key (scope group).
-- asker_name and asker_email are personal data (anonymized_at is set once erased);
-- signed_in is set when the asker came with an asker token. state: pending (awaiting
-- approval), published, rejected, hidden. findings is the JSON list of automatic
-- check findings; flag_open is set while one awaits a decision.
CREATE TABLE questions (
	id            INTEGER PRIMARY KEY,
	public_id     TEXT NOT NULL UNIQUE,
	channel_id    INTEGER NOT NULL REFERENCES channels(id),
	market        TEXT NOT NULL,
	scope         TEXT NOT NULL CHECK (scope IN ('variant', 'group')),
	variant_key   TEXT NOT NULL DEFAULT '',
	group_key     TEXT NOT NULL DEFAULT '',
	language      TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	asker_name    TEXT NOT NULL DEFAULT '',
	asker_email   TEXT NOT NULL DEFAULT '',
	signed_in     INTEGER NOT NULL DEFAULT 0,
	hide_name     INTEGER NOT NULL DEFAULT 0,
	body          TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('pending', 'published', 'rejected', 'hidden')),
	flag_open     INTEGER NOT NULL DEFAULT 0,
	findings      TEXT NOT NULL DEFAULT '[]',
	created_at    INTEGER NOT NULL,
	published_at  INTEGER,
	updated_at    INTEGER NOT NULL,
	anonymized_at INTEGER
);
CREATE INDEX questions_variant ON questions(market, variant_key, state, published_at);
CREATE INDEX questions_group ON questions(market, group_key, state, published_at);
CREATE INDEX questions_state ON questions(state, created_at);

-- Answers to questions: kind brand (written in the panel, author is the brand) or
-- buyer (written with a review-invitation token whose order has the product; order_id
-- and line_id are the proof). notice is the outcome of the e-mail to the asker sent
-- when the answer first went live (sent, failed: <reason>, skipped: <reason>).
CREATE TABLE answers (
	id            INTEGER PRIMARY KEY,
	public_id     TEXT NOT NULL UNIQUE,
	question_id   INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
	kind          TEXT NOT NULL CHECK (kind IN ('brand', 'buyer')),
	channel_id    INTEGER NOT NULL REFERENCES channels(id),
	token_id      INTEGER,
	order_id      INTEGER REFERENCES orders(id),
	line_id       INTEGER REFERENCES order_lines(id),
	author_name   TEXT NOT NULL DEFAULT '',
	hide_name     INTEGER NOT NULL DEFAULT 0,
	body          TEXT NOT NULL,
	language      TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	state         TEXT NOT NULL CHECK (state IN ('pending', 'published', 'rejected', 'hidden')),
	flag_open     INTEGER NOT NULL DEFAULT 0,
	findings      TEXT NOT NULL DEFAULT '[]',
	actor_id      TEXT NOT NULL DEFAULT '',
	notice        TEXT NOT NULL DEFAULT '',
	notice_at     INTEGER,
	created_at    INTEGER NOT NULL,
	published_at  INTEGER,
	updated_at    INTEGER NOT NULL,
	anonymized_at INTEGER
);
CREATE INDEX answers_question ON answers(question_id, state);
CREATE INDEX answers_state ON answers(state, created_at);

-- Answer e-mails sent to askers, by a keyed hash of the lower-cased address: at most
-- 5 per address in 24 hours.
CREATE TABLE answer_emails (
	id           INTEGER PRIMARY KEY,
	address_hash TEXT NOT NULL,
	answer_id    INTEGER NOT NULL REFERENCES answers(id) ON DELETE CASCADE,
	at           INTEGER NOT NULL
);
CREATE INDEX answer_emails_address ON answer_emails(address_hash, at);

-- What happened to a question and its answers (answer_id set for an answer's
-- events): created, approve, reject, rereview, hide, unhide, answered.
CREATE TABLE qa_history (
	id          INTEGER PRIMARY KEY,
	question_id INTEGER NOT NULL REFERENCES questions(id) ON DELETE CASCADE,
	answer_id   INTEGER REFERENCES answers(id) ON DELETE CASCADE,
	event       TEXT NOT NULL,
	from_state  TEXT NOT NULL DEFAULT '',
	to_state    TEXT NOT NULL DEFAULT '',
	reason      TEXT NOT NULL DEFAULT '',
	actor_type  TEXT NOT NULL DEFAULT '',
	actor_id    TEXT NOT NULL DEFAULT '',
	actor_name  TEXT NOT NULL DEFAULT '',
	at          INTEGER NOT NULL
);
CREATE INDEX qa_history_question ON qa_history(question_id, at);

-- Method statements per channel and language: an own page address (external_url,
-- empty for the hosted page) and the fingerprint of the statement text the brand
-- last confirmed.
CREATE TABLE method_statements (
	channel_id            INTEGER NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
	language              TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	external_url          TEXT NOT NULL DEFAULT '',
	confirmed_fingerprint TEXT NOT NULL DEFAULT '',
	confirmed_at          INTEGER,
	confirmed_by          TEXT NOT NULL DEFAULT '',
	updated_at            INTEGER NOT NULL,
	PRIMARY KEY (channel_id, language)
);

-- @version 7: storefront read side: review listing, product figures, search, votes, reports, views

-- One row per published review (removed when it leaves the published state): the
-- columns the list filters and sorts on, and contribution, the JSON of what the
-- review adds to its product's figures (rating, flags, rating topics, words), so a
-- later change takes exactly that back out. verified: proof of purchase; syndicable:
-- an own verified product review that other markets may show; has_media: at least
-- one ready photo or video.
CREATE TABLE review_listing (
	review_id    INTEGER PRIMARY KEY REFERENCES reviews(id) ON DELETE CASCADE,
	variant_key  TEXT NOT NULL,
	group_key    TEXT NOT NULL,
	market       TEXT NOT NULL,
	rating       INTEGER NOT NULL,
	verified     INTEGER NOT NULL,
	syndicable   INTEGER NOT NULL,
	has_media    INTEGER NOT NULL,
	helpful      INTEGER NOT NULL,
	published_at INTEGER NOT NULL,
	contribution TEXT NOT NULL
);
CREATE INDEX review_listing_variant ON review_listing(variant_key, market, published_at);
CREATE INDEX review_listing_variant_rating ON review_listing(variant_key, market, rating, published_at);
CREATE INDEX review_listing_variant_helpful ON review_listing(variant_key, market, helpful, published_at);
CREATE INDEX review_listing_group ON review_listing(group_key, market, published_at) WHERE group_key != '';
CREATE INDEX review_listing_group_rating ON review_listing(group_key, market, rating, published_at) WHERE group_key != '';
CREATE INDEX review_listing_group_helpful ON review_listing(group_key, market, helpful, published_at) WHERE group_key != '';

-- Figures of one product (scope variant or group, product_key) in one market over
-- its published reviews, kept up to date in the transaction that changes a review.
-- reviews, rating_sum and rating_1..5 count own and imported reviews (syndicated
-- ones belong to their own market); structured counts own product-experience
-- reviews (structured data); syndicable, syndicable_media what other markets show.
-- aspects: JSON "template/key" -> sum, count and the topic's labels; topics and
-- gallery: the ready JSON lists of the list answer. revision changes with every
-- update (a review's state, media or helpful votes) and keys the answer caches.
CREATE TABLE product_stats (
	scope            TEXT NOT NULL CHECK (scope IN ('variant', 'group')),
	product_key      TEXT NOT NULL,
	market           TEXT NOT NULL,
	revision         INTEGER NOT NULL DEFAULT 0,
	reviews          INTEGER NOT NULL DEFAULT 0,
	rating_sum       INTEGER NOT NULL DEFAULT 0,
	rating_1         INTEGER NOT NULL DEFAULT 0,
	rating_2         INTEGER NOT NULL DEFAULT 0,
	rating_3         INTEGER NOT NULL DEFAULT 0,
	rating_4         INTEGER NOT NULL DEFAULT 0,
	rating_5         INTEGER NOT NULL DEFAULT 0,
	verified         INTEGER NOT NULL DEFAULT 0,
	imported         INTEGER NOT NULL DEFAULT 0,
	structured       INTEGER NOT NULL DEFAULT 0,
	structured_sum   INTEGER NOT NULL DEFAULT 0,
	media_reviews    INTEGER NOT NULL DEFAULT 0,
	syndicable       INTEGER NOT NULL DEFAULT 0,
	syndicable_media INTEGER NOT NULL DEFAULT 0,
	product_name     TEXT NOT NULL DEFAULT '',
	aspects          TEXT NOT NULL DEFAULT '{}',
	imported_sources TEXT NOT NULL DEFAULT '{}',
	topics           TEXT NOT NULL DEFAULT '[]',
	gallery          TEXT NOT NULL DEFAULT '[]',
	updated_at       INTEGER NOT NULL,
	PRIMARY KEY (scope, product_key, market)
) WITHOUT ROWID;

-- Words (at least 4 letters, normalised: lower case, dotted and dotless i alike,
-- no diacritics) of a product's published reviews in one market with the number of
-- reviews containing each; form is the word as first written (lower case). The
-- most frequent ones are the list's topics.
CREATE TABLE product_words (
	scope       TEXT NOT NULL,
	product_key TEXT NOT NULL,
	market      TEXT NOT NULL,
	word        TEXT NOT NULL,
	form        TEXT NOT NULL,
	reviews     INTEGER NOT NULL,
	PRIMARY KEY (scope, product_key, market, word)
) WITHOUT ROWID;
CREATE INDEX product_words_top ON product_words(scope, product_key, market, reviews);

-- Search over published reviews (rowid = reviews.id). text is the normalised title
-- and body; product holds tokens naming the review's variant and group, with and
-- without its market, so a search reads only one product's entries.
CREATE VIRTUAL TABLE review_search USING fts5(product, text, tokenize = 'unicode61', content = '', contentless_delete = 1);

-- Helpful votes: one per visitor (keyed hash of visitor_key, else of the IP
-- address) and review; vote up or down. Withdrawn votes are deleted.
CREATE TABLE review_votes (
	id         INTEGER PRIMARY KEY,
	review_id  INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
	visitor    TEXT NOT NULL,
	vote       TEXT NOT NULL CHECK (vote IN ('up', 'down')),
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (review_id, visitor)
);

-- Reports of published reviews by visitors. public_id (rp_<20 base32>) is the id
-- clients see; visitor is the keyed hash of visitor_key, else of the IP address. A
-- visitor has at most one open report per review. state open, or closed by a
-- moderator (resolved_at, resolved_by).
CREATE TABLE review_reports (
	id          INTEGER PRIMARY KEY,
	public_id   TEXT NOT NULL UNIQUE,
	review_id   INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
	channel_id  INTEGER NOT NULL,
	reason      TEXT NOT NULL,
	note        TEXT NOT NULL DEFAULT '',
	visitor     TEXT NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('open', 'closed')),
	created_at  INTEGER NOT NULL,
	resolved_at INTEGER,
	resolved_by TEXT NOT NULL DEFAULT ''
);
CREATE INDEX review_reports_review ON review_reports(review_id, state);
CREATE UNIQUE INDEX review_reports_open ON review_reports(review_id, visitor) WHERE state = 'open';

-- Views of the review component per UTC day, channel, product and how it was shown
-- (shown default, coded or headless; style; theme; width as one of four ranges
-- 0-479, 480-767, 768-1199, 1200+). Missing or invalid optional values are ''.
CREATE TABLE component_views (
	day         TEXT NOT NULL,
	channel_id  INTEGER NOT NULL,
	scope       TEXT NOT NULL,
	product_key TEXT NOT NULL,
	shown       TEXT NOT NULL,
	style       TEXT NOT NULL,
	theme       TEXT NOT NULL,
	width       TEXT NOT NULL,
	views       INTEGER NOT NULL,
	PRIMARY KEY (day, channel_id, scope, product_key, shown, style, theme, width)
) WITHOUT ROWID;

-- The read generation: moves on with every change of what storefront answers are
-- read against besides the reviews themselves (keys, channels and their domains,
-- settings, market rules, method statements, rating-topic lists), through the
-- triggers below. Caches of verified keys, rules, settings and links are valid
-- while it stays the same. A later step that rebuilds one of these tables must
-- create its triggers again.
CREATE TABLE read_generation (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL
);
INSERT INTO read_generation (id, n) VALUES (1, 0);
CREATE TRIGGER read_generation_settings_insert AFTER INSERT ON settings BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_settings_update AFTER UPDATE ON settings BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_settings_delete AFTER DELETE ON settings BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channels_insert AFTER INSERT ON channels BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channels_update AFTER UPDATE ON channels BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channels_delete AFTER DELETE ON channels BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channel_domains_insert AFTER INSERT ON channel_domains BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channel_domains_update AFTER UPDATE ON channel_domains BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_channel_domains_delete AFTER DELETE ON channel_domains BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_api_keys_insert AFTER INSERT ON api_keys BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_api_keys_update AFTER UPDATE ON api_keys BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_api_keys_delete AFTER DELETE ON api_keys BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_market_rules_insert AFTER INSERT ON market_rules BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_market_rules_update AFTER UPDATE ON market_rules BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_market_rules_delete AFTER DELETE ON market_rules BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_method_statements_insert AFTER INSERT ON method_statements BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_method_statements_update AFTER UPDATE ON method_statements BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_method_statements_delete AFTER DELETE ON method_statements BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_templates_insert AFTER INSERT ON aspect_templates BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_templates_update AFTER UPDATE ON aspect_templates BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_templates_delete AFTER DELETE ON aspect_templates BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_template_products_insert AFTER INSERT ON aspect_template_products BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_template_products_update AFTER UPDATE ON aspect_template_products BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_aspect_template_products_delete AFTER DELETE ON aspect_template_products BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;

-- @version 8: helpful votes counted once per review per address and day

-- One counted helpful vote per review per visitor address (IPv6 by /64) and UTC day,
-- whatever visitor_key the caller sends. ip_day is a keyed hash of the address and
-- the day, never the address; visitor is the visitor whose vote it is (it may
-- withdraw and vote again). Rows older than two days are deleted by cleanup.
CREATE TABLE review_vote_ips (
	review_id  INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
	ip_day     TEXT NOT NULL,
	visitor    TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (review_id, ip_day)
);
CREATE INDEX review_vote_ips_created ON review_vote_ips(created_at);

-- @version 9: personal-data requests and audit files

-- Personal-data requests (access or erasure) opened in the panel. The identifier (an
-- e-mail address or a phone number) is personal data: it is kept encrypted with the
-- master key (identifier_sealed) and found by a keyed hash of its normalised form
-- (identifier_hash). state: received, then completed or refused (no in-between).
-- affected_reviews and purged_media count what an erasure changed.
CREATE TABLE subject_requests (
	id                INTEGER PRIMARY KEY,
	kind              TEXT NOT NULL CHECK (kind IN ('access', 'erasure')),
	identifier_kind   TEXT NOT NULL CHECK (identifier_kind IN ('email', 'phone')),
	identifier_hash   TEXT NOT NULL,
	identifier_sealed BLOB NOT NULL,
	note              TEXT NOT NULL DEFAULT '',
	state             TEXT NOT NULL CHECK (state IN ('received', 'completed', 'refused')),
	reason            TEXT NOT NULL DEFAULT '',
	handler           TEXT NOT NULL DEFAULT '',
	affected_reviews  INTEGER NOT NULL DEFAULT 0,
	purged_media      INTEGER NOT NULL DEFAULT 0,
	received_at       INTEGER NOT NULL,
	completed_at      INTEGER
);
CREATE INDEX subject_requests_identifier ON subject_requests(identifier_hash);

-- Audit files: the scope of a stored report (channel code, or market, or neither for
-- every channel) and its period [start_at, end_at). The document itself is built from
-- the data each time it is downloaded, so the same data gives the same bytes.
CREATE TABLE audit_files (
	id         INTEGER PRIMARY KEY,
	channel    TEXT NOT NULL DEFAULT '',
	market     TEXT NOT NULL DEFAULT '',
	start_at   INTEGER NOT NULL,
	end_at     INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	created_by TEXT NOT NULL DEFAULT ''
);

-- @version 10: panel members' last sign-in, set-password links, brand state

ALTER TABLE users ADD COLUMN last_sign_in_at INTEGER;

-- A site key is public (every store page carries it), so the key list shows it; server
-- and API keys stay hash-only. Site keys made before this version show none.
ALTER TABLE api_keys ADD COLUMN site_key TEXT NOT NULL DEFAULT '';

-- Links that let a panel member set a password: 'welcome' (new member, 3 days) and
-- 'reset' (1 hour). Only the SHA-256 of the token is stored; a link works once.
CREATE TABLE password_links (
	id         INTEGER PRIMARY KEY,
	token_hash BLOB NOT NULL UNIQUE,
	user_id    INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	purpose    TEXT NOT NULL CHECK (purpose IN ('welcome', 'reset')),
	created_at INTEGER NOT NULL,
	expires_at INTEGER NOT NULL,
	used_at    INTEGER
);
CREATE INDEX password_links_user ON password_links(user_id);

-- The brand's state, set from the console: frozen or closed brands keep only the
-- data export. No row means active.
CREATE TABLE brand_state (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	state      TEXT NOT NULL CHECK (state IN ('active', 'frozen', 'closed')),
	changed_at INTEGER NOT NULL
);
-- A change of state ends every cached storefront answer and verified caller.
CREATE TRIGGER read_generation_brand_state_insert AFTER INSERT ON brand_state BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER read_generation_brand_state_update AFTER UPDATE ON brand_state BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;

-- @version 11: channel requests and domain verification tokens

-- A brand's request for another channel beyond its allowance (settings key
-- channel_allowance, default 3). At most one is open at a time; the operator grants
-- it with `reviewd channel requests grant ID`, which raises the allowance by one.
CREATE TABLE channel_requests (
	id          INTEGER PRIMARY KEY,
	market      TEXT NOT NULL,
	label       TEXT NOT NULL,
	note        TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL CHECK (state IN ('open', 'granted')),
	actor       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	granted_at  INTEGER
);
CREATE UNIQUE INDEX channel_requests_one_open ON channel_requests(state) WHERE state = 'open';

-- The proof token a domain is verified with (a file at the domain or a TXT record);
-- empty for domains recorded as verified by the operator.
ALTER TABLE channel_domains ADD COLUMN token TEXT NOT NULL DEFAULT '';

-- @version 12: question and answer revisions per market, for the storefront's answer ETags

-- qa_revisions.n moves on with every change of a question or answer of the market
-- (insert, moderation, erasure, deletion), so a cached GET /v1/questions answer and
-- its ETag are known stale without reading the questions.
CREATE TABLE qa_revisions (
	market TEXT PRIMARY KEY,
	n      INTEGER NOT NULL
);
CREATE TRIGGER qa_revisions_questions_insert AFTER INSERT ON questions BEGIN
	INSERT INTO qa_revisions (market, n) VALUES (NEW.market, 1) ON CONFLICT (market) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER qa_revisions_questions_update AFTER UPDATE ON questions BEGIN
	INSERT INTO qa_revisions (market, n) VALUES (NEW.market, 1) ON CONFLICT (market) DO UPDATE SET n = n + 1;
	INSERT INTO qa_revisions (market, n) VALUES (OLD.market, 1) ON CONFLICT (market) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER qa_revisions_questions_delete AFTER DELETE ON questions BEGIN
	INSERT INTO qa_revisions (market, n) VALUES (OLD.market, 1) ON CONFLICT (market) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER qa_revisions_answers_insert AFTER INSERT ON answers BEGIN
	INSERT INTO qa_revisions (market, n) SELECT market, 1 FROM questions WHERE id = NEW.question_id
		ON CONFLICT (market) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER qa_revisions_answers_update AFTER UPDATE ON answers BEGIN
	INSERT INTO qa_revisions (market, n) SELECT market, 1 FROM questions WHERE id = NEW.question_id
		ON CONFLICT (market) DO UPDATE SET n = n + 1; END;
CREATE TRIGGER qa_revisions_answers_delete AFTER DELETE ON answers BEGIN
	INSERT INTO qa_revisions (market, n) SELECT market, 1 FROM questions WHERE id = OLD.question_id
		ON CONFLICT (market) DO UPDATE SET n = n + 1; END;

-- @version 13: product catalogue and product feeds, marketplace review sources, runs and removals

-- The product catalogue: one row per variant_key. source says where the row came
-- from first (ingest: POST /v1/ingest/products, feed: a product feed, order: filled
-- from order lines). Empty fields are filled from later sources; a posted or fed
-- value replaces what order lines gave. gtin and catalog_id find a marketplace
-- row's product (docs/catalogue.md).
CREATE TABLE products (
	id          INTEGER PRIMARY KEY,
	variant_key TEXT NOT NULL UNIQUE,
	group_key   TEXT NOT NULL DEFAULT '',
	catalog_id  TEXT NOT NULL DEFAULT '',
	name        TEXT NOT NULL DEFAULT '',
	url         TEXT NOT NULL DEFAULT '',
	image_url   TEXT NOT NULL DEFAULT '',
	brand       TEXT NOT NULL DEFAULT '',
	gtin        TEXT NOT NULL DEFAULT '',
	mpn         TEXT NOT NULL DEFAULT '',
	source      TEXT NOT NULL CHECK (source IN ('ingest', 'feed', 'order')),
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX products_gtin ON products(gtin) WHERE gtin != '';
CREATE INDEX products_catalog ON products(catalog_id) WHERE catalog_id != '';

-- Product feeds read on a schedule over the outbound client: format google_xml,
-- google_tsv or json (docs/catalogue.md). last_error holds the failure code of the
-- last read (page_limit_reached: <limit>, cursor_repeated, http_status: <code>, ...).
CREATE TABLE product_feeds (
	id               INTEGER PRIMARY KEY,
	url              TEXT NOT NULL UNIQUE,
	format           TEXT NOT NULL CHECK (format IN ('google_xml', 'google_tsv', 'json')),
	interval_minutes INTEGER NOT NULL DEFAULT 360,
	enabled          INTEGER NOT NULL DEFAULT 1,
	next_run_at      INTEGER NOT NULL,
	last_run_at      INTEGER,
	last_error       TEXT NOT NULL DEFAULT '',
	last_products    INTEGER NOT NULL DEFAULT 0,
	last_pages       INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL
);

-- Marketplace review connections (spec 3, "Marketplace review endpoints"): one per
-- channel, marketplace and seller. route file (uploads) or feed (read from feed_url
-- by the marketplace job). secret_enc is sealed with the master key and never
-- returned. failures counts failed feed reads in a row.
CREATE TABLE marketplace_sources (
	id          INTEGER PRIMARY KEY,
	platform    TEXT NOT NULL CHECK (platform IN ('trendyol', 'hepsiburada', 'n11', 'amazon', 'ciceksepeti')),
	channel_id  INTEGER NOT NULL REFERENCES channels(id),
	seller_id   TEXT NOT NULL,
	route       TEXT NOT NULL CHECK (route IN ('file', 'feed')),
	feed_url    TEXT NOT NULL DEFAULT '',
	secret_enc  BLOB,
	enabled     INTEGER NOT NULL DEFAULT 1,
	failures    INTEGER NOT NULL DEFAULT 0,
	next_run_at INTEGER,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL,
	UNIQUE (channel_id, platform, seller_id)
);

-- Reads of a marketplace connection: state queued, running, succeeded, held
-- (removals held back) or failed (error holds the failure code). counts and report
-- are JSON objects (docs/marketplace.md).
CREATE TABLE marketplace_runs (
	id               INTEGER PRIMARY KEY,
	source_id        INTEGER NOT NULL REFERENCES marketplace_sources(id) ON DELETE CASCADE,
	trigger          TEXT NOT NULL CHECK (trigger IN ('file', 'feed', 'schedule')),
	scope            TEXT NOT NULL CHECK (scope IN ('new', 'full')),
	confirm_removals INTEGER NOT NULL DEFAULT 0,
	state            TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'held', 'failed')),
	error            TEXT NOT NULL DEFAULT '',
	file_name        TEXT NOT NULL DEFAULT '',
	counts           TEXT NOT NULL DEFAULT '{}',
	report           TEXT NOT NULL DEFAULT '{}',
	created_at       INTEGER NOT NULL,
	started_at       INTEGER,
	finished_at      INTEGER
);
CREATE INDEX marketplace_runs_source ON marketplace_runs(source_id, id);
CREATE UNIQUE INDEX marketplace_runs_active ON marketplace_runs(source_id) WHERE state IN ('queued', 'running');

-- Imported reviews and where they came from: the marketplace's review number, the
-- row's barcode and a fingerprint of the imported content (a changed row updates the
-- review). removed_by_request is set when the review was removed by a removal
-- request (a later read does not bring it back).
CREATE TABLE marketplace_reviews (
	review_id          INTEGER PRIMARY KEY REFERENCES reviews(id),
	source_id          INTEGER NOT NULL REFERENCES marketplace_sources(id),
	source_review_id   TEXT NOT NULL,
	barcode            TEXT NOT NULL DEFAULT '',
	fingerprint        TEXT NOT NULL,
	removed_by_request INTEGER NOT NULL DEFAULT 0,
	seen_run_id        INTEGER NOT NULL DEFAULT 0,
	UNIQUE (source_id, source_review_id)
);

-- Removal requests for imported reviews (POST /admin/v1/marketplace/removals),
-- recorded as deletion requests: the review ids, the media files purged and who asked.
CREATE TABLE marketplace_removals (
	id           INTEGER PRIMARY KEY,
	public_id    TEXT NOT NULL UNIQUE,
	reviews      TEXT NOT NULL,
	note         TEXT NOT NULL DEFAULT '',
	media_purged INTEGER NOT NULL DEFAULT 0,
	state        TEXT NOT NULL CHECK (state IN ('completed')),
	actor_id     TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL
);

-- Which sources a removal request touched (a source with a removal record cannot be
-- deleted).
CREATE TABLE marketplace_removal_sources (
	removal_id INTEGER NOT NULL REFERENCES marketplace_removals(id) ON DELETE CASCADE,
	source_id  INTEGER NOT NULL,
	PRIMARY KEY (removal_id, source_id)
);

-- @version 14: photos of imported reviews (review media without an order line), connection alert episodes

-- review_media again, with order_id and line_id optional: the photos of an imported
-- (marketplace) review belong to no order line. Columns and indexes as before.
CREATE TABLE review_media_v14 (
	id             INTEGER PRIMARY KEY,
	public_id      TEXT NOT NULL UNIQUE,
	review_id      INTEGER REFERENCES reviews(id),
	order_id       INTEGER REFERENCES orders(id),
	line_id        INTEGER REFERENCES order_lines(id),
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
INSERT INTO review_media_v14 SELECT id, public_id, review_id, order_id, line_id, kind, type, state, position, width,
	height, duration_ms, files, bytes, alt_text, refusal, removal_reason, attempts, claimed_until, created_at,
	updated_at, processed_at, removed_at FROM review_media;
DROP TABLE review_media;
ALTER TABLE review_media_v14 RENAME TO review_media;
CREATE INDEX review_media_review ON review_media(review_id, position);
CREATE INDEX review_media_line ON review_media(line_id, state) WHERE review_id IS NULL;
CREATE INDEX review_media_due ON review_media(state, claimed_until) WHERE state IN ('uploaded', 'processing');

-- Photo addresses of imported reviews, fetched over the outbound client into the
-- media pipeline after the import transaction (docs/marketplace.md). state pending
-- (fetched at next_try_at, attempts counted), fetched (media_id is the review_media
-- row), refused (error holds why: too_many_items, type_not_allowed, quarantined,
-- too_large, image_unreadable, or the last failure after the last attempt).
CREATE TABLE marketplace_photos (
	review_id   INTEGER NOT NULL REFERENCES reviews(id),
	source_id   INTEGER NOT NULL,
	url         TEXT NOT NULL,
	position    INTEGER NOT NULL,
	state       TEXT NOT NULL CHECK (state IN ('pending', 'fetched', 'refused')),
	media_id    INTEGER,
	attempts    INTEGER NOT NULL DEFAULT 0,
	error       TEXT NOT NULL DEFAULT '',
	next_try_at INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (review_id, url)
);
CREATE INDEX marketplace_photos_source ON marketplace_photos(source_id, state);
CREATE INDEX marketplace_photos_due ON marketplace_photos(next_try_at) WHERE state = 'pending';

-- Alert e-mail episodes: a row while a connection's alert of one kind (failed:
-- reads failed in a row as often as settings warning_limit; held: marketplace
-- removals held back) has been mailed to the brand administrators. The episode
-- ends (the row goes) with the connection's next successful read, so each
-- episode sends one e-mail.
CREATE TABLE alert_episodes (
	subject   TEXT NOT NULL,
	kind      TEXT NOT NULL CHECK (kind IN ('failed', 'held')),
	opened_at INTEGER NOT NULL,
	PRIMARY KEY (subject, kind)
);

-- @version 15: seller responses and resolution notes, invitation templates, brand exports

-- The brand's public reply to a review (at most one per review): shown under the
-- published review, written to the review history and mailed to the reviewer once;
-- notice is the outcome of that e-mail (sent, failed: <reason>, opted_out,
-- no_address, mail_disabled).
CREATE TABLE seller_responses (
	review_id    INTEGER PRIMARY KEY REFERENCES reviews(id),
	body         TEXT NOT NULL,
	actor_id     TEXT NOT NULL DEFAULT '',
	published_at INTEGER NOT NULL,
	updated_at   INTEGER NOT NULL,
	notice       TEXT NOT NULL DEFAULT '',
	notice_at    INTEGER
);

-- The brand's resolution note of a review (how the customer's problem was
-- resolved; at most one per review), shown under the review where the market rule
-- has resolution_inline.
CREATE TABLE review_resolutions (
	review_id  INTEGER PRIMARY KEY REFERENCES reviews(id),
	body       TEXT NOT NULL,
	actor_id   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL
);

-- The brand's own invitation e-mails: one per type, language, market and channel
-- (channel_id 0: every channel of the market; market '': every market). html is
-- stored sanitised; placeholders ({{review_button}}, ...) are filled when sending.
CREATE TABLE invite_templates (
	id         INTEGER PRIMARY KEY,
	kind       TEXT NOT NULL CHECK (kind IN ('invitation', 'reminder', 'experience')),
	language   TEXT NOT NULL CHECK (language IN ('tr', 'en')),
	market     TEXT NOT NULL DEFAULT '',
	channel_id INTEGER NOT NULL DEFAULT 0,
	subject    TEXT NOT NULL,
	html       TEXT NOT NULL,
	actor_id   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	UNIQUE (kind, language, market, channel_id)
);

-- Whole-brand archives (GET/POST /admin/v1/brand-export): built in the background
-- into file (a zip in the data folder's exports/), downloadable until expires_at;
-- the cleanup job deletes expired files and rows.
CREATE TABLE brand_exports (
	id         INTEGER PRIMARY KEY,
	state      TEXT NOT NULL CHECK (state IN ('building', 'ready', 'failed')),
	error      TEXT NOT NULL DEFAULT '',
	file       TEXT NOT NULL DEFAULT '',
	size       INTEGER NOT NULL DEFAULT 0,
	sha256     TEXT NOT NULL DEFAULT '',
	counts     TEXT NOT NULL DEFAULT '{}',
	actor_id   TEXT NOT NULL DEFAULT '',
	created_at INTEGER NOT NULL,
	ready_at   INTEGER,
	expires_at INTEGER NOT NULL
);

-- @version 16: a key's last use does not move the read generation

-- api_keys.last_used_at is written when a key authenticates (at most once a minute
-- per key); the storefront's caches of verified keys depend on every other column.
DROP TRIGGER read_generation_api_keys_update;
CREATE TRIGGER read_generation_api_keys_update AFTER UPDATE OF public_id, kind, channel_id, scopes, label, key_hash, hint, created_at, revoked_at, site_key ON api_keys BEGIN UPDATE read_generation SET n = n + 1 WHERE id = 1; END;

-- @version 17: product-review feeds, brand figures (reviews, invitations, sites, topics)

-- Product-review feeds (GET /admin/v1/shared-review-feeds/<id>/<key>.xml): the
-- scope is one channel, one market or (both empty) every channel; names is
-- as_shown (hide_name reviews masked) or masked (every name masked). The key in the
-- address is derived from the master key and salt (docs/decisions.md), so it is
-- never stored and a deleted feed's address stays dead.
CREATE TABLE review_feeds (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL,
	channel_id     INTEGER REFERENCES channels(id),
	market         TEXT NOT NULL DEFAULT '',
	names          TEXT NOT NULL CHECK (names IN ('as_shown', 'masked')),
	publisher_name TEXT NOT NULL DEFAULT '',
	salt           TEXT NOT NULL,
	created_by     TEXT NOT NULL DEFAULT '',
	created_at     INTEGER NOT NULL,
	last_read_at   INTEGER
);

-- What the review feeds are built of moves n (reviews and catalogue products, moved
-- by the triggers below); at is the newest updated_at seen (Last-Modified).
CREATE TABLE feed_revision (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	n  INTEGER NOT NULL,
	at INTEGER NOT NULL
);
INSERT INTO feed_revision (id, n, at) VALUES (1, 0, coalesce((SELECT max(updated_at) FROM reviews), 0));
CREATE TRIGGER feed_revision_reviews_insert AFTER INSERT ON reviews BEGIN
	UPDATE feed_revision SET n = n + 1, at = max(at, NEW.updated_at) WHERE id = 1; END;
CREATE TRIGGER feed_revision_reviews_update AFTER UPDATE OF state, rating, title, body, author_name, hide_name, variant_key,
	channel_id, market, experience, origin, submitted_at, order_id ON reviews BEGIN
	UPDATE feed_revision SET n = n + 1, at = max(at, NEW.updated_at) WHERE id = 1; END;
CREATE TRIGGER feed_revision_reviews_delete AFTER DELETE ON reviews BEGIN UPDATE feed_revision SET n = n + 1 WHERE id = 1; END;
CREATE TRIGGER feed_revision_products_insert AFTER INSERT ON products BEGIN
	UPDATE feed_revision SET n = n + 1, at = max(at, NEW.updated_at) WHERE id = 1; END;
CREATE TRIGGER feed_revision_products_update AFTER UPDATE ON products BEGIN
	UPDATE feed_revision SET n = n + 1, at = max(at, NEW.updated_at) WHERE id = 1; END;
CREATE TRIGGER feed_revision_products_delete AFTER DELETE ON products BEGIN UPDATE feed_revision SET n = n + 1 WHERE id = 1; END;

-- Brand figures, kept by triggers in the transaction of every write that changes
-- them (docs/decisions.md, "Metrics, insights, overview"). Each is kept per UTC hour
-- (ms / 3600000) and rolled up per UTC day (ms / 86400000) by triggers on the hour
-- rows: a period in any time zone is its whole UTC days plus the hours of the days
-- its local midnights cut.
--
-- review_figures: reviews by the hour they were submitted. received counts every
-- review, imported the imported ones, pending those now awaiting approval;
-- published, rating_sum and rating_1..5 those now published; with_media the published ones with a ready photo or video
-- (review_listing.has_media); decided, decided_ms and decided_24h the moves from
-- pending to published or rejected made by a later transaction than the submission
-- (a moderator's decision, not an automatic publication), with the wait summed.
CREATE TABLE review_figures (
	hour        INTEGER NOT NULL,
	channel_id  INTEGER NOT NULL,
	received    INTEGER NOT NULL DEFAULT 0,
	imported    INTEGER NOT NULL DEFAULT 0,
	pending     INTEGER NOT NULL DEFAULT 0,
	published   INTEGER NOT NULL DEFAULT 0,
	rating_sum  INTEGER NOT NULL DEFAULT 0,
	rating_1    INTEGER NOT NULL DEFAULT 0,
	rating_2    INTEGER NOT NULL DEFAULT 0,
	rating_3    INTEGER NOT NULL DEFAULT 0,
	rating_4    INTEGER NOT NULL DEFAULT 0,
	rating_5    INTEGER NOT NULL DEFAULT 0,
	with_media  INTEGER NOT NULL DEFAULT 0,
	decided     INTEGER NOT NULL DEFAULT 0,
	decided_ms  INTEGER NOT NULL DEFAULT 0,
	decided_24h INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (hour, channel_id)
) WITHOUT ROWID;
CREATE TABLE review_days (
	day         INTEGER NOT NULL,
	channel_id  INTEGER NOT NULL,
	received    INTEGER NOT NULL DEFAULT 0,
	imported    INTEGER NOT NULL DEFAULT 0,
	pending     INTEGER NOT NULL DEFAULT 0,
	published   INTEGER NOT NULL DEFAULT 0,
	rating_sum  INTEGER NOT NULL DEFAULT 0,
	rating_1    INTEGER NOT NULL DEFAULT 0,
	rating_2    INTEGER NOT NULL DEFAULT 0,
	rating_3    INTEGER NOT NULL DEFAULT 0,
	rating_4    INTEGER NOT NULL DEFAULT 0,
	rating_5    INTEGER NOT NULL DEFAULT 0,
	with_media  INTEGER NOT NULL DEFAULT 0,
	decided     INTEGER NOT NULL DEFAULT 0,
	decided_ms  INTEGER NOT NULL DEFAULT 0,
	decided_24h INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, channel_id)
) WITHOUT ROWID;
CREATE TRIGGER review_days_insert AFTER INSERT ON review_figures BEGIN
	INSERT INTO review_days (day, channel_id, received, imported, pending, published, rating_sum, rating_1, rating_2, rating_3, rating_4,
		rating_5, with_media, decided, decided_ms, decided_24h)
	VALUES (NEW.hour / 24, NEW.channel_id, NEW.received, NEW.imported, NEW.pending, NEW.published, NEW.rating_sum, NEW.rating_1, NEW.rating_2,
		NEW.rating_3, NEW.rating_4, NEW.rating_5, NEW.with_media, NEW.decided, NEW.decided_ms, NEW.decided_24h)
	ON CONFLICT (day, channel_id) DO UPDATE SET received = received + excluded.received, imported = imported + excluded.imported,
		pending = pending + excluded.pending, published = published + excluded.published, rating_sum = rating_sum + excluded.rating_sum,
		rating_1 = rating_1 + excluded.rating_1, rating_2 = rating_2 + excluded.rating_2, rating_3 = rating_3 + excluded.rating_3,
		rating_4 = rating_4 + excluded.rating_4, rating_5 = rating_5 + excluded.rating_5, with_media = with_media + excluded.with_media,
		decided = decided + excluded.decided, decided_ms = decided_ms + excluded.decided_ms, decided_24h = decided_24h + excluded.decided_24h;
END;
CREATE TRIGGER review_days_update AFTER UPDATE ON review_figures BEGIN
	UPDATE review_days SET received = received + NEW.received - OLD.received, imported = imported + NEW.imported - OLD.imported,
		pending = pending + NEW.pending - OLD.pending, published = published + NEW.published - OLD.published, rating_sum = rating_sum + NEW.rating_sum - OLD.rating_sum,
		rating_1 = rating_1 + NEW.rating_1 - OLD.rating_1, rating_2 = rating_2 + NEW.rating_2 - OLD.rating_2,
		rating_3 = rating_3 + NEW.rating_3 - OLD.rating_3, rating_4 = rating_4 + NEW.rating_4 - OLD.rating_4,
		rating_5 = rating_5 + NEW.rating_5 - OLD.rating_5, with_media = with_media + NEW.with_media - OLD.with_media,
		decided = decided + NEW.decided - OLD.decided, decided_ms = decided_ms + NEW.decided_ms - OLD.decided_ms,
		decided_24h = decided_24h + NEW.decided_24h - OLD.decided_24h
	WHERE day = NEW.hour / 24 AND channel_id = NEW.channel_id;
END;

CREATE TRIGGER review_figures_insert AFTER INSERT ON reviews BEGIN
	INSERT INTO review_figures (hour, channel_id, received, imported, pending, published, rating_sum,
		rating_1, rating_2, rating_3, rating_4, rating_5)
	VALUES (NEW.submitted_at / 3600000, NEW.channel_id, 1, NEW.origin = 'imported', NEW.state = 'pending', NEW.state = 'published',
		(NEW.state = 'published') * NEW.rating, NEW.state = 'published' AND NEW.rating = 1, NEW.state = 'published' AND NEW.rating = 2,
		NEW.state = 'published' AND NEW.rating = 3, NEW.state = 'published' AND NEW.rating = 4, NEW.state = 'published' AND NEW.rating = 5)
	ON CONFLICT (hour, channel_id) DO UPDATE SET received = received + excluded.received, imported = imported + excluded.imported,
		pending = pending + excluded.pending, published = published + excluded.published, rating_sum = rating_sum + excluded.rating_sum,
		rating_1 = rating_1 + excluded.rating_1, rating_2 = rating_2 + excluded.rating_2, rating_3 = rating_3 + excluded.rating_3,
		rating_4 = rating_4 + excluded.rating_4, rating_5 = rating_5 + excluded.rating_5;
END;
CREATE TRIGGER review_figures_update AFTER UPDATE OF state, rating, channel_id, origin, submitted_at ON reviews
WHEN OLD.state IS NOT NEW.state OR OLD.rating != NEW.rating OR OLD.channel_id != NEW.channel_id OR OLD.origin != NEW.origin
	OR OLD.submitted_at != NEW.submitted_at
BEGIN
	UPDATE review_figures SET received = received - 1, imported = imported - (OLD.origin = 'imported'),
		pending = pending - (OLD.state = 'pending'), published = published - (OLD.state = 'published'),
		rating_sum = rating_sum - (OLD.state = 'published') * OLD.rating,
		rating_1 = rating_1 - (OLD.state = 'published' AND OLD.rating = 1), rating_2 = rating_2 - (OLD.state = 'published' AND OLD.rating = 2),
		rating_3 = rating_3 - (OLD.state = 'published' AND OLD.rating = 3), rating_4 = rating_4 - (OLD.state = 'published' AND OLD.rating = 4),
		rating_5 = rating_5 - (OLD.state = 'published' AND OLD.rating = 5)
	WHERE hour = OLD.submitted_at / 3600000 AND channel_id = OLD.channel_id;
	INSERT INTO review_figures (hour, channel_id, received, imported, pending, published, rating_sum,
		rating_1, rating_2, rating_3, rating_4, rating_5)
	VALUES (NEW.submitted_at / 3600000, NEW.channel_id, 1, NEW.origin = 'imported', NEW.state = 'pending', NEW.state = 'published',
		(NEW.state = 'published') * NEW.rating, NEW.state = 'published' AND NEW.rating = 1, NEW.state = 'published' AND NEW.rating = 2,
		NEW.state = 'published' AND NEW.rating = 3, NEW.state = 'published' AND NEW.rating = 4, NEW.state = 'published' AND NEW.rating = 5)
	ON CONFLICT (hour, channel_id) DO UPDATE SET received = received + excluded.received, imported = imported + excluded.imported,
		pending = pending + excluded.pending, published = published + excluded.published, rating_sum = rating_sum + excluded.rating_sum,
		rating_1 = rating_1 + excluded.rating_1, rating_2 = rating_2 + excluded.rating_2, rating_3 = rating_3 + excluded.rating_3,
		rating_4 = rating_4 + excluded.rating_4, rating_5 = rating_5 + excluded.rating_5;
END;
CREATE TRIGGER review_figures_decided AFTER UPDATE OF state ON reviews
WHEN OLD.state = 'pending' AND NEW.state IN ('published', 'rejected') AND NEW.updated_at > NEW.submitted_at
BEGIN
	UPDATE review_figures SET decided = decided + 1, decided_ms = decided_ms + (NEW.updated_at - NEW.submitted_at),
		decided_24h = decided_24h + (NEW.updated_at - NEW.submitted_at <= 86400000)
	WHERE hour = NEW.submitted_at / 3600000 AND channel_id = NEW.channel_id;
END;
CREATE TRIGGER review_figures_delete AFTER DELETE ON reviews BEGIN
	UPDATE review_figures SET received = received - 1, imported = imported - (OLD.origin = 'imported'),
		pending = pending - (OLD.state = 'pending'), published = published - (OLD.state = 'published'),
		rating_sum = rating_sum - (OLD.state = 'published') * OLD.rating,
		rating_1 = rating_1 - (OLD.state = 'published' AND OLD.rating = 1), rating_2 = rating_2 - (OLD.state = 'published' AND OLD.rating = 2),
		rating_3 = rating_3 - (OLD.state = 'published' AND OLD.rating = 3), rating_4 = rating_4 - (OLD.state = 'published' AND OLD.rating = 4),
		rating_5 = rating_5 - (OLD.state = 'published' AND OLD.rating = 5)
	WHERE hour = OLD.submitted_at / 3600000 AND channel_id = OLD.channel_id;
END;
CREATE TRIGGER review_figures_media_insert AFTER INSERT ON review_listing WHEN NEW.has_media = 1 BEGIN
	UPDATE review_figures SET with_media = with_media + 1
	WHERE (hour, channel_id) = (SELECT submitted_at / 3600000, channel_id FROM reviews WHERE id = NEW.review_id);
END;
CREATE TRIGGER review_figures_media_update AFTER UPDATE OF has_media ON review_listing WHEN OLD.has_media != NEW.has_media BEGIN
	UPDATE review_figures SET with_media = with_media + NEW.has_media - OLD.has_media
	WHERE (hour, channel_id) = (SELECT submitted_at / 3600000, channel_id FROM reviews WHERE id = NEW.review_id);
END;
CREATE TRIGGER review_figures_media_delete AFTER DELETE ON review_listing WHEN OLD.has_media = 1 BEGIN
	UPDATE review_figures SET with_media = with_media - 1
	WHERE (hour, channel_id) = (SELECT submitted_at / 3600000, channel_id FROM reviews WHERE id = OLD.review_id);
END;

-- invite_figures: product-review invitations by the hour they were sent: sent, and
-- of those opened (an "opened" mail event of the invitation or its reminder, or a
-- review written) and reviewed (at least one product of the order reviewed).
-- invite_marks remembers which invitations were counted opened or reviewed.
CREATE TABLE invite_figures (
	hour       INTEGER NOT NULL,
	channel_id INTEGER NOT NULL,
	sent       INTEGER NOT NULL DEFAULT 0,
	opened     INTEGER NOT NULL DEFAULT 0,
	reviewed   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (hour, channel_id)
) WITHOUT ROWID;
CREATE TABLE invite_days (
	day        INTEGER NOT NULL,
	channel_id INTEGER NOT NULL,
	sent       INTEGER NOT NULL DEFAULT 0,
	opened     INTEGER NOT NULL DEFAULT 0,
	reviewed   INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (day, channel_id)
) WITHOUT ROWID;
CREATE TRIGGER invite_days_insert AFTER INSERT ON invite_figures BEGIN
	INSERT INTO invite_days (day, channel_id, sent, opened, reviewed) VALUES (NEW.hour / 24, NEW.channel_id, NEW.sent, NEW.opened, NEW.reviewed)
	ON CONFLICT (day, channel_id) DO UPDATE SET sent = sent + excluded.sent, opened = opened + excluded.opened, reviewed = reviewed + excluded.reviewed;
END;
CREATE TRIGGER invite_days_update AFTER UPDATE ON invite_figures BEGIN
	UPDATE invite_days SET sent = sent + NEW.sent - OLD.sent, opened = opened + NEW.opened - OLD.opened, reviewed = reviewed + NEW.reviewed - OLD.reviewed
	WHERE day = NEW.hour / 24 AND channel_id = NEW.channel_id;
END;
CREATE TABLE invite_marks (
	invitation_id INTEGER PRIMARY KEY,
	opened        INTEGER NOT NULL DEFAULT 0,
	reviewed      INTEGER NOT NULL DEFAULT 0
);
CREATE TRIGGER invite_figures_sent_insert AFTER INSERT ON invitations WHEN NEW.kind = 'invitation' AND NEW.state = 'sent' BEGIN
	INSERT INTO invite_figures (hour, channel_id, sent) VALUES (coalesce(NEW.sent_at, NEW.updated_at) / 3600000, NEW.channel_id, 1)
	ON CONFLICT (hour, channel_id) DO UPDATE SET sent = sent + 1;
END;
CREATE TRIGGER invite_figures_sent_update AFTER UPDATE OF state, sent_at ON invitations
WHEN NEW.kind = 'invitation' AND (OLD.state = 'sent' OR NEW.state = 'sent')
	AND (OLD.state IS NOT NEW.state OR OLD.sent_at IS NOT NEW.sent_at)
BEGIN
	UPDATE invite_figures SET sent = sent - 1
	WHERE OLD.state = 'sent' AND hour = coalesce(OLD.sent_at, OLD.updated_at) / 3600000 AND channel_id = OLD.channel_id;
	INSERT INTO invite_figures (hour, channel_id, sent)
	SELECT coalesce(NEW.sent_at, NEW.updated_at) / 3600000, NEW.channel_id, 1 WHERE NEW.state = 'sent'
	ON CONFLICT (hour, channel_id) DO UPDATE SET sent = sent + 1;
END;
CREATE TRIGGER invite_marks_opened AFTER INSERT ON mail_events WHEN NEW.type = 'opened' AND NEW.send_log_id IS NOT NULL BEGIN
	INSERT INTO invite_marks (invitation_id, opened)
	SELECT coalesce(i.parent_id, i.id), 1 FROM send_logs s JOIN invitations i ON i.id = s.invitation_id
	WHERE s.id = NEW.send_log_id AND i.kind IN ('invitation', 'reminder')
	ON CONFLICT (invitation_id) DO UPDATE SET opened = 1;
END;
CREATE TRIGGER invite_marks_reviewed AFTER INSERT ON reviews
WHEN NEW.order_id IS NOT NULL AND NEW.origin = 'own' AND NEW.experience = 'product' BEGIN
	INSERT INTO invite_marks (invitation_id, opened, reviewed)
	SELECT id, 1, 1 FROM invitations WHERE order_id = NEW.order_id AND kind = 'invitation' AND state = 'sent'
	ON CONFLICT (invitation_id) DO UPDATE SET opened = 1, reviewed = 1;
END;
CREATE TRIGGER invite_figures_marks_insert AFTER INSERT ON invite_marks BEGIN
	INSERT INTO invite_figures (hour, channel_id, opened, reviewed)
	SELECT coalesce(sent_at, updated_at) / 3600000, channel_id, NEW.opened, NEW.reviewed FROM invitations WHERE id = NEW.invitation_id
	ON CONFLICT (hour, channel_id) DO UPDATE SET opened = opened + excluded.opened, reviewed = reviewed + excluded.reviewed;
END;
CREATE TRIGGER invite_figures_marks_update AFTER UPDATE ON invite_marks
WHEN OLD.opened != NEW.opened OR OLD.reviewed != NEW.reviewed BEGIN
	UPDATE invite_figures SET opened = opened + NEW.opened - OLD.opened, reviewed = reviewed + NEW.reviewed - OLD.reviewed
	WHERE (hour, channel_id) = (SELECT coalesce(sent_at, updated_at) / 3600000, channel_id FROM invitations WHERE id = NEW.invitation_id);
END;

-- site_figures: the store server's order and delivery transfers per channel code and
-- hour (ingest_requests keeps only 30 days; these stay): calls, refused (status 400
-- and above) and the newest call.
CREATE TABLE site_figures (
	hour    INTEGER NOT NULL,
	channel TEXT NOT NULL,
	calls   INTEGER NOT NULL DEFAULT 0,
	refused INTEGER NOT NULL DEFAULT 0,
	last_at INTEGER NOT NULL,
	PRIMARY KEY (hour, channel)
) WITHOUT ROWID;
CREATE INDEX site_figures_channel ON site_figures(channel, hour);
CREATE TRIGGER site_figures_ingest AFTER INSERT ON ingest_requests BEGIN
	INSERT INTO site_figures (hour, channel, calls, refused, last_at) VALUES (NEW.at / 3600000, NEW.channel, 1, NEW.status >= 400, NEW.at)
	ON CONFLICT (hour, channel) DO UPDATE SET calls = calls + 1, refused = refused + excluded.refused, last_at = max(last_at, excluded.last_at);
END;

-- topic_figures: the words of published reviews per market (and market '' for all
-- markets) with the number of reviews containing each, summed over the variants'
-- product_words.
CREATE TABLE topic_figures (
	market  TEXT NOT NULL,
	word    TEXT NOT NULL,
	form    TEXT NOT NULL,
	reviews INTEGER NOT NULL,
	PRIMARY KEY (market, word)
) WITHOUT ROWID;
CREATE INDEX topic_figures_top ON topic_figures(market, reviews);
CREATE TRIGGER topic_figures_insert AFTER INSERT ON product_words WHEN NEW.scope = 'variant' BEGIN
	INSERT INTO topic_figures (market, word, form, reviews) VALUES (NEW.market, NEW.word, NEW.form, NEW.reviews), ('', NEW.word, NEW.form, NEW.reviews)
	ON CONFLICT (market, word) DO UPDATE SET reviews = reviews + excluded.reviews;
END;
CREATE TRIGGER topic_figures_update AFTER UPDATE OF reviews ON product_words WHEN NEW.scope = 'variant' AND OLD.reviews != NEW.reviews BEGIN
	UPDATE topic_figures SET reviews = reviews + NEW.reviews - OLD.reviews WHERE market IN (NEW.market, '') AND word = NEW.word;
END;
CREATE TRIGGER topic_figures_delete AFTER DELETE ON product_words WHEN OLD.scope = 'variant' BEGIN
	UPDATE topic_figures SET reviews = reviews - OLD.reviews WHERE market IN (OLD.market, '') AND word = OLD.word;
END;

-- Top products: product figures by review count.
CREATE INDEX product_stats_top ON product_stats(scope, reviews);
CREATE INDEX product_stats_market_top ON product_stats(scope, market, reviews);

-- The figures of a database upgraded from version 13.
INSERT INTO review_figures (hour, channel_id, received, imported, pending, published, rating_sum,
	rating_1, rating_2, rating_3, rating_4, rating_5, decided, decided_ms, decided_24h)
SELECT submitted_at / 3600000, channel_id, count(*), sum(origin = 'imported'), sum(state = 'pending'), sum(state = 'published'), sum((state = 'published') * rating),
	sum(state = 'published' AND rating = 1), sum(state = 'published' AND rating = 2), sum(state = 'published' AND rating = 3),
	sum(state = 'published' AND rating = 4), sum(state = 'published' AND rating = 5), 0, 0, 0
FROM reviews GROUP BY 1, 2;
UPDATE review_figures SET with_media = m.n
FROM (SELECT r.submitted_at / 3600000 AS hour, r.channel_id, count(*) AS n FROM review_listing l JOIN reviews r ON r.id = l.review_id
	WHERE l.has_media = 1 GROUP BY 1, 2) AS m
WHERE m.hour = review_figures.hour AND m.channel_id = review_figures.channel_id;
INSERT INTO invite_figures (hour, channel_id, sent)
SELECT coalesce(sent_at, updated_at) / 3600000, channel_id, count(*) FROM invitations WHERE kind = 'invitation' AND state = 'sent' GROUP BY 1, 2;
INSERT INTO invite_marks (invitation_id, opened, reviewed)
SELECT i.id, 1, 1 FROM invitations i WHERE i.kind = 'invitation' AND i.state = 'sent'
	AND EXISTS (SELECT 1 FROM reviews r WHERE r.order_id = i.order_id AND r.origin = 'own' AND r.experience = 'product');
INSERT INTO invite_marks (invitation_id, opened)
SELECT DISTINCT coalesce(i.parent_id, i.id), 1 FROM mail_events e JOIN send_logs s ON s.id = e.send_log_id JOIN invitations i ON i.id = s.invitation_id
WHERE e.type = 'opened' AND i.kind IN ('invitation', 'reminder')
ON CONFLICT (invitation_id) DO NOTHING;
INSERT INTO site_figures (hour, channel, calls, refused, last_at)
SELECT at / 3600000, channel, count(*), sum(status >= 400), max(at) FROM ingest_requests GROUP BY 1, 2;
INSERT INTO topic_figures (market, word, form, reviews)
SELECT market, word, min(form), sum(reviews) FROM product_words WHERE scope = 'variant' GROUP BY market, word;
INSERT INTO topic_figures (market, word, form, reviews)
SELECT '', word, min(form), sum(reviews) FROM product_words WHERE scope = 'variant' GROUP BY word;

-- @version 18: a new review finds its order's sent invitation through the one-per-order
-- index (the trigger read every sent invitation before); photo figures counted again
-- (saving a listing row again counted its photo review once more); a product read
-- again unchanged (a product feed, ingest) leaves the review feeds' revision alone.
DROP TRIGGER feed_revision_products_update;
CREATE TRIGGER feed_revision_products_update AFTER UPDATE ON products
WHEN OLD.name IS NOT NEW.name OR OLD.url IS NOT NEW.url OR OLD.brand IS NOT NEW.brand OR OLD.gtin IS NOT NEW.gtin
	OR OLD.mpn IS NOT NEW.mpn OR OLD.catalog_id IS NOT NEW.catalog_id OR OLD.variant_key IS NOT NEW.variant_key BEGIN
	UPDATE feed_revision SET n = n + 1, at = max(at, NEW.updated_at) WHERE id = 1;
END;
DROP TRIGGER invite_marks_reviewed;
CREATE TRIGGER invite_marks_reviewed AFTER INSERT ON reviews
WHEN NEW.order_id IS NOT NULL AND NEW.origin = 'own' AND NEW.experience = 'product' BEGIN
	INSERT INTO invite_marks (invitation_id, opened, reviewed)
	SELECT id, 1, 1 FROM invitations
	WHERE order_id = NEW.order_id AND kind IN ('invitation', 'experience') AND kind = 'invitation' AND state = 'sent'
	ON CONFLICT (invitation_id) DO UPDATE SET opened = 1, reviewed = 1;
END;
UPDATE review_figures SET with_media = 0 WHERE with_media != 0;
UPDATE review_figures SET with_media = m.n
FROM (SELECT r.submitted_at / 3600000 AS hour, r.channel_id, count(*) AS n FROM review_listing l JOIN reviews r ON r.id = l.review_id
	WHERE l.has_media = 1 GROUP BY 1, 2) AS m
WHERE m.hour = review_figures.hour AND m.channel_id = review_figures.channel_id;

-- @version 19: the transparency log, WhatsApp invitations (phones, message-log status), incentives,
-- Shopify rating fields. The transparency log (docs/transparency.md): its entries, the stored
-- Merkle hashes of golang.org/x/mod/sumdb/tlog, one salt per review (deleted with an
-- erasure; the entries stay), the signed checkpoints and the log's name.
CREATE TABLE transparency_entries (
	idx INTEGER PRIMARY KEY, -- position in the log, from 0
	review_hash TEXT NOT NULL, -- hex HMAC-SHA-256 of the review's public id under its salt
	product_hash TEXT NOT NULL, -- hex SHA-256 of the variant key
	rating INTEGER NOT NULL,
	event TEXT NOT NULL,
	reason TEXT NOT NULL,
	actor TEXT NOT NULL,
	at INTEGER NOT NULL,
	data BLOB NOT NULL -- the record as hashed into the tree and served (one JSON line)
);
-- The entries' lookup columns, copied by the checkpoint signer with their Merkle
-- hashes, off the decision's path (a decision writes one row at the end of
-- transparency_entries and no index): receipts find a review's entries and the
-- report counts through these indexes.
CREATE TABLE transparency_keys (
	idx INTEGER PRIMARY KEY, -- the entry's idx
	review_hash TEXT NOT NULL,
	rating INTEGER NOT NULL,
	event TEXT NOT NULL,
	reason TEXT NOT NULL,
	at INTEGER NOT NULL
);
CREATE INDEX transparency_keys_review ON transparency_keys (review_hash);
-- Covers the report's grouped count.
CREATE INDEX transparency_keys_at ON transparency_keys (at, event, reason, rating);
CREATE TABLE transparency_hashes (
	id INTEGER PRIMARY KEY, -- tlog.StoredHashIndex
	hash BLOB NOT NULL
);
CREATE TABLE transparency_salts (
	review_id INTEGER PRIMARY KEY REFERENCES reviews (id) ON DELETE CASCADE,
	salt BLOB -- NULL once the review was erased: its entries can no longer be tied to it
);
CREATE TABLE transparency_checkpoints (
	size INTEGER PRIMARY KEY,
	root BLOB NOT NULL,
	note BLOB NOT NULL, -- the signed note served at /v1/transparency/checkpoint
	at INTEGER NOT NULL
);
CREATE TABLE transparency_log (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	origin TEXT NOT NULL -- the checkpoints' origin line and the key's name, fixed at first use
);

-- Messaging-app invitations (WhatsApp): the customer's phone of an order (E.164,
-- pseudonymised with the other customer fields), the message log and the opt-out
-- list take channel_kind whatsapp (both tables are rebuilt for their CHECK; the
-- mail events keep their send-log links), and a message log row keeps the
-- provider's last status.
ALTER TABLE orders ADD COLUMN customer_phone TEXT NOT NULL DEFAULT '';
CREATE TABLE send_logs_v19 (
	id               INTEGER PRIMARY KEY,
	invitation_id    INTEGER NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
	channel_kind     TEXT NOT NULL CHECK (channel_kind IN ('email', 'webhook', 'whatsapp')),
	recipient        TEXT NOT NULL DEFAULT '',
	recipient_erased INTEGER NOT NULL DEFAULT 0,
	subject          TEXT NOT NULL DEFAULT '',
	event_id         TEXT NOT NULL,
	message_id       TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL CHECK (status IN ('sent', 'retry', 'failed')),
	error            TEXT NOT NULL DEFAULT '',
	attempt          INTEGER NOT NULL,
	at               INTEGER NOT NULL,
	provider_status  TEXT NOT NULL DEFAULT '', -- last status event of the provider: sent, delivered, read, failed
	provider_status_at INTEGER
);
INSERT INTO send_logs_v19 (id, invitation_id, channel_kind, recipient, recipient_erased, subject, event_id, message_id,
	status, error, attempt, at)
SELECT id, invitation_id, channel_kind, recipient, recipient_erased, subject, event_id, message_id, status, error, attempt, at
FROM send_logs;
-- Dropping send_logs sets mail_events.send_log_id to NULL (foreign keys are on
-- during the upgrade); the links are kept aside and put back.
CREATE TEMP TABLE mail_event_links_v19 AS SELECT id, send_log_id FROM mail_events WHERE send_log_id IS NOT NULL;
DROP TRIGGER invite_marks_opened;
DROP TABLE send_logs;
ALTER TABLE send_logs_v19 RENAME TO send_logs;
UPDATE mail_events SET send_log_id = (SELECT k.send_log_id FROM mail_event_links_v19 k WHERE k.id = mail_events.id)
WHERE id IN (SELECT id FROM mail_event_links_v19);
DROP TABLE mail_event_links_v19;
CREATE INDEX send_logs_invitation ON send_logs(invitation_id);
CREATE INDEX send_logs_event ON send_logs(event_id);
CREATE INDEX send_logs_message ON send_logs(message_id) WHERE message_id != '';
CREATE INDEX send_logs_recipient ON send_logs(recipient COLLATE NOCASE, at);
CREATE INDEX send_logs_at ON send_logs(at);
CREATE TRIGGER invite_marks_opened AFTER INSERT ON mail_events WHEN NEW.type = 'opened' AND NEW.send_log_id IS NOT NULL BEGIN
	INSERT INTO invite_marks (invitation_id, opened)
	SELECT coalesce(i.parent_id, i.id), 1 FROM send_logs s JOIN invitations i ON i.id = s.invitation_id
	WHERE s.id = NEW.send_log_id AND i.kind IN ('invitation', 'reminder')
	ON CONFLICT (invitation_id) DO UPDATE SET opened = 1;
END;
-- Phone rows hold the E.164 number in address.
CREATE TABLE opt_outs_v19 (
	id           INTEGER PRIMARY KEY,
	address      TEXT NOT NULL UNIQUE,
	channel_kind TEXT NOT NULL CHECK (channel_kind IN ('email', 'webhook', 'whatsapp')),
	reason       TEXT NOT NULL,
	source       TEXT NOT NULL DEFAULT '',
	created_at   INTEGER NOT NULL
);
INSERT INTO opt_outs_v19 SELECT id, address, channel_kind, reason, source, created_at FROM opt_outs;
DROP TABLE opt_outs;
ALTER TABLE opt_outs_v19 RENAME TO opt_outs;
-- A personal-data request names a phone by its last ten digits (local and
-- international forms share them); only orders with a phone are indexed.
CREATE INDEX orders_customer_phone ON orders(substr(customer_phone, -10)) WHERE customer_phone != '';

-- Shopify product rating fields: the store's products a Shopify order
-- connection read (product legacyResourceId, the lines' group_key), and the figures
-- last written to their reviews.rating and reviews.rating_count metafields (NULL
-- before the first write), so only a changed figure is written again.
CREATE TABLE rating_fields (
	source_id  INTEGER NOT NULL REFERENCES order_sources(id) ON DELETE CASCADE,
	product_id TEXT NOT NULL,
	count      INTEGER,
	average    TEXT,
	written_at INTEGER,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (source_id, product_id)
) WITHOUT ROWID;

-- incentive disclosure: order lines and invitation templates marked as carrying an incentive, the invitations sent with such a template, and the reviews written for them
-- A line sent with "incentive": true, or an invitation e-mail rendered from a
-- template marked incentive, makes the review written for it incentivised (shown
-- with a label and in the product-review feed). Never set from the rating.
ALTER TABLE order_lines ADD COLUMN incentive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE invite_templates ADD COLUMN incentive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE invitations ADD COLUMN incentive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE reviews ADD COLUMN incentivized INTEGER NOT NULL DEFAULT 0;

-- The confirmation e-mail a writer gets after POST /v1/reviews (one per call that
-- wrote reviews of an order with an address): its outcome, sent once, never
-- retried (sent, failed: <reason>, opted_out, mail_disabled). The address stays on
-- the order; the subject and Message-ID are kept for the message log.
CREATE TABLE review_confirmations (
	id INTEGER PRIMARY KEY,
	order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
	reviews INTEGER NOT NULL, -- how many reviews the e-mail confirms
	subject TEXT NOT NULL DEFAULT '',
	message_id TEXT NOT NULL DEFAULT '',
	outcome TEXT NOT NULL,
	at INTEGER NOT NULL
);
CREATE INDEX review_confirmations_order ON review_confirmations (order_id);
-- CDN purges waiting to go out (docs/cdn.md): one row per product (scope,
-- product_key) whose public answers changed (its figures' revision, its questions
-- and answers), and the row ('', '') when the read generation moved (every answer).
-- seq moves on with every new change, so a purge sent while the product changed
-- again clears only the change it was sent for. Rows are deleted once purged (or
-- at once when no purge route is configured); next_at holds a failed purge back.
CREATE TABLE cdn_purges (
	scope       TEXT NOT NULL,
	product_key TEXT NOT NULL,
	seq         INTEGER NOT NULL DEFAULT 1,
	attempts    INTEGER NOT NULL DEFAULT 0,
	next_at     INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (scope, product_key)
) WITHOUT ROWID;
CREATE TRIGGER cdn_purges_stats_insert AFTER INSERT ON product_stats BEGIN
	INSERT INTO cdn_purges (scope, product_key) VALUES (NEW.scope, NEW.product_key)
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_stats_update AFTER UPDATE OF revision ON product_stats BEGIN
	INSERT INTO cdn_purges (scope, product_key) VALUES (NEW.scope, NEW.product_key)
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_stats_delete AFTER DELETE ON product_stats BEGIN
	INSERT INTO cdn_purges (scope, product_key) VALUES (OLD.scope, OLD.product_key)
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_generation AFTER UPDATE ON read_generation BEGIN
	INSERT INTO cdn_purges (scope, product_key) VALUES ('', '')
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_questions_insert AFTER INSERT ON questions BEGIN
	INSERT INTO cdn_purges (scope, product_key) SELECT 'variant', NEW.variant_key WHERE NEW.variant_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0;
	INSERT INTO cdn_purges (scope, product_key) SELECT 'group', NEW.group_key WHERE NEW.group_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_questions AFTER UPDATE ON questions BEGIN
	INSERT INTO cdn_purges (scope, product_key) SELECT 'variant', NEW.variant_key WHERE NEW.variant_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0;
	INSERT INTO cdn_purges (scope, product_key) SELECT 'group', NEW.group_key WHERE NEW.group_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_answers_insert AFTER INSERT ON answers BEGIN
	INSERT INTO cdn_purges (scope, product_key) SELECT 'variant', variant_key FROM questions
		WHERE id = NEW.question_id AND variant_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0;
	INSERT INTO cdn_purges (scope, product_key) SELECT 'group', group_key FROM questions
		WHERE id = NEW.question_id AND group_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
CREATE TRIGGER cdn_purges_answers_update AFTER UPDATE ON answers BEGIN
	INSERT INTO cdn_purges (scope, product_key) SELECT 'variant', variant_key FROM questions
		WHERE id = NEW.question_id AND variant_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0;
	INSERT INTO cdn_purges (scope, product_key) SELECT 'group', group_key FROM questions
		WHERE id = NEW.question_id AND group_key != ''
		ON CONFLICT (scope, product_key) DO UPDATE SET seq = seq + 1, attempts = 0, next_at = 0; END;
-- The AI package (CONTRACT "AI package"): one stored summary per product (scope,
-- key) and market, built by the job ai from the published own reviews; seen_revision
-- is the product's figures revision the summary was built at (a change of the
-- reviews moves it on). The request queue, model calls per day, the last model
-- error, the SimHash fingerprints of review texts for the near_duplicate reason,
-- and translations of review texts (one per review and language).
CREATE TABLE ai_summaries (
	scope         TEXT NOT NULL,
	product_key   TEXT NOT NULL,
	market        TEXT NOT NULL,
	summary       TEXT NOT NULL, -- JSON ai_summary object without its label; '' under ai.min_reviews
	seen_revision INTEGER NOT NULL,
	built_at      INTEGER NOT NULL,
	PRIMARY KEY (scope, product_key, market)
) WITHOUT ROWID;
CREATE TABLE ai_requests (
	id          INTEGER PRIMARY KEY,
	kind        TEXT NOT NULL CHECK (kind IN ('summary', 'translation')),
	scope       TEXT NOT NULL DEFAULT 'variant',
	product_key TEXT NOT NULL DEFAULT '',
	review_id   INTEGER REFERENCES reviews (id) ON DELETE CASCADE,
	language    TEXT NOT NULL DEFAULT '',
	state       TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
	error       TEXT NOT NULL DEFAULT '',
	attempts    INTEGER NOT NULL DEFAULT 0,
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
);
CREATE INDEX ai_requests_state ON ai_requests (state, id);
CREATE TABLE ai_usage (
	day      TEXT PRIMARY KEY, -- YYYY-MM-DD (UTC)
	requests INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE ai_status (
	id            INTEGER PRIMARY KEY CHECK (id = 1),
	last_error    TEXT NOT NULL DEFAULT '',
	last_error_at INTEGER
);
CREATE TABLE ai_fingerprints (
	review_id   INTEGER PRIMARY KEY REFERENCES reviews (id) ON DELETE CASCADE,
	variant_key TEXT NOT NULL,
	simhash     INTEGER NOT NULL
);
CREATE INDEX ai_fingerprints_variant ON ai_fingerprints (variant_key);
CREATE TABLE ai_translations (
	review_id  INTEGER NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
	language   TEXT NOT NULL,
	title      TEXT NOT NULL,
	body       TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (review_id, language)
) WITHOUT ROWID;
-- The reviews a stored summary quotes: a summary citing a review that is no longer
-- published, or was erased, is rebuilt at the next run of the job ai.
CREATE TABLE ai_summary_reviews (
	scope       TEXT NOT NULL,
	product_key TEXT NOT NULL,
	market      TEXT NOT NULL,
	review_id   INTEGER NOT NULL REFERENCES reviews (id) ON DELETE CASCADE,
	PRIMARY KEY (scope, product_key, market, review_id)
) WITHOUT ROWID;
CREATE INDEX ai_summary_reviews_review ON ai_summary_reviews (review_id);


-- Going live: the page component's refusals counted per page host
-- (origin_unverified) or revoked site key (revoked_site_key) for the owner alerts;
-- the mail server set in the panel (its JSON sealed with the master key, password
-- included; it overrides the configuration's smtp.* while set); the outcome of the
-- last test message; the day each owner-alert kind was last mailed.
CREATE TABLE component_refusals (
	kind       TEXT NOT NULL CHECK (kind IN ('origin_unverified', 'revoked_site_key')),
	subject    TEXT NOT NULL,
	channel_id INTEGER REFERENCES channels (id) ON DELETE SET NULL,
	count      INTEGER NOT NULL,
	first_at   INTEGER NOT NULL,
	last_at    INTEGER NOT NULL,
	PRIMARY KEY (kind, subject)
) WITHOUT ROWID;
CREATE TABLE mail_settings (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	sealed     BLOB NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE TABLE mail_tests (
	id        INTEGER PRIMARY KEY CHECK (id = 1),
	tested_at INTEGER NOT NULL,
	ok        INTEGER NOT NULL,
	error     TEXT NOT NULL DEFAULT ''
);
CREATE TABLE owner_alert_mails (
	kind      TEXT PRIMARY KEY,
	mailed_at INTEGER NOT NULL
) WITHOUT ROWID;
-- Featured reviews: the brand pins up to three published reviews of a product (per
-- market and product key, the lists a review appears in) to the top of the list's
-- default sort. A review leaving the published state loses its pin (trigger).
CREATE TABLE review_pins (
	review_id   INTEGER PRIMARY KEY REFERENCES reviews (id) ON DELETE CASCADE,
	market      TEXT NOT NULL,
	variant_key TEXT NOT NULL,
	group_key   TEXT NOT NULL DEFAULT '',
	pinned_by   TEXT NOT NULL DEFAULT '',
	pinned_at   INTEGER NOT NULL
);
CREATE INDEX review_pins_variant ON review_pins (market, variant_key);
CREATE INDEX review_pins_group ON review_pins (market, group_key) WHERE group_key != '';
CREATE INDEX review_pins_market ON review_pins (market, pinned_at);
CREATE TRIGGER review_pins_unpublished AFTER UPDATE OF state ON reviews WHEN NEW.state != 'published' BEGIN
	DELETE FROM review_pins WHERE review_id = NEW.id;
END;
-- The store-wide review page and the carousel read a market's published reviews
-- newest first across products.
CREATE INDEX review_listing_market ON review_listing (market, published_at);
-- Held moderation decisions: an approve or reject made in the panel waits here
-- for its undo window (due_at) before it is applied as one ordinary transition
-- (state, history, transparency log, activity); an undo deletes the row. The
-- actor is who decided (JSON), from_state the state the decision was made on.
CREATE TABLE held_decisions (
	review_id  INTEGER PRIMARY KEY REFERENCES reviews(id) ON DELETE CASCADE,
	event      TEXT NOT NULL CHECK (event IN ('approve', 'reject')),
	reason     TEXT NOT NULL DEFAULT '',
	from_state TEXT NOT NULL,
	actor      TEXT NOT NULL,
	decided_at INTEGER NOT NULL,
	due_at     INTEGER NOT NULL
);
CREATE INDEX held_decisions_due ON held_decisions(due_at);
-- A channel's IANA time zone (reviews' dates on its pages and in the panel);
-- '' is the brand's time_zone setting.
ALTER TABLE channels ADD COLUMN time_zone TEXT NOT NULL DEFAULT '';
