package store

// stepReviews is the DDL added to schema.sql for reviews, their history, automatic
// checks and media, the brand's check terms and rating-topic lists.
const stepReviews = `
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
`
