package store

// stepQA is the DDL added to schema.sql for questions and answers, the answer
// e-mail cap and the method statements.
const stepQA = `
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
`
