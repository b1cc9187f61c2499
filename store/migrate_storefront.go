package store

// stepStorefront is the DDL added to schema.sql for the storefront read side: the
// listing of published reviews with what each adds to its product's figures, the
// precomputed product figures, search, helpful votes, reports and component views.
const stepStorefront = `
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
`
