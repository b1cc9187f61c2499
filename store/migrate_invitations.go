package store

// stepInvitations is the DDL added to schema.sql for tokens, invitations, the
// message log, opt-outs and mail events (version 3).
const stepInvitations = `
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
`
