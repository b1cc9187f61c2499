package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"reviewd/store"
	"reviewd/store/storetest"
)

// figureRows is the same data written to a database before and after version 14:
// reviews in every state and origin (one with a photo), sent invitations (one
// opened, one reviewed), transfer requests and product words.
const figureRows = `
INSERT INTO channels (id, code, market, language, label, brand_name, created_at) VALUES (1, 'web', 'TR', 'tr', 'Web', 'Acme', 1),
	(2, 'gb', 'GB', 'en', 'GB', 'Acme', 1);
INSERT INTO orders (id, channel_id, external_id, market, language, payment_state, placed_at, payment_changed_at, created_at, updated_at)
	VALUES (1, 1, 'O-1', 'TR', 'tr', 'paid', 1, 1, 1, 1), (2, 1, 'O-2', 'TR', 'tr', 'paid', 1, 1, 1, 1);
INSERT INTO invitations (id, kind, order_id, channel_id, language, state, sent_at, created_at, updated_at)
	VALUES (1, 'invitation', 1, 1, 'tr', 'sent', 1780000000000, 1, 1), (2, 'invitation', 2, 1, 'tr', 'sent', 1780003600000, 1, 1),
	(3, 'invitation', NULL, 2, 'en', 'sent', 1780090000000, 1, 1), (4, 'invitation', NULL, 1, 'tr', 'queued', NULL, 1, 1);
INSERT INTO send_logs (id, invitation_id, channel_kind, event_id, message_id, status, attempt, at) VALUES (1, 1, 'email', 'e1', 'm1', 'sent', 1, 1780000000000);
INSERT INTO mail_events (source, event_id, type, send_log_id, outcome, created_at) VALUES ('generic', 'x1', 'opened', 1, 'matched', 1780000100000),
	('generic', 'x2', 'opened', 1, 'matched', 1780000200000);
INSERT INTO reviews (id, public_id, channel_id, market, language, order_id, variant_key, experience, origin, state, rating, submitted_at,
		published_at, created_at, updated_at) VALUES
	(1, 'r_1', 1, 'TR', 'tr', 2, 'SKU-1', 'product', 'own', 'published', 5, 1780010000000, 1780010000000, 1780010000000, 1780010000000),
	(2, 'r_2', 1, 'TR', 'tr', NULL, 'SKU-1', 'product', 'own', 'published', 3, 1780010000000, 1780010000000, 1780010000000, 1780010000000),
	(3, 'r_3', 1, 'TR', 'tr', NULL, 'SKU-2', 'product', 'own', 'pending', 4, 1780100000000, NULL, 1780100000000, 1780100000000),
	(4, 'r_4', 2, 'GB', 'en', NULL, 'SKU-1', 'product', 'imported', 'published', 2, 1780200000000, 1780200000000, 1780200000000, 1780200000000),
	(5, 'r_5', 1, 'TR', 'tr', NULL, 'SKU-2', 'process', 'own', 'rejected', 1, 1780300000000, NULL, 1780300000000, 1780300000000);
INSERT INTO review_listing (review_id, variant_key, group_key, market, rating, verified, syndicable, has_media, helpful, published_at, contribution)
	VALUES (1, 'SKU-1', '', 'TR', 5, 1, 1, 0, 0, 1, '{}'), (2, 'SKU-1', '', 'TR', 3, 0, 0, 1, 0, 1, '{}'), (4, 'SKU-1', '', 'GB', 2, 0, 0, 0, 0, 1, '{}');
INSERT INTO ingest_requests (at, channel, kind, status) VALUES (1780000000000, 'web', 'order', 200), (1780000001000, 'web', 'order', 400),
	(1780090000000, 'gb', 'delivery', 200);
INSERT INTO product_words (scope, product_key, market, word, form, reviews) VALUES ('variant', 'SKU-1', 'TR', 'water', 'water', 2),
	('variant', 'SKU-2', 'TR', 'water', 'water', 1), ('variant', 'SKU-1', 'GB', 'water', 'water', 1), ('group', 'G', 'TR', 'water', 'water', 9);
`

// figureTables reads every figure table in a fixed order.
func figureTables(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT hour, channel_id, received, imported, pending, published, rating_sum, rating_1, rating_2, rating_3, rating_4, rating_5, with_media FROM review_figures ORDER BY 1, 2`,
		`SELECT day, channel_id, received, imported, pending, published, rating_sum, rating_1, rating_2, rating_3, rating_4, rating_5, with_media FROM review_days ORDER BY 1, 2`,
		`SELECT hour, channel_id, sent, opened, reviewed FROM invite_figures ORDER BY 1, 2`,
		`SELECT day, channel_id, sent, opened, reviewed FROM invite_days ORDER BY 1, 2`,
		`SELECT invitation_id, opened, reviewed FROM invite_marks ORDER BY 1`,
		`SELECT hour, channel, calls, refused, last_at FROM site_figures ORDER BY 1, 2`,
		`SELECT market, word, reviews FROM topic_figures ORDER BY 1, 2`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
		b.WriteString("--\n")
	}
	return b.String()
}

// TestFiguresBackfilledOnUpgrade: a database upgraded from version 13 gets the same
// figures from its rows as the triggers give a fresh database for the same writes.
func TestFiguresBackfilledOnUpgrade(t *testing.T) {
	ctx := context.Background()
	schema := storetest.SchemaSQL(t)
	sections, err := store.Sections(schema)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	oldPath := filepath.Join(dir, "v13.db")
	raw, err := sql.Open("sqlite", "file:"+oldPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(strings.Join(sections[:13], "\n") + "\nPRAGMA user_version = 13;\n" + figureRows); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db, err := store.Open(ctx, oldPath, schema)
	if err != nil {
		t.Fatalf("upgrade: %v", err)
	}
	db.Close()

	freshPath := filepath.Join(dir, "fresh.db")
	fresh, err := store.Open(ctx, freshPath, schema)
	if err != nil {
		t.Fatal(err)
	}
	fresh.Close()
	raw, _ = sql.Open("sqlite", "file:"+freshPath)
	if _, err := raw.Exec(figureRows); err != nil {
		t.Fatal(err)
	}
	want := figureTables(t, raw)
	raw.Close()
	raw, _ = sql.Open("sqlite", "file:"+oldPath)
	got := figureTables(t, raw)
	raw.Close()
	if got != want {
		t.Fatalf("figures after the upgrade:\n%s\nfigures kept by the triggers:\n%s", got, want)
	}
	for _, line := range []string{"494447 1 2 0 0 2 8 0 0 1 0 1 1", "494445 1 1 1 1", "20601 1 2 2 1", "TR water 3", " water 4"} {
		if !strings.Contains(want, line) {
			t.Errorf("figures lack %q:\n%s", line, want)
		}
	}
}

// TestListingSavedAgainCountsPhotoOnce: saving a review's listing row again (every
// edit, vote or refresh does) keeps the photo figure at one review, and taking the
// photo away takes it back; a new review finds its order's sent invitation through
// the one-per-order index.
func TestListingSavedAgainCountsPhotoOnce(t *testing.T) {
	ctx := context.Background()
	db, clock, r := publishedReview(t, "own")
	withMedia := func() (n int) {
		t.Helper()
		if err := db.Read().QueryRowForTest(ctx, `SELECT coalesce(sum(with_media), 0) FROM review_figures`, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	save := func(media bool) {
		t.Helper()
		err := db.WithTx(ctx, func(tx *store.Tx) error {
			return tx.SaveListing(ctx, store.Listing{ReviewID: r.ID, VariantKey: "SKU-1", Market: "TR", Rating: 5, HasMedia: media,
				PublishedAt: clock.T, Contribution: "{}"})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i <= 3; i++ {
		save(true)
		if n := withMedia(); n != 1 {
			t.Fatalf("after %d saves with a photo: with_media = %d, want 1", i, n)
		}
	}
	save(false)
	if n := withMedia(); n != 0 {
		t.Fatalf("after the photo went: with_media = %d, want 0", n)
	}

	const lookup = `order_id = NEW.order_id AND kind IN ('invitation', 'experience') AND kind = 'invitation' AND state = 'sent'`
	var trigger string
	if err := db.Read().QueryRowForTest(ctx, `SELECT sql FROM sqlite_master WHERE name = 'invite_marks_reviewed'`, &trigger); err != nil ||
		!strings.Contains(trigger, lookup) {
		t.Fatalf("invite_marks_reviewed (%v):\n%s", err, trigger)
	}
	plan, err := store.QueryPlan(db, `SELECT id FROM invitations WHERE `+strings.ReplaceAll(lookup, "NEW.order_id", "?"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "invitations_one_per_order") {
		t.Fatalf("the reviewed-mark lookup: %v", plan)
	}
}

// publishedReview opens a database with a channel and one published product review
// of origin, stored at clock.T.
func publishedReview(t *testing.T, origin string) (*store.DB, *storetest.Clock, store.Review) {
	t.Helper()
	ctx := context.Background()
	clock := &storetest.Clock{T: time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)}
	db := storetest.Open(t, clock)
	var ch store.Channel
	if err := db.WithTx(ctx, func(tx *store.Tx) error {
		var err error
		ch, err = tx.CreateChannel(ctx, store.Channel{Code: "web", Market: "TR", Language: "tr", Label: "Web", BrandName: "Acme"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	rv := storetest.Review(ch, "r_"+origin, "published", clock.T)
	rv.Experience, rv.Origin, rv.Rating, rv.VariantKey = "product", origin, 5, "SKU-1"
	return db, clock, storetest.CreateReview(t, db, rv)
}
